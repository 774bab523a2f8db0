//! The `*_ex` forms, as PyTorch's: `inv_ex`, `cholesky_ex` and `solve_ex`
//! return their result together with LAPACK's `info` instead of an error on
//! a singular or non-positive-definite matrix (`lu_factor_ex` is with
//! `lu_factor`).

use faer::Mat;

use super::batch::{Operand, check_square, dims_with, push_mat, tensor};
use super::lu::{getf2, lu_factor_core, lu_solve_core};
use super::solve::is_vector_rhs;
use super::{BatchOf, LinalgFloat, Matrices, SolveRhs, SquareMatrices, expect};
use crate::ops::exec::Layout;
use crate::shape::Shape;
use crate::{ShapeError, Tensor};

/// `(inverse, info)` for each matrix of `a` `(..., n, n)`, as PyTorch's
/// `linalg.inv_ex`: `info` `(...)` is 0, or the 1-based index of the first
/// zero pivot of the LU factorization, where the "inverse" holds infinities
/// and NaNs.
///
/// # Errors
/// A non-square or rank < 2 shape.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2, 2]>::from_vec(vec![1., 2., 2., 4., 2., 0., 0., 4.]);
/// let (inv, info) = linalg::try_inv_ex(&a).unwrap();
/// assert_eq!(info.to_vec(), vec![2, 0]);
/// let inf = f64::INFINITY;
/// assert_eq!(inv.to_vec(), vec![-inf, inf, inf, -inf, 0.5, 0., 0., 0.25]);
/// ```
#[allow(clippy::type_complexity)]
pub fn try_inv_ex<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
) -> Result<(Tensor<T, S>, Tensor<i32, BatchOf<S>>), ShapeError>
where
    S::N: crate::Dim,
{
    square_with_info(a, "linalg.inv_ex", |x| {
        let n = x.nrows();
        let (lu, piv, info) = getf2(x);
        let mut rows: Vec<usize> = (0..n).collect();
        for (i, &p) in piv.iter().enumerate() {
            rows.swap(i, p as usize - 1);
        }
        // L U X = P I.
        let mut inv = Mat::from_fn(n, n, |r, c| if rows[r] == c { T::one() } else { T::zero() });
        let lu = lu.as_ref();
        lu.solve_unit_lower_triangular_in_place(&mut inv);
        lu.solve_upper_triangular_in_place(&mut inv);
        (inv, info)
    })
}

/// `(inverse, info)`; panics where [`try_inv_ex`] errs (shapes only).
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 0., 4.]);
/// let (inv, info) = linalg::inv_ex(&a);
/// assert_eq!((inv.to_vec(), info.item()), (vec![0.5, 0., 0., 0.25], 0));
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn inv_ex<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
) -> (Tensor<T, S>, Tensor<i32, BatchOf<S>>)
where
    S::N: crate::Dim,
{
    expect(try_inv_ex(a))
}

/// `(L, info)` for each matrix of `a` `(..., n, n)`, as PyTorch's
/// `linalg.cholesky_ex`: `info` `(...)` is 0, or the order of the first
/// leading minor that is not positive-definite; then `L` is LAPACK's
/// partial result (the columns before it factored, the failing diagonal
/// value in place, the rest of the lower triangle as in `a`).
///
/// # Errors
/// A non-square or rank < 2 shape.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 2., 1.]);
/// let (l, info) = linalg::try_cholesky_ex(&a).unwrap();
/// assert_eq!((l.to_vec(), info.item()), (vec![1., 0., 2., -3.], 2));
/// ```
#[allow(clippy::type_complexity)]
pub fn try_cholesky_ex<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
) -> Result<(Tensor<T, S>, Tensor<i32, BatchOf<S>>), ShapeError>
where
    S::N: crate::Dim,
{
    square_with_info(a, "linalg.cholesky_ex", |mut x| {
        let n = x.nrows();
        // LAPACK's left-looking potf2 on the lower triangle.
        let mut info = 0;
        for j in 0..n {
            let ajj = x[(j, j)] - (0..j).fold(T::zero(), |s, k| s + x[(j, k)] * x[(j, k)]);
            if ajj <= T::zero() || ajj.is_nan() {
                x[(j, j)] = ajj;
                info = j as i32 + 1;
                break;
            }
            let ajj = ajj.sqrt();
            x[(j, j)] = ajj;
            for i in j + 1..n {
                let s = (0..j).fold(T::zero(), |s, k| s + x[(i, k)] * x[(j, k)]);
                x[(i, j)] = (x[(i, j)] - s) / ajj;
            }
        }
        let l = Mat::from_fn(n, n, |i, j| if j > i { T::zero() } else { x[(i, j)] });
        (l, info)
    })
}

/// `(L, info)`; panics where [`try_cholesky_ex`] errs (shapes only).
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![4., 2., 2., 5.]);
/// let (l, info) = linalg::cholesky_ex(&a);
/// assert_eq!((l.to_vec(), info.item()), (vec![2., 0., 1., 2.], 0));
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn cholesky_ex<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
) -> (Tensor<T, S>, Tensor<i32, BatchOf<S>>)
where
    S::N: crate::Dim,
{
    expect(try_cholesky_ex(a))
}

