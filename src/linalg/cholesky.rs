//! `cholesky` and `cholesky_solve`.

use super::generic::{check_batch_info, check_square_dims};
use super::primitives;
use super::{LinalgFloat, SolveRhs, SquareMatrices, expect};
use crate::backend::Linalg;
use crate::backend::cpu::linalg::batch::broadcast_batch;
use crate::shape::Shape;
use crate::{ShapeError, Tensor};

/// The lower-triangular Cholesky factor `L` (`A = L Lᵀ`) of each symmetric
/// positive-definite matrix of `a` `(..., n, n)`; only the lower triangle of
/// `a` is read.
///
/// # Errors
/// A non-square shape; a matrix that is not positive-definite, with
/// PyTorch's message naming the batch element and the leading minor.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2, 2]>::from_vec(vec![4., 2., 2., 5., 1., 0., 0., -1.]);
/// assert_eq!(linalg::try_cholesky(&a).unwrap_err().to_string(),
///     "linalg.cholesky: (Batch element 1): The factorization could not be completed because the input is not positive-definite (the leading minor of order 2 is not positive-definite).");
/// ```
pub fn try_cholesky<T: LinalgFloat, S: SquareMatrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Result<Tensor<T, S, D>, D::Error>
where
    S::N: crate::Dim,
{
    let name = "linalg.cholesky";
    check_square_dims(a.dims(), name, "A")?;
    let (l, info) = primitives::cholesky(&a.share().into_dyn())?;
    check_batch_info(name, a.rank() - 2, &info, |k| {
        format!(
            "The factorization could not be completed because the input is not positive-definite (the leading minor of order {k} is not positive-definite)."
        )
    })?;
    Ok(l.try_into_shape()?)
}

/// The Cholesky factor `L` of each matrix of `a`; panics where
/// [`try_cholesky`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![4., 2., 2., 5.]);
/// assert_eq!(linalg::cholesky(&a).to_vec(), vec![2., 0., 1., 2.]);
/// ```
#[track_caller]
pub fn cholesky<T: LinalgFloat, S: SquareMatrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Tensor<T, S, D>
where
    S::N: crate::Dim,
{
    expect(try_cholesky(a))
}

/// The solution `X` of `A X = B` given the Cholesky factor `L` of `A`
/// (`A = L Lᵀ`, `L` lower triangular, `(..., n, n)`) and `B` `(..., n, k)`;
/// the batch dimensions broadcast. Argument order as PyTorch's
/// `cholesky_solve(B, L)`.
///
/// A zero on the diagonal of `L` gives infinities and NaNs, as PyTorch.
///
/// # Errors
/// Shapes that do not fit, with PyTorch's wording for `cholesky_solve`.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let l = Tensor::<f64, DynRank>::try_from_vec(vec![1., 0., 1., 0.], &[2, 2]).unwrap();
/// let b = Tensor::<f64, DynRank>::try_from_vec(vec![1., 1.], &[2, 1]).unwrap();
/// assert!(linalg::try_cholesky_solve(&b, &l).unwrap().to_vec().iter().all(|x| x.is_nan()));
/// let b4 = Tensor::<f64, DynRank>::try_zeros(&[4, 1]).unwrap();
/// assert_eq!(linalg::try_cholesky_solve(&b4, &l).unwrap_err().to_string(),
///     "Incompatible matrix sizes for cholesky_solve: each A matrix is 2 by 2 but each b matrix is 4 by 1");
/// ```
pub fn try_cholesky_solve<T: LinalgFloat, SB, SL, D: Linalg<T>>(
    b: &Tensor<T, SB, D>,
    l: &Tensor<T, SL, D>,
) -> Result<Tensor<T, SB::Output, D>, D::Error>
where
    SL: Shape,
    SB: SolveRhs<SL>,
    SB::Output: Shape,
{
    check_cholesky_solve(b.dims(), l.dims())?;
    let x = primitives::cholesky_solve(&b.share().into_dyn(), &l.share().into_dyn())?;
    Ok(x.try_into_shape()?)
}

/// `X` with `L Lᵀ X = B`; panics where [`try_cholesky_solve`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let l = Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 1., 2.]); // A = [[4, 2], [2, 5]]
/// let b = Tensor::<f64, Shape![2, 1]>::from_vec(vec![6., 7.]);
/// assert_eq!(linalg::cholesky_solve(&b, &l).to_vec(), vec![1., 1.]);
/// ```
#[track_caller]
pub fn cholesky_solve<T: LinalgFloat, SB, SL, D: Linalg<T>>(
    b: &Tensor<T, SB, D>,
    l: &Tensor<T, SL, D>,
) -> Tensor<T, SB::Output, D>
where
    SL: Shape,
    SB: SolveRhs<SL>,
    SB::Output: Shape,
{
    expect(try_cholesky_solve(b, l))
}

/// `cholesky_solve`'s size checks, with PyTorch's wording (no function
/// prefix), and the batch broadcast (`B`'s first, as PyTorch names it).
fn check_cholesky_solve(b: &[usize], l: &[usize]) -> Result<(), ShapeError> {
    for (arg, dims) in [("b", b), ("u", l)] {
        if dims.len() < 2 {
            return Err(ShapeError::Invalid(format!(
                "{arg} should have at least 2 dimensions, but has {} dimensions instead",
                dims.len()
            )));
        }
    }
    let (lr, lc) = (l[l.len() - 2], l[l.len() - 1]);
    if lr != lc {
        return Err(ShapeError::Invalid(format!(
            "A must be batches of square matrices, but they are {lr} by {lc} matrices"
        )));
    }
    let (br, bc) = (b[b.len() - 2], b[b.len() - 1]);
    if br != lr {
        return Err(ShapeError::Invalid(format!(
            "Incompatible matrix sizes for cholesky_solve: each A matrix is {lr} by {lr} but each b matrix is {br} by {bc}"
        )));
    }
    broadcast_batch(&b[..b.len() - 2], &l[..l.len() - 2])?;
    Ok(())
}
