//! `svd` (reduced), `svd_full` and `svdvals`.

use super::generic::{check_batch_info, check_matrices};
use super::primitives;
use super::{LinalgFloat, Matrices, SvalsOf, WithTail, expect};
use crate::Tensor;
use crate::backend::Linalg;
use crate::device::Cpu;
use crate::shape::{Dyn, DynRank, Shape};

type Mat<S, R, C> = <<S as Matrices>::Batch as WithTail>::Mat<R, C>;
type Rows<S> = <S as Matrices>::Rows;
type Cols<S> = <S as Matrices>::Cols;

/// What `svd`'s of a batch of `R` by `C` matrices return: `(U, S, Vh)`.
type Usv<T, S, UC, VR, D = Cpu> = (
    Tensor<T, Mat<S, Rows<S>, UC>, D>,
    Tensor<T, SvalsOf<S>, D>,
    Tensor<T, Mat<S, VR, Cols<S>>, D>,
);

const NON_FINITE: &str =
    "The algorithm failed to converge because the input matrix contained non-finite values.";

const NO_CONVERGENCE: &str = "The algorithm failed to converge because the input matrix is ill-conditioned or has too many repeated singular values.";

/// The reduced singular value decomposition `A = U diag(S) Vh` of each matrix
/// of `a` `(..., m, n)`: `U` `(..., m, k)`, `S` `(..., k)` in descending
/// order, `Vh` `(..., k, n)`, `k = min(m, n)` (`Dyn`). NumPy's
/// `svd(a, full_matrices=False)`.
///
/// On CUDA: one cuSOLVER `gesvdjBatched` (Jacobi) when `m, n <= 32`
/// (cuSOLVER's limit); larger matrices loop over the batch, one `gesvdj`
/// call per matrix. Both compute the full `U` and `V`.
///
/// # Errors
/// A shape of rank < 2; no convergence.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[2]).unwrap();
/// assert!(linalg::try_svd(&a).is_err());
/// ```
#[allow(clippy::type_complexity)]
pub fn try_svd<T: LinalgFloat, S: Matrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Result<Usv<T, S, Dyn, Dyn, D>, D::Error> {
    svd_core(a, false)
}

/// `(U, S, Vh)`, reduced; panics where [`try_svd`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 3]>::from_vec(vec![3., 0., 0., 0., 4., 0.]);
/// let (u, s, vh) = linalg::svd(&a);
/// assert_eq!((u.dims(), s.to_vec(), vh.dims()), (&[2, 2][..], vec![4., 3.], &[2, 3][..]));
/// ```
#[track_caller]
pub fn svd<T: LinalgFloat, S: Matrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Usv<T, S, Dyn, Dyn, D> {
    expect(try_svd(a))
}

/// The full singular value decomposition: `U` `(..., m, m)` and `Vh`
/// `(..., n, n)` orthogonal, `S` `(..., min(m, n))`. NumPy's
/// `svd(a, full_matrices=True)`.
///
/// # Errors
/// As [`try_svd`].
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 3]>::from_vec(vec![3., 0., 0., 0., 4., 0.]);
/// let (u, s, vh): (Tensor<f64, Shape![2, 2]>, _, Tensor<f64, Shape![3, 3]>) =
///     linalg::try_svd_full(&a).unwrap();
/// assert_eq!(s.to_vec(), vec![4., 3.]);
/// # let _ = (u, vh);
/// ```
#[allow(clippy::type_complexity)]
pub fn try_svd_full<T: LinalgFloat, S: Matrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Result<Usv<T, S, Rows<S>, Cols<S>, D>, D::Error> {
    svd_core(a, true)
}

/// `(U, S, Vh)`, full; panics where [`try_svd_full`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f32, Shape![3, 1]>::from_vec(vec![0., 3., 4.]);
/// let (u, s, vh) = linalg::svd_full(&a);
/// assert_eq!((u.dims(), s.to_vec(), vh.to_vec().len()), (&[3, 3][..], vec![5.], 1));
/// ```
#[track_caller]
pub fn svd_full<T: LinalgFloat, S: Matrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Usv<T, S, Rows<S>, Cols<S>, D> {
    expect(try_svd_full(a))
}