/// `(X, info)` for `A X = B`, batches broadcast, as PyTorch's
/// `linalg.solve_ex`: `info` has `A`'s batch `(...)`, 0 or the 1-based
/// index of the first zero pivot of `A`'s LU factorization, where `X` holds
/// infinities and NaNs.
///
/// `B` is read as [`try_solve`](super::try_solve) reads it: where its rank
/// is dynamic ([`DynRank`](crate::DynRank)), PyTorch's rule makes it a batch
/// of vectors `(..., n)` when it is 1-d or its sizes are `A`'s without the
/// last (`X` then has `B`'s rank); where the types give the rank, `B` is a
/// batch of matrices.
///
/// # Errors
/// Shapes as for [`try_solve`](super::try_solve).
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2, 2]>::from_vec(vec![1., 2., 2., 4., 2., 0., 0., 4.]);
/// let b = Tensor::<f64, Shape![3, 1, 2, 1]>::from_vec(vec![2., 4., 2., 4., 2., 4.]);
/// let (x, info): (Tensor<f64, Shape![3, 2, 2, 1]>, _) = linalg::try_solve_ex(&a, &b).unwrap();
/// assert_eq!(info.to_vec(), vec![2, 0]);
/// assert_eq!(x.to_vec()[2..4], [1., 1.]);
/// // A dynamic-rank B that is 1-d is a vector, as in PyTorch.
/// use shaped::DynRank;
/// let a = Tensor::<f64, DynRank>::try_from_vec(vec![2., 0., 0., 4.], &[2, 2]).unwrap();
/// let b = Tensor::<f64, DynRank>::try_from_vec(vec![2., 4.], &[2]).unwrap();
/// let (x, info) = linalg::try_solve_ex(&a, &b).unwrap();
/// assert_eq!((x.dims(), x.to_vec(), info.to_vec()), (&[2][..], vec![1., 1.], vec![0]));
/// ```
#[allow(clippy::type_complexity)]
pub fn try_solve_ex<T: LinalgFloat, SA, SB>(
    a: &Tensor<T, SA>,
    b: &Tensor<T, SB>,
) -> Result<(Tensor<T, SB::Output>, Tensor<i32, BatchOf<SA>>), ShapeError>
where
    SA: Matrices,
    SB: SolveRhs<SA>,
    SB::Output: Shape,
{
    let name = "linalg.solve";
    let op = Operand::matrices(a.layout(), name, "A")?;
    check_square(&op, name, "A")?;
    drop(op);
    let (lu, piv, (info, batch)) = lu_factor_core::<T, SA>(a.layout())?;
    // PyTorch's vector-or-matrix rule where B's rank is dynamic, as `solve`;
    // a vector is solved as a one-column matrix.
    let vec = SB::RANK.is_none() && is_vector_rhs(a.dims(), b.dims());
    let bl = b.layout();
    let (col_dims, col_strides) = (dims_with(bl.dims, &[1]), dims_with(bl.strides, &[1]));
    let bl = if vec {
        Layout {
            dims: &col_dims,
            strides: &col_strides,
            ..bl
        }
    } else {
        bl
    };
    let (data, mut dims) = lu_solve_core(lu.layout(), piv.dims(), &piv.to_vec(), bl)
        .map_err(|e| ShapeError::Invalid(e.to_string().replace("linalg.lu_solve", name)))?;
    if vec {
        dims.pop();
    }
    Ok((tensor(data, &dims)?, tensor(info, &batch)?))
}

/// `(X, info)`; panics where [`try_solve_ex`] errs (shapes only).
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 0., 4.]);
/// let b = Tensor::<f64, Shape![2, 1]>::from_vec(vec![2., 4.]);
/// let (x, info) = linalg::solve_ex(&a, &b);
/// assert_eq!((x.to_vec(), info.item()), (vec![1., 1.], 0));
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn solve_ex<T: LinalgFloat, SA, SB>(
    a: &Tensor<T, SA>,
    b: &Tensor<T, SB>,
) -> (Tensor<T, SB::Output>, Tensor<i32, BatchOf<SA>>)
where
    SA: Matrices,
    SB: SolveRhs<SA>,
    SB::Output: Shape,
{
    expect(try_solve_ex(a, b))
}

/// `f` on every square matrix of `a`: the matrices in `a`'s shape and the
/// `info` values in its batch's.
#[allow(clippy::type_complexity)]
fn square_with_info<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
    name: &str,
    f: impl Fn(Mat<T>) -> (Mat<T>, i32) + Sync,
) -> Result<(Tensor<T, S>, Tensor<i32, BatchOf<S>>), ShapeError> {
    let op = Operand::matrices(a.layout(), name, "A")?;
    let n = check_square(&op, name, "A")?;
    let res = op.each(name, |x| Ok(f(x)))?;
    let mut data = Vec::with_capacity(res.len() * n * n);
    for (m, _) in &res {
        push_mat(&mut data, m.as_ref());
    }
    let info = res.iter().map(|r| r.1).collect();
    Ok((tensor(data, &op.dims_vec())?, tensor(info, op.batch())?))
}
