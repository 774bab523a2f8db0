//! The factorization primitives of a device, so that the public linear
//! algebra (`linalg::inv`, `linalg::cholesky`, ...) is written once, generic
//! over the device: the function checks the sizes (PyTorch's messages),
//! calls the primitive, and turns a nonzero LAPACK `info` into PyTorch's
//! error. [`Cpu`](crate::device::Cpu) runs faer (or the hand-written LAPACK
//! loops) on every batch element in parallel; [`Cuda`](crate::device::Cuda)
//! (feature `cuda`) runs cuBLAS's and cuSOLVER's batched routines (see
//! `backend/cuda/linalg.rs` for which call each primitive makes).
//!
//! Every primitive takes [`Layout`]s (a storage, sizes and strides of any
//! rank, no shape type) whose sizes the caller has checked (matrices are
//! the last two dimensions, the batch the rest), and returns new contiguous
//! storages with their sizes ([`Output`]); `info` values come back on the
//! host, one per matrix of the batch, row-major, as LAPACK defines them.
//! The typed front (`linalg/primitives.rs`) passes a tensor's layout down
//! and checks the sizes that come back, so each primitive is compiled once
//! per element type.
//!
//! ```
//! use shaped::backend::Linalg;
//! use shaped::device::Cpu;
//! use shaped::{DynRank, Tensor, linalg};
//! // A device with the primitives runs the public functions.
//! fn inverse<D: Linalg<f64>>(a: &Tensor<f64, DynRank, D>) -> Tensor<f64, DynRank, D> {
//!     linalg::inv(a)
//! }
//! let a = Tensor::<f64, DynRank>::try_from_vec(vec![2., 0., 0., 4.], &[2, 2]).unwrap();
//! assert_eq!(inverse::<Cpu>(&a).to_vec(), vec![0.5, 0., 0., 0.25]);
//! ```

use crate::backend::Backend;
use crate::backend::layout::{Layout, Output};
use crate::device::Device;

/// An element type linear algebra works on: `f32` or `f64`.
///
/// ```
/// fn takes<T: shaped::linalg::LinalgFloat>() {}
/// takes::<f32>();
/// takes::<f64>();
/// ```
pub trait LinalgFloat: crate::element::Float + faer::traits::RealField + sealed::Sealed {}
impl LinalgFloat for f32 {}
impl LinalgFloat for f64 {}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// Which triangle of `A` `linalg::solve_triangular` reads, and whether its
/// diagonal is taken as ones (PyTorch's `upper` and `unitriangular`).
///
/// ```
/// use shaped::linalg::Triangle;
/// let t = Triangle { upper: true, unit: false };
/// assert!(t.upper);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Triangle {
    /// Read the upper triangle (else the lower).
    pub upper: bool,
    /// Take the diagonal as ones, not reading it.
    pub unit: bool,
}

/// A new storage of `D` holding `T`s, with its sizes: what a primitive
/// returns.
///
/// ```
/// use shaped::backend::linalg::Out;
/// use shaped::device::Cpu;
/// fn rank(o: &Out<f64, Cpu>) -> usize {
///     o.dims().len()
/// }
/// ```
pub type Out<T, D> = Output<<D as Device>::Storage<T>>;

/// A layout of a storage of `D` holding `T`s: what a primitive reads.
///
/// ```
/// use shaped::backend::linalg::Lay;
/// use shaped::device::Cpu;
/// fn rows(l: Lay<'_, f64, Cpu>) -> usize {
///     l.dims()[l.dims().len() - 2]
/// }
/// ```
pub type Lay<'a, T, D> = Layout<'a, <D as Device>::Storage<T>>;

/// A batch of matrices, with `info` per matrix on the host.
pub type WithInfo<T, D> = (Out<T, D>, Vec<i32>);

/// A packed LU factorization: the factors, the pivots and `info` per
/// matrix on the host.
pub type Factored<T, D> = (Out<T, D>, Out<i32, D>, Vec<i32>);

