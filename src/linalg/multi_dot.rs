//! `multi_dot`: the product of a chain of matrices, in the cheapest order.

use faer::Mat;

use super::batch::{Operand, matmul, tensor};
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
pub fn try_multi_dot<T: LinalgFloat, S: Shape>(
    tensors: &[&Tensor<T, S>],
) -> Result<Tensor<T, DynRank>, ShapeError> {
    let k = tensors.len();
    if k < 2 {
        return Err(ShapeError::Invalid(format!(
            "multi_dot(): expected at least 2 tensors but got {k}"
        )));
    }
    let rank_err = |which: &str, r: usize| {
        ShapeError::Invalid(format!(
            "multi_dot(): {which} tensor must be 1D or 2D but got {r}D"
        ))
    };
    let (r0, rl) = (tensors[0].dims().len(), tensors[k - 1].dims().len());
    if !(1..=2).contains(&r0) {
        return Err(rank_err("the first", r0));
    }
    if !(1..=2).contains(&rl) {
        return Err(rank_err("the last", rl));
    }
    for (i, t) in tensors.iter().enumerate().take(k - 1).skip(1) {
        if t.dims().len() != 2 {
            return Err(ShapeError::Invalid(format!(
                "multi_dot(): tensor {i} must be 2D but got {}D",
                t.dims().len()
            )));
        }
    }
    // Every tensor as a matrix: a first vector is a row, a last one a column.
    let mats: Vec<Mat<T>> = tensors
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let op = if t.dims().len() == 1 {
                Operand::vectors(t.layout(), "multi_dot", "A")
            } else {
                Operand::matrices(t.layout(), "multi_dot", "A")
            }?;
            let m = op.mat(0);
            Ok(if t.dims().len() == 1 && i == 0 {
                m.transpose().to_owned()
            } else {
                m
            })
        })
        .collect::<Result<_, ShapeError>>()?;
    for i in 0..k - 1 {
        if mats[i].ncols() != mats[i + 1].nrows() {
            return Err(ShapeError::Invalid(format!(
                "multi_dot(): tensors {i} and {} with shapes {:?} and {:?} cannot be multiplied",
                i + 1,
                tensors[i].dims(),
                tensors[i + 1].dims()
            )));
        }
    }
    let p: Vec<usize> = std::iter::once(mats[0].nrows())
        .chain(mats.iter().map(|m| m.ncols()))
        .collect();
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
    fn product<T: LinalgFloat>(m: &[Mat<T>], split: &[Vec<usize>], i: usize, j: usize) -> Mat<T> {
        if i == j {
            return m[i].clone();
        }
        let s = split[i][j];
        let (l, r) = (product(m, split, i, s), product(m, split, s + 1, j));
        matmul(l.as_ref(), r.as_ref())
    }
    let out = product(&mats, &split, 0, k - 1);
    let mut dims = Vec::new();
    if r0 == 2 {
        dims.push(out.nrows());
    }
    if rl == 2 {
        dims.push(out.ncols());
    }
    let mut data = Vec::with_capacity(out.nrows() * out.ncols());
    super::batch::push_mat(&mut data, out.as_ref());
    tensor(data, &dims)
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
pub fn multi_dot<T: LinalgFloat, S: Shape>(tensors: &[&Tensor<T, S>]) -> Tensor<T, DynRank> {
    expect(try_multi_dot(tensors))
}