/// The singular values of each matrix of `a` `(..., m, n)`, descending,
/// `(..., min(m, n))`.
///
/// On CUDA: as [`try_svd`] (one `gesvdj` call per matrix above 32).
///
/// # Errors
/// As [`try_svd`].
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2, 2]>::from_vec(vec![0., 2., 1., 0., 3., 0., 0., -5.]);
/// let s = linalg::try_svdvals(&a).unwrap().to_vec();
/// assert!(s.iter().zip([2., 1., 5., 3.]).all(|(x, y)| (x - y).abs() < 1e-12));
/// ```
pub fn try_svdvals<T: LinalgFloat, S: Matrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Result<Tensor<T, SvalsOf<S>, D>, D::Error> {
    Ok(svd_on(a, false, false)?.1.try_into_shape()?)
}

/// The singular values; panics where [`try_svdvals`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f32, Shape![1, 2]>::from_vec(vec![3., 4.]);
/// assert_eq!(linalg::svdvals(&a).to_vec(), vec![5.]);
/// ```
#[track_caller]
pub fn svdvals<T: LinalgFloat, S: Matrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
) -> Tensor<T, SvalsOf<S>, D> {
    expect(try_svdvals(a))
}

/// PyTorch's `linalg.svd(A, full_matrices=...)` for a flag known at run
/// time: `U` `(..., m, m or k)`, `S` `(..., k)`, `Vh` `(..., n or k, n)`, the
/// varying sizes `Dyn`. ([`try_svd`] and [`try_svd_full`] give the static
/// sizes where they are known.)
///
/// # Errors
/// As [`try_svd`]; a NaN or infinity in `a` (PyTorch's message).
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[2, 3]).unwrap();
/// let (u, s, vh) = linalg::try_svd_with(&a, true).unwrap();
/// assert_eq!((u.dims(), s.dims(), vh.dims()), (&[2, 2][..], &[2][..], &[3, 3][..]));
/// let (_, _, vh) = linalg::try_svd_with(&a, false).unwrap();
/// assert_eq!(vh.dims(), &[2, 3]);
/// let n = Tensor::<f64, DynRank>::try_from_vec(vec![f64::NAN; 4], &[2, 2]).unwrap();
/// assert_eq!(linalg::try_svd_with(&n, false).unwrap_err().to_string(),
///     "linalg.svd: The algorithm failed to converge because the input matrix contained non-finite values.");
/// ```
#[allow(clippy::type_complexity)]
pub fn try_svd_with<T: LinalgFloat, S: Matrices, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
    full_matrices: bool,
) -> Result<Usv<T, S, Dyn, Dyn, D>, D::Error> {
    svd_core(a, full_matrices)
}

#[allow(clippy::type_complexity)]
fn svd_core<T: LinalgFloat, S: Matrices, SU: Shape, SS: Shape, SV: Shape, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
    full: bool,
) -> Result<(Tensor<T, SU, D>, Tensor<T, SS, D>, Tensor<T, SV, D>), D::Error> {
    let (u, s, vh) = svd_on(a, true, full)?;
    let (u, vh) = (u.expect("U asked for"), vh.expect("Vh asked for"));
    Ok((
        u.try_into_shape()?,
        s.try_into_shape()?,
        vh.try_into_shape()?,
    ))
}

/// `(U, S, Vh)` (`U`, `Vh` with `vectors`) on `a`'s device: the size
/// check, then [`Linalg::svd`], then PyTorch's error for the first matrix
/// with non-finite values or without convergence.
#[allow(clippy::type_complexity)]
fn svd_on<T: LinalgFloat, S: Shape, D: Linalg<T>>(
    a: &Tensor<T, S, D>,
    vectors: bool,
    full: bool,
) -> Result<
    (
        Option<Tensor<T, DynRank, D>>,
        Tensor<T, DynRank, D>,
        Option<Tensor<T, DynRank, D>>,
    ),
    D::Error,
> {
    // PyTorch names svdvals's errors `linalg.svd` too.
    let name = "linalg.svd";
    check_matrices(a.dims(), name, "A")?;
    let (u, s, vh, info) = primitives::svd(&a.share().into_dyn(), vectors, full)?;
    check_batch_info(name, a.rank() - 2, &info, |k| {
        if k < 0 { NON_FINITE } else { NO_CONVERGENCE }.into()
    })?;
    Ok((u, s, vh))
}
