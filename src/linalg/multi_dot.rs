//! `multi_dot`: the product of a chain of matrices, in the cheapest order.

use super::compose::{LinalgDevice, view};
use super::{LinalgFloat, expect};
use crate::shape::{DynRank, Shape};
use crate::{ShapeError, Tensor};

/// The product `A₁ A₂ ⋯ Aₖ` of two or more matrices, multiplied in the
/// order that needs the fewest scalar multiplications (the textbook
/// dynamic programme), as PyTorch's `linalg.multi_dot`. The first may be a
/// vector (a row) and the last a vector (a column); those dimensions are
/// dropped from the result, as PyTorch does. Every tensor in between must be
/// 2-d.
///
/// On every device one matrix product ([`Tensor::try_matmul`], cuBLAS
/// GEMM on CUDA) per multiplication of the chosen order; vectors are
/// viewed as a row or a column without a copy.
///
/// # Errors
/// Fewer than two tensors, a tensor of the wrong rank, sizes that do not
/// chain; PyTorch's messages.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[2, 3]).unwrap();
/// let b = Tensor::<f64, DynRank>::try_zeros(&[4, 5]).unwrap();
/// assert_eq!(linalg::try_multi_dot(&[&a, &b]).unwrap_err().to_string(),
///     "multi_dot(): tensors 0 and 1 with shapes [2, 3] and [4, 5] cannot be multiplied");
/// ```
pub fn try_multi_dot<T: LinalgFloat, S: Shape, D: LinalgDevice<T>>(
    tensors: &[&Tensor<T, S, D>],
) -> Result<Tensor<T, DynRank, D>, D::Error> {
    let k = tensors.len();
    if k < 2 {
        return Err(ShapeError::Invalid(format!(
            "multi_dot(): expected at least 2 tensors but got {k}"
        ))
        .into());
    }
    let rank_err = |which: &str, r: usize| {
        ShapeError::Invalid(format!(
            "multi_dot(): {which} tensor must be 1D or 2D but got {r}D"
        ))
    };
    let (r0, rl) = (tensors[0].dims().len(), tensors[k - 1].dims().len());
    if !(1..=2).contains(&r0) {
        return Err(rank_err("the first", r0).into());
    }
    if !(1..=2).contains(&rl) {
        return Err(rank_err("the last", rl).into());
    }
    for (i, t) in tensors.iter().enumerate().take(k - 1).skip(1) {
        if t.dims().len() != 2 {
            return Err(ShapeError::Invalid(format!(
                "multi_dot(): tensor {i} must be 2D but got {}D",
                t.dims().len()
            ))
            .into());
        }
    }
    // Every tensor as a matrix view: a first vector is a row, a last one a
    // column.
    let mats: Vec<Tensor<T, DynRank, D>> = tensors
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let (d, st) = (t.dims(), t.strides());
            match d.len() {
                1 if i == 0 => view(*t, &[1, d[0]], &[0, st[0]], 0),
                1 => view(*t, &[d[0], 1], &[st[0], 0], 0),
                _ => view(*t, d, st, 0),
            }
        })
        .collect();
    let rows = |i: usize| mats[i].dims()[0];
    let cols = |i: usize| mats[i].dims()[1];
    for i in 0..k - 1 {
        if cols(i) != rows(i + 1) {
            return Err(ShapeError::Invalid(format!(
                "multi_dot(): tensors {i} and {} with shapes {:?} and {:?} cannot be multiplied",
                i + 1,
                tensors[i].dims(),
                tensors[i + 1].dims()
            ))
            .into());
        }
    }
    let p: Vec<usize> = std::iter::once(rows(0)).chain((0..k).map(cols)).collect();
    // cost[i][j]: the fewest multiplications for mats[i..=j]; split[i][j]
    // the last product's split point.
    let mut cost = vec![vec![0usize; k]; k];
    let mut split = vec![vec![0usize; k]; k];
    for len in 1..k {
        for i in 0..k - len {
            let j = i + len;
            cost[i][j] = usize::MAX;
            for s in i..j {
                let c = cost[i][s]
                    .saturating_add(cost[s + 1][j])
                    .saturating_add(p[i] * p[s + 1] * p[j + 1]);
                if c < cost[i][j] {
                    cost[i][j] = c;
                    split[i][j] = s;
                }
            }
        }
    }
    /// The product of `m[i..=j]` in the order `split` gives.
    fn product<T: LinalgFloat, D: LinalgDevice<T>>(
        m: &[Tensor<T, DynRank, D>],
        split: &[Vec<usize>],
        i: usize,
        j: usize,
    ) -> Result<Tensor<T, DynRank, D>, D::Error> {
        if i == j {
            return Ok(m[i].share());
        }
        let s = split[i][j];
        let (l, r) = (product(m, split, i, s)?, product(m, split, s + 1, j)?);
        l.try_matmul(&r)
    }
    let out = product(&mats, &split, 0, k - 1)?;
    // Drop the dimensions of a first row or a last column vector.
    let keep = [r0 == 2, rl == 2];
    let dims: Vec<usize> = (0..2).filter(|&d| keep[d]).map(|d| out.dims()[d]).collect();
    let strides: Vec<usize> = (0..2)
        .filter(|&d| keep[d])
        .map(|d| out.strides()[d])
        .collect();
    Ok(view(&out, &dims, &strides, 0))
}

/// The chained product; panics where [`try_multi_dot`] errs.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let v = Tensor::<f64, DynRank>::try_from_vec(vec![1., 2.], &[2]).unwrap();
/// let m = Tensor::<f64, DynRank>::try_from_vec(vec![1., 0., 0., 3.], &[2, 2]).unwrap();
/// let r = linalg::multi_dot(&[&v, &m, &v]);
/// assert_eq!((r.dims(), r.to_vec()), (&[][..], vec![13.]));
/// ```
#[track_caller]
pub fn multi_dot<T: LinalgFloat, S: Shape, D: LinalgDevice<T>>(
    tensors: &[&Tensor<T, S, D>],
) -> Tensor<T, DynRank, D> {
    expect(try_multi_dot(tensors))
}
