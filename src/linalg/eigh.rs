//! `eigh` and `eigvalsh`: eigen-decomposition of symmetric matrices.

use faer::Side;

use super::batch::{Operand, check_square, dims_with, stack, tensor};
use super::{EigvalsOf, LinalgFloat, SquareMatrices, expect};
use crate::{ShapeError, Tensor};

const NO_CONVERGENCE: &str = "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated eigenvalues.";

/// The eigenvalues `w` `(..., n)` (ascending) and orthonormal eigenvectors
/// `V` `(..., n, n)` (as columns: `A V = V diag(w)`) of each symmetric
/// matrix of `a`; only the lower triangle is read, as PyTorch's default
/// `UPLO='L'`.
///
/// # Errors
/// A non-square shape; no convergence.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[2, 3]).unwrap();
/// assert_eq!(linalg::try_eigh(&a).unwrap_err().to_string(),
///     "linalg.eigh: A must be batches of square matrices, but they are 2 by 3 matrices");
/// ```
#[allow(clippy::type_complexity)]
pub fn try_eigh<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
) -> Result<(Tensor<T, EigvalsOf<S>>, Tensor<T, S>), ShapeError>
where
    S::N: crate::Dim,
{
    let name = "linalg.eigh";
    let a = Operand::matrices(a.layout(), name, "A")?;
    let n = check_square(&a, name, "A")?;
    let res = a.each(name, |x| {
        let f = x
            .self_adjoint_eigen(Side::Lower)
            .map_err(|_| NO_CONVERGENCE.to_string())?;
        let w: Vec<T> = f.S().column_vector().iter().copied().collect();
        Ok((w, f.U().to_owned()))
    })?;
    let (ws, vs): (Vec<_>, Vec<_>) = res.into_iter().unzip();
    Ok((
        tensor(ws.concat(), &dims_with(a.batch(), &[n]))?,
        tensor(stack(&vs, n * n), &a.dims_vec())?,
    ))
}

/// `(w, V)`; panics where [`try_eigh`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 0., 1.]);
/// let (w, v) = linalg::eigh(&a);
/// assert_eq!(w.to_vec(), vec![1., 2.]);
/// assert_eq!(v.to_vec().iter().map(|x| x.abs()).collect::<Vec<_>>(), vec![0., 1., 1., 0.]);
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn eigh<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
) -> (Tensor<T, EigvalsOf<S>>, Tensor<T, S>)
where
    S::N: crate::Dim,
{
    expect(try_eigh(a))
}

/// The eigenvalues `(..., n)`, ascending, of each symmetric matrix of `a`
/// (lower triangle read).
///
/// # Errors
/// As [`try_eigh`].
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 1., 1., 2.]);
/// let w = linalg::try_eigvalsh(&a).unwrap().to_vec();
/// assert!((w[0] - 1.).abs() < 1e-12 && (w[1] - 3.).abs() < 1e-12);
/// ```
pub fn try_eigvalsh<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
) -> Result<Tensor<T, EigvalsOf<S>>, ShapeError>
where
    S::N: crate::Dim,
{
    let name = "linalg.eigvalsh";
    let a = Operand::matrices(a.layout(), name, "A")?;
    let n = check_square(&a, name, "A")?;
    let ws = a.each(name, |x| {
        x.self_adjoint_eigenvalues(Side::Lower)
            .map_err(|_| NO_CONVERGENCE.to_string())
    })?;
    tensor(ws.concat(), &dims_with(a.batch(), &[n]))
}

/// The eigenvalues; panics where [`try_eigvalsh`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f32, Shape![2, 2]>::from_vec(vec![3., 0., 0., -1.]);
/// assert_eq!(linalg::eigvalsh(&a).to_vec(), vec![-1., 3.]);
/// ```
#[track_caller]
pub fn eigvalsh<T: LinalgFloat, S: SquareMatrices>(a: &Tensor<T, S>) -> Tensor<T, EigvalsOf<S>>
where
    S::N: crate::Dim,
{
    expect(try_eigvalsh(a))
}
