//! `eigh` and `eigvalsh`: eigen-decomposition of symmetric matrices.

use super::generic::{check_batch_info, check_square_dims};
use super::primitives;
use super::{EigvalsOf, LinalgFloat, SquareMatrices, expect};
use crate::Tensor;
use crate::backend::Linalg;
use crate::shape::{DynRank, Shape};

const NO_CONVERGENCE: &str = "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated eigenvalues.";

/// The eigenvalues `w` `(..., n)` (ascending) and orthonormal eigenvectors
/// `V` `(..., n, n)` (as columns: `A V = V diag(w)`) of each symmetric
/// matrix of `a`; only the lower triangle is read, as PyTorch's default
/// `UPLO='L'`.
///
/// On CUDA: one cuSOLVER `syevjBatched` (Jacobi) for `n <= 32`; larger
/// matrices loop over the batch, one `syevj` call per matrix.
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
pub fn try_eigh<T: LinalgFloat, S: SquareMatrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Result<(Tensor<T, EigvalsOf<S>, D>, Tensor<T, S, D>), D::Error>
where
    S::N: crate::Dim,
{
    let (w, v) = eigh_on(a, "linalg.eigh", true)?;
    let v = v.expect("eigenvectors asked for");
    Ok((w.try_into_shape()?, v.try_into_shape()?))
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
pub fn eigh<T: LinalgFloat, S: SquareMatrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> (Tensor<T, EigvalsOf<S>, D>, Tensor<T, S, D>)
where
    S::N: crate::Dim,
{
    expect(try_eigh(a))
}

/// The eigenvalues `(..., n)`, ascending, of each symmetric matrix of `a`
/// (lower triangle read).
///
/// On CUDA: as [`try_eigh`] (one `syevj` call per matrix above 32).
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
pub fn try_eigvalsh<T: LinalgFloat, S: SquareMatrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Result<Tensor<T, EigvalsOf<S>, D>, D::Error>
where
    S::N: crate::Dim,
{
    Ok(eigh_on(a, "linalg.eigvalsh", false)?.0.try_into_shape()?)
}

/// The eigenvalues; panics where [`try_eigvalsh`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f32, Shape![2, 2]>::from_vec(vec![3., 0., 0., -1.]);
/// assert_eq!(linalg::eigvalsh(&a).to_vec(), vec![-1., 3.]);
/// ```
#[track_caller]
pub fn eigvalsh<T: LinalgFloat, S: SquareMatrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Tensor<T, EigvalsOf<S>, D>
where
    S::N: crate::Dim,
{
    expect(try_eigvalsh(a))
}

/// `(w, V)` (`V` with `vectors`) on `a`'s device: the size checks, then
/// [`Linalg::eigh`], then PyTorch's error where it did not converge.
#[allow(clippy::type_complexity)]
fn eigh_on<T: LinalgFloat, S: Shape, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
    name: &str,
    vectors: bool,
) -> Result<(Tensor<T, DynRank, D>, Option<Tensor<T, DynRank, D>>), D::Error> {
    check_square_dims(a.dims(), name, "A")?;
    let (w, v, info) = primitives::eigh(&a.share().into_dyn(), vectors)?;
    check_batch_info(name, a.rank() - 2, &info, |_| NO_CONVERGENCE.into())?;
    Ok((w, v))
}
