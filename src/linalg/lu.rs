//! `lu_factor` (LU with partial pivoting, packed as LAPACK packs it) and
//! `lu_solve`.

use faer::Mat;

use super::batch::{
    Operand, bcast_index, broadcast_batch, check_square, dims_with, incompatible, par_batches,
    stack, tensor,
};
use super::{EigvalsOf, LinalgFloat, SolveShape, SquareMatrices, expect, lu};
use crate::ops::exec::Layout;
use crate::shape::Shape;
use crate::{ShapeError, Tensor};

/// The packed LU factorization of each matrix of `a` `(..., n, n)`, as
/// LAPACK's `getrf` and PyTorch's `lu_factor` return it: `LU` holds `U` on and
/// above the diagonal and the unit-lower `L` below it, and `pivots`
/// `(..., n)` says that row `i` was swapped with row `pivots[i] - 1`
/// (1-based), in order. A singular matrix is factored too (a zero on the
/// diagonal of `U`); solving with it fails.
///
/// # Errors
/// A non-square shape.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
/// let (lu, piv) = linalg::try_lu_factor(&a).unwrap();
/// assert_eq!(piv.to_vec(), vec![2, 2]);
/// let v = lu.to_vec();
/// assert_eq!(v[..3], [3., 4., 1. / 3.]);
/// assert!((v[3] - 2. / 3.).abs() < 1e-12);
/// ```
#[allow(clippy::type_complexity)]
pub fn try_lu_factor<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
) -> Result<(Tensor<T, S>, Tensor<i32, EigvalsOf<S>>), ShapeError> {
    let name = "linalg.lu_factor";
    let a = Operand::matrices(a.layout(), name, "A")?;
    let n = check_square(&a, name, "A")?;
    let batch = a.batch().to_vec();
    let offs = a.offsets(&batch);
    let res = par_batches(name, &batch, |i| Ok(packed_lu(&a.mat(offs[i]))))?;
    let mut lu = Vec::with_capacity(res.len() * n * n);
    let mut piv = Vec::with_capacity(res.len() * n);
    for (m, p) in &res {
        super::batch::push_mat(&mut lu, m.as_ref());
        piv.extend_from_slice(p);
    }
    let mut pdims = batch.clone();
    pdims.push(n);
    Ok((tensor(lu, &a.dims_vec())?, tensor(piv, &pdims)?))
}

/// `(LU, pivots)` of each matrix of `a`; panics where [`try_lu_factor`]
/// errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f32, Shape![3, 2, 2]>::from_vec(vec![1., 0., 0., 1., 0., 1., 1., 0., 2., 1., 4., 3.]);
/// let (_lu, piv) = linalg::lu_factor(&a);
/// assert_eq!(piv.to_vec(), vec![1, 2, 2, 2, 2, 2]);
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn lu_factor<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
) -> (Tensor<T, S>, Tensor<i32, EigvalsOf<S>>) {
    expect(try_lu_factor(a))
}

/// The solution `X` of `A X = B` from the factorization `(LU, pivots)` of
/// [`lu_factor`]; `LU` `(..., n, n)` and `B` `(..., n, k)` broadcast their
/// batches, and `pivots` has `LU`'s batch and length `n`.
///
/// # Errors
/// Shapes as for [`try_solve`](super::try_solve), pivots of the wrong shape
/// or out of range; a zero on the diagonal of `U`.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_from_vec(vec![1., 2., 2., 4.], &[2, 2]).unwrap();
/// let b = Tensor::<f64, DynRank>::try_from_vec(vec![1., 1.], &[2, 1]).unwrap();
/// let (lu, piv) = linalg::lu_factor(&a);
/// assert_eq!(linalg::try_lu_solve(&lu, &piv, &b).unwrap_err().to_string(),
///     "linalg.lu_solve: The solver failed because the input matrix is singular.");
/// ```
pub fn try_lu_solve<T: LinalgFloat, SA: SolveShape<SB>, SP: Shape, SB: Shape>(
    lu: &Tensor<T, SA>,
    pivots: &Tensor<i32, SP>,
    b: &Tensor<T, SB>,
) -> Result<Tensor<T, SA::Output>, ShapeError> {
    let (data, dims) = lu_solve_core(lu.layout(), pivots.dims(), &pivots.to_vec(), b.layout())?;
    tensor(data, &dims)
}

