//! `qr` (reduced) and `qr_complete`.

use super::generic::check_matrices;
use super::primitives;
use super::{LinalgFloat, Matrices, WithTail, expect};
use crate::Tensor;
use crate::backend::Linalg;
use crate::shape::{Dyn, Shape};

type Mat<S, R, C> = <<S as Matrices>::Batch as WithTail>::Mat<R, C>;
type Rows<S> = <S as Matrices>::Rows;
type Cols<S> = <S as Matrices>::Cols;

/// The reduced QR factorization `A = Q R` of each matrix of `a` `(..., m, n)`:
/// `Q` `(..., m, k)` with orthonormal columns and `R` `(..., k, n)` upper
/// triangular, `k = min(m, n)` (a `Dyn` size: stable Rust cannot compute the
/// minimum of two const generics).
///
/// On CUDA: one cuBLAS `geqrfBatched` for the batch, then `Q` formed by
/// cuSOLVER's `orgqr`, one call per matrix (it has no batched form).
///
/// # Errors
/// A shape of rank < 2 (`DynRank`).
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[3]).unwrap();
/// assert_eq!(linalg::try_qr(&a).unwrap_err().to_string(),
///     "linalg.qr: The input tensor A must have at least 2 dimensions.");
/// ```
#[allow(clippy::type_complexity)]
pub fn try_qr<T: LinalgFloat, S: Matrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Result<
    (
        Tensor<T, Mat<S, Rows<S>, Dyn>, D>,
        Tensor<T, Mat<S, Dyn, Cols<S>>, D>,
    ),
    D::Error,
> {
    qr_core(a, false)
}

/// `(Q, R)`, reduced; panics where [`try_qr`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![3, 2]>::from_vec(vec![1., 0., 0., 1., 0., 0.]);
/// let (q, r) = linalg::qr(&a);
/// assert_eq!((q.dims(), r.dims()), (&[3, 2][..], &[2, 2][..]));
/// assert_eq!(r.to_vec().iter().map(|x| x.abs()).collect::<Vec<_>>(), vec![1., 0., 0., 1.]);
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn qr<T: LinalgFloat, S: Matrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> (
    Tensor<T, Mat<S, Rows<S>, Dyn>, D>,
    Tensor<T, Mat<S, Dyn, Cols<S>>, D>,
) {
    expect(try_qr(a))
}

/// The complete QR factorization: `Q` `(..., m, m)` orthogonal and `R`
/// `(..., m, n)` upper triangular.
///
/// On CUDA: as [`try_qr`] (one `orgqr` call per matrix).
///
/// # Errors
/// A shape of rank < 2 (`DynRank`).
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![3, 2]>::from_vec(vec![1., 0., 0., 1., 0., 0.]);
/// let (q, r): (Tensor<f64, Shape![3, 3]>, Tensor<f64, Shape![3, 2]>) =
///     linalg::try_qr_complete(&a).unwrap();
/// assert_eq!(r.to_vec()[4..], [0., 0.]);
/// assert_eq!(q.dims(), &[3, 3]);
/// ```
#[allow(clippy::type_complexity)]
pub fn try_qr_complete<T: LinalgFloat, S: Matrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Result<(Tensor<T, Mat<S, Rows<S>, Rows<S>>, D>, Tensor<T, S, D>), D::Error> {
    qr_core(a, true)
}

/// `(Q, R)`, complete; panics where [`try_qr_complete`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f32, Shape![2, 2]>::from_vec(vec![3., 0., 4., 0.]);
/// let (q, r) = linalg::qr_complete(&a);
/// assert!((r.to_vec()[0].abs() - 5.0).abs() < 1e-6);
/// assert_eq!(q.dims(), &[2, 2]);
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn qr_complete<T: LinalgFloat, S: Matrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> (Tensor<T, Mat<S, Rows<S>, Rows<S>>, D>, Tensor<T, S, D>) {
    expect(try_qr_complete(a))
}

/// `(Q, R)` on `a`'s device, after the size check.
#[allow(clippy::type_complexity)]
fn qr_core<T: LinalgFloat, S: Matrices, SQ: Shape, SR: Shape, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
    complete: bool,
) -> Result<(Tensor<T, SQ, D>, Tensor<T, SR, D>), D::Error> {
    check_matrices(a.dims(), "linalg.qr", "A")?;
    let (q, r) = primitives::qr(&a.share().into_dyn(), complete)?;
    Ok((q.try_into_shape()?, r.try_into_shape()?))
}
