//! `det` and `slogdet` of every square matrix of a batch, through LU, on
//! any device ([`Linalg::slogdet`]).

use super::generic::check_square_dims;
use super::primitives;
use super::primitives::Dets;
use super::{BatchOf, LinalgFloat, SquareMatrices, expect};
use crate::Tensor;
use crate::backend::Linalg;
use crate::shape::Shape;

/// The determinant of each matrix of `a` `(..., n, n)`, shape `(...)`. A
/// singular matrix has determinant 0 (not an error).
///
/// On CUDA: one cuBLAS `getrfBatched`; `U`'s diagonal and the pivots
/// (`2n` values per matrix) are read back and combined on the host.
///
/// # Errors
/// A non-square or rank < 2 shape (checked at run time for `Dyn`/`DynRank`).
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_from_vec(vec![1., 2., 3., 4., 5., 6.], &[2, 3]).unwrap();
/// assert_eq!(linalg::try_det(&a).unwrap_err().to_string(),
///     "linalg.det: A must be batches of square matrices, but they are 2 by 3 matrices");
/// ```
pub fn try_det<T: LinalgFloat, S: SquareMatrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Result<Tensor<T, BatchOf<S>, D>, D::Error>
where
    S::N: crate::Dim,
{
    Ok(slogdet_on(a, "linalg.det")?.2.try_into_shape()?)
}

/// The determinant of each matrix of `a`; panics where [`try_det`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2, 2]>::from_vec(vec![1., 2., 3., 4., 1., 2., 2., 4.]);
/// let d: Tensor<f64, Shape![2]> = linalg::det(&a);
/// assert!((d.to_vec()[0] + 2.0).abs() < 1e-12);
/// assert_eq!(d.to_vec()[1], 0.0);
/// ```
#[track_caller]
pub fn det<T: LinalgFloat, S: SquareMatrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Tensor<T, BatchOf<S>, D>
where
    S::N: crate::Dim,
{
    expect(try_det(a))
}

/// The sign and the natural log of the absolute value of the determinant of
/// each matrix of `a` `(..., n, n)`. A singular matrix gives sign 0 and
/// log `-inf`, as PyTorch.
///
/// # Errors
/// As [`try_det`].
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![0., 2., 3., 0.]);
/// let (sign, logabs) = linalg::try_slogdet(&a).unwrap();
/// assert_eq!(sign.item(), -1.0);
/// assert!((logabs.item() - 6f64.ln()).abs() < 1e-12);
/// ```
#[allow(clippy::type_complexity)]
pub fn try_slogdet<T: LinalgFloat, S: SquareMatrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Result<(Tensor<T, BatchOf<S>, D>, Tensor<T, BatchOf<S>, D>), D::Error>
where
    S::N: crate::Dim,
{
    let (sign, logabs, _) = slogdet_on(a, "linalg.slogdet")?;
    Ok((sign.try_into_shape()?, logabs.try_into_shape()?))
}

/// `(sign, logabsdet)` of each matrix of `a`; panics where [`try_slogdet`]
/// errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f32, Shape![2, 2]>::from_vec(vec![1., 2., 2., 4.]);
/// let (sign, logabs) = linalg::slogdet(&a);
/// assert_eq!((sign.item(), logabs.item()), (0.0, f32::NEG_INFINITY));
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn slogdet<T: LinalgFloat, S: SquareMatrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> (Tensor<T, BatchOf<S>, D>, Tensor<T, BatchOf<S>, D>)
where
    S::N: crate::Dim,
{
    expect(try_slogdet(a))
}

/// `(sign, log|det|, det)` on `a`'s device, after the size checks.
fn slogdet_on<T: LinalgFloat, S: Shape, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
    name: &str,
) -> Result<Dets<T, D>, D::Error> {
    check_square_dims(a.dims(), name, "A")?;
    primitives::slogdet(&a.share().into_dyn())
}