/// `X` with `A X = B` from `lu_factor(A)`; panics where [`try_lu_solve`]
/// errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
/// let b = Tensor::<f64, Shape![2, 1]>::from_vec(vec![5., 11.]);
/// let (lu, piv) = linalg::lu_factor(&a);
/// let x = linalg::lu_solve(&lu, &piv, &b).to_vec();
/// assert!((x[0] - 1.).abs() < 1e-12 && (x[1] - 2.).abs() < 1e-12);
/// ```
#[track_caller]
pub fn lu_solve<T: LinalgFloat, SA: SolveShape<SB>, SP: Shape, SB: Shape>(
    lu: &Tensor<T, SA>,
    pivots: &Tensor<i32, SP>,
    b: &Tensor<T, SB>,
) -> Tensor<T, SA::Output> {
    expect(try_lu_solve(lu, pivots, b))
}

/// LU of `m` packed, with LAPACK's 1-based sequential row swaps.
fn packed_lu<T: LinalgFloat>(m: &Mat<T>) -> (Mat<T>, Vec<i32>) {
    let n = m.nrows();
    let (f, _) = lu(m);
    let (l, u) = (f.L(), f.U());
    let packed = Mat::from_fn(n, n, |i, j| if i > j { l[(i, j)] } else { u[(i, j)] });
    // Row i of L U is row fwd[i] of A; replay that as swaps.
    let fwd = f.P().arrays().0;
    let mut cur: Vec<usize> = (0..n).collect();
    let mut pos: Vec<usize> = (0..n).collect();
    let mut piv = Vec::with_capacity(n);
    for (i, &target) in fwd.iter().enumerate() {
        let j = pos[target];
        cur.swap(i, j);
        pos[cur[i]] = i;
        pos[cur[j]] = j;
        piv.push(j as i32 + 1);
    }
    (packed, piv)
}

fn lu_solve_core<T: LinalgFloat>(
    lu: Layout<'_, T>,
    pdims: &[usize],
    piv: &[i32],
    b: Layout<'_, T>,
) -> Result<(Vec<T>, Vec<usize>), ShapeError> {
    let name = "linalg.lu_solve";
    let a = Operand::matrices(lu, name, "LU")?;
    let b = Operand::matrices(b, name, "B")?;
    let n = check_square(&a, name, "LU")?;
    if b.rows() != n {
        return Err(incompatible(name, &a, &b, false));
    }
    let mut want = a.batch().to_vec();
    want.push(n);
    if pdims != want.as_slice() {
        return Err(ShapeError::Invalid(format!(
            "{name}: Expected pivots of shape {want:?} (LU's batch and n), but got {pdims:?}"
        )));
    }
    if piv.iter().any(|&p| p < 1 || p as usize > n) {
        return Err(ShapeError::Invalid(format!(
            "{name}: pivots must be between 1 and {n}"
        )));
    }
    let batch = broadcast_batch(a.batch(), b.batch())?;
    let (oa, ob) = (a.offsets(&batch), b.offsets(&batch));
    let pi = bcast_index(a.batch(), &batch);
    let k = b.cols();
    let mats = par_batches(name, &batch, |i| {
        let lu = a.mat(oa[i]);
        let mut x = b.mat(ob[i]);
        if (0..n).any(|d| lu[(d, d)] == T::zero()) {
            return Err("The solver failed because the input matrix is singular.".to_string());
        }
        for (r, &p) in piv[pi[i] * n..(pi[i] + 1) * n].iter().enumerate() {
            let p = p as usize - 1;
            if p != r {
                for c in 0..k {
                    let t = x[(r, c)];
                    x[(r, c)] = x[(p, c)];
                    x[(p, c)] = t;
                }
            }
        }
        let lu = lu.as_ref();
        lu.solve_unit_lower_triangular_in_place(&mut x);
        lu.solve_upper_triangular_in_place(&mut x);
        Ok(x)
    })?;
    Ok((stack(&mats, n * k), dims_with(&batch, &[n, k])))
}