/// Eigenvalues `(..., n)`, eigenvectors `(..., n, n)` when asked for, and
/// `info` per matrix on the host.
pub type Eigen<T, D> = (Out<T, D>, Option<Out<T, D>>, Vec<i32>);

/// `U`, `S`, `Vh` of a singular value decomposition (`U` and `Vh` when
/// asked for), and `info` per matrix on the host.
pub type Singular<T, D> = (Option<Out<T, D>>, Out<T, D>, Option<Out<T, D>>, Vec<i32>);

/// `(sign, log|det|, det)` of each matrix, each `(...)`.
pub type Dets<T, D> = (Out<T, D>, Out<T, D>, Out<T, D>);

/// `(sign, log|det|, det)` from the diagonal of `U` and the parity of the
/// row permutation of an LU factorization: `(0, -inf, 0)` when a diagonal
/// entry is zero, as PyTorch. Shared by the CPU and CUDA kernels.
pub(crate) fn det_from_lu<T: LinalgFloat>(
    diag: impl Iterator<Item = T> + Clone,
    odd: bool,
) -> (T, T, T) {
    if diag.clone().any(|d| d == T::zero()) {
        return (T::zero(), T::neg_infinity(), T::zero());
    }
    let mut sign = if odd { -T::one() } else { T::one() };
    let mut logabs = T::zero();
    let mut det = sign;
    for d in diag {
        det *= d;
        if d < T::zero() {
            sign = -sign;
        }
        logabs += d.abs().ln();
    }
    (sign, logabs, det)
}

