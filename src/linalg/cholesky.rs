//! `cholesky` and `cholesky_solve`.

use faer::Side;

use super::batch::{Operand, check_square, par_batches, stack, tensor};
use super::solve::pairwise;
use super::{LinalgFloat, SolveRhs, SquareMatrices, expect};
use crate::ops::exec::Layout;
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
pub fn try_cholesky<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
) -> Result<Tensor<T, S>, ShapeError>
where
    S::N: crate::Dim,
{
    let (data, dims) = cholesky_core(a.layout())?;
    tensor(data, &dims)
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
pub fn cholesky<T: LinalgFloat, S: SquareMatrices>(a: &Tensor<T, S>) -> Tensor<T, S>
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
pub fn try_cholesky_solve<T: LinalgFloat, SB, SL>(
    b: &Tensor<T, SB>,
    l: &Tensor<T, SL>,
) -> Result<Tensor<T, SB::Output>, ShapeError>
where
    SL: Shape,
    SB: SolveRhs<SL>,
    SB::Output: Shape,
{
    let (data, dims) = cholesky_solve_core(b.layout(), l.layout())?;
    tensor(data, &dims)
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
pub fn cholesky_solve<T: LinalgFloat, SB, SL>(
    b: &Tensor<T, SB>,
    l: &Tensor<T, SL>,
) -> Tensor<T, SB::Output>
where
    SL: Shape,
    SB: SolveRhs<SL>,
    SB::Output: Shape,
{
    expect(try_cholesky_solve(b, l))
}

fn cholesky_core<T: LinalgFloat>(a: Layout<'_, T>) -> Result<(Vec<T>, Vec<usize>), ShapeError> {
    let name = "linalg.cholesky";
    let a = Operand::matrices(a, name, "A")?;
    let n = check_square(&a, name, "A")?;
    let batch = a.batch().to_vec();
    let offs = a.offsets(&batch);
    let mats = par_batches(name, &batch, |i| match a.mat(offs[i]).llt(Side::Lower) {
        Ok(llt) => Ok(llt.L().to_owned()),
        Err(faer::linalg::solvers::LltError::NonPositivePivot { index }) => Err(format!(
            "The factorization could not be completed because the input is not positive-definite (the leading minor of order {} is not positive-definite).",
            index + 1
        )),
    })?;
    Ok((stack(&mats, n * n), a.dims_vec()))
}

fn cholesky_solve_core<T: LinalgFloat>(
    b: Layout<'_, T>,
    l: Layout<'_, T>,
) -> Result<(Vec<T>, Vec<usize>), ShapeError> {
    let name = "linalg.cholesky_solve";
    // PyTorch's own wording here: no function prefix.
    for (arg, dims) in [("b", b.dims), ("u", l.dims)] {
        if dims.len() < 2 {
            return Err(ShapeError::Invalid(format!(
                "{arg} should have at least 2 dimensions, but has {} dimensions instead",
                dims.len()
            )));
        }
    }
    let l = Operand::matrices(l, name, "L")?;
    let b = Operand::matrices(b, name, "B")?;
    if l.rows() != l.cols() {
        return Err(ShapeError::Invalid(format!(
            "A must be batches of square matrices, but they are {} by {} matrices",
            l.rows(),
            l.cols()
        )));
    }
    let n = l.rows();
    if b.rows() != n {
        return Err(ShapeError::Invalid(format!(
            "Incompatible matrix sizes for cholesky_solve: each A matrix is {n} by {n} but each b matrix is {} by {}",
            b.rows(),
            b.cols()
        )));
    }
    // B is "tensor a" in PyTorch's broadcast message.
    let (data, dims) = pairwise(name, &b, &l, n, b.cols(), false, |mut x, lm| {
        let lm = lm.as_ref();
        // Only the lower triangle of L is read, as PyTorch does; a zero on
        // its diagonal gives infinities and NaNs, as PyTorch.
        lm.solve_lower_triangular_in_place(&mut x);
        lm.transpose().solve_upper_triangular_in_place(&mut x);
        Ok(x)
    })?;
    Ok((data, dims))
}