/// The linear-algebra primitives of a device for `f32` and `f64`.
pub trait Linalg<T: LinalgFloat>: Backend<T> + Backend<i32> {
    /// LU with partial pivoting of each `(m, n)` matrix of `a`, as LAPACK's
    /// `getrf`: the packed factors `(..., m, n)` (`U` on and above the
    /// diagonal, the unit-lower `L` below), the 1-based pivots
    /// `(..., min(m, n))` and `info` (0, or the 1-based index of the first
    /// zero on `U`'s diagonal).
    ///
    /// # Errors
    /// An allocation or driver error.
    fn lu_factor(a: Lay<'_, T, Self>) -> Result<Factored<T, Self>, Self::Error>;

    /// The inverse of each square matrix of `a` and `info` as
    /// [`Linalg::lu_factor`]'s; where `info != 0` the matrix's values are
    /// unspecified.
    ///
    /// # Errors
    /// An allocation or driver error.
    fn inv(a: Lay<'_, T, Self>) -> Result<WithInfo<T, Self>, Self::Error>;

    /// The lower Cholesky factor of each square matrix of `a` (only its
    /// lower triangle read), zeros above the diagonal, and `info` (0, or the
    /// order of the first leading minor that is not positive-definite;
    /// then the matrix's values are unspecified).
    ///
    /// # Errors
    /// An allocation or driver error.
    fn cholesky(a: Lay<'_, T, Self>) -> Result<WithInfo<T, Self>, Self::Error>;

    /// `X` with `A X = B` for square `a` `(..., n, n)` and `b` `(..., n, k)`
    /// (or, with `vec`, `(..., n)`: a batch of vectors, `X` likewise),
    /// batches broadcast (`b`'s first in the broadcast), and `info` (as
    /// [`Linalg::lu_factor`]'s) for each element of the broadcast batch;
    /// where `info != 0` that element's values are unspecified.
    ///
    /// # Errors
    /// An allocation or driver error.
    fn solve(
        a: Lay<'_, T, Self>,
        b: Lay<'_, T, Self>,
        vec: bool,
    ) -> Result<WithInfo<T, Self>, Self::Error>;

    /// `X` with `L Lᵀ X = B` for the lower-triangular `l` `(..., n, n)` and
    /// `b` `(..., n, k)`, batches broadcast (`b`'s first in the broadcast).
    ///
    /// # Errors
    /// An allocation or driver error.
    fn cholesky_solve(
        b: Lay<'_, T, Self>,
        l: Lay<'_, T, Self>,
    ) -> Result<Out<T, Self>, Self::Error>;

    /// `X` with `A X = B` (`left`) or `X A = B` for the triangle `tri` of the
    /// square `a`, batches broadcast (`b`'s first in the broadcast).
    ///
    /// # Errors
    /// An allocation or driver error.
    fn solve_triangular(
        a: Lay<'_, T, Self>,
        b: Lay<'_, T, Self>,
        tri: Triangle,
        left: bool,
    ) -> Result<Out<T, Self>, Self::Error>;

    /// The eigenvalues `(..., n)`, ascending, of each symmetric matrix of
    /// `a` (only its lower triangle read), with `vectors` the orthonormal
    /// eigenvectors as the columns of `(..., n, n)`, and `info` (nonzero
    /// where the iteration did not converge; that element's values are then
    /// unspecified).
    ///
    /// # Errors
    /// An allocation or driver error.
    fn eigh(a: Lay<'_, T, Self>, vectors: bool) -> Result<Eigen<T, Self>, Self::Error>;

    /// The singular values `(..., k)`, descending, `k = min(m, n)`, of each
    /// `(m, n)` matrix of `a`; with `vectors` also `U` `(..., m, m or k)`
    /// and `Vh` `(..., n or k, n)` (`full` or reduced); and `info`: 0, -1
    /// where the matrix holds a NaN or an infinity, positive where the
    /// iteration did not converge (that element's values are then
    /// unspecified).
    ///
    /// # Errors
    /// An allocation or driver error.
    fn svd(
        a: Lay<'_, T, Self>,
        vectors: bool,
        full: bool,
    ) -> Result<Singular<T, Self>, Self::Error>;

    /// The sign, the natural log of the absolute value, and the value of
    /// the determinant of each square matrix of `a`, each `(...)`, through
    /// LU with partial pivoting: `(0, -inf, 0)` for a zero on `U`'s
    /// diagonal, as PyTorch.
    ///
    /// # Errors
    /// An allocation or driver error.
    fn slogdet(a: Lay<'_, T, Self>) -> Result<Dets<T, Self>, Self::Error>;

    /// The QR decomposition of each `(m, n)` matrix of `a`: `Q` `(m, k)`
    /// with orthonormal columns and `R` `(k, n)` upper triangular,
    /// `k = min(m, n)`, or with `complete` `Q` `(m, m)` and `R` `(m, n)`.
    ///
    /// # Errors
    /// An allocation or driver error.
    #[allow(clippy::type_complexity)]
    fn qr(a: Lay<'_, T, Self>, complete: bool)
    -> Result<(Out<T, Self>, Out<T, Self>), Self::Error>;

    /// `X` with `A X = B` from `A`'s packed LU factors `lu` `(..., n, n)`
    /// and 1-based pivots `(..., n)` (as [`Linalg::lu_factor`] gives them;
    /// `piv_host` is the same values on the host, already checked to lie in
    /// `1..=n`), `b` `(..., n, k)`; `lu`'s and `b`'s batches broadcast
    /// (`b`'s first). A zero on `U`'s diagonal gives infinities and NaNs.
    ///
    /// # Errors
    /// An allocation or driver error.
    fn lu_solve(
        lu: Lay<'_, T, Self>,
        piv: Lay<'_, i32, Self>,
        piv_host: &[i32],
        b: Lay<'_, T, Self>,
    ) -> Result<Out<T, Self>, Self::Error>;

    /// `info` values (one per matrix) as a storage of sizes `dims` on
    /// `like`'s device, for the `*_ex` forms.
    ///
    /// # Errors
    /// An allocation or driver error, or sizes other than `info`'s length.
    fn info_tensor(
        like: Lay<'_, T, Self>,
        info: Vec<i32>,
        dims: &[usize],
    ) -> Result<Out<i32, Self>, Self::Error>;
}
