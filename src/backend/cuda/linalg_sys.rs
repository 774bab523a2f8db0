//! The cuBLAS and cuSOLVER routines `linalg.rs` calls, for `f32` and
//! `f64`: the signatures of cudarc's bindings, one [`SolverElement`] trait
//! whose constants are the bindings for each element type, and the
//! wrappers that pick a batched or a one-matrix Jacobi routine.

use core::ffi::c_int;

use cudarc::cublas::sys as cb;
use cudarc::cusolver::sys as cs;

use super::blas::BlasElement;

/// The signatures of cudarc's bindings of the cuBLAS and cuSOLVER routines
/// used here, for element type `T` (`S` or `D` in their names).
pub(super) mod sig {
    use super::{c_int, cb, cs};

    pub type GetrfBatched<T> = unsafe fn(
        cb::cublasHandle_t,
        c_int,
        *const *mut T,
        c_int,
        *mut c_int,
        *mut c_int,
        c_int,
    ) -> cb::cublasStatus_t;
    pub type GetriBatched<T> = unsafe fn(
        cb::cublasHandle_t,
        c_int,
        *const *const T,
        c_int,
        *const c_int,
        *const *mut T,
        c_int,
        *mut c_int,
        c_int,
    ) -> cb::cublasStatus_t;
    pub type GetrsBatched<T> = unsafe fn(
        cb::cublasHandle_t,
        cb::cublasOperation_t,
        c_int,
        c_int,
        *const *const T,
        c_int,
        *const c_int,
        *const *mut T,
        c_int,
        *mut c_int,
        c_int,
    ) -> cb::cublasStatus_t;
    pub type TrsmBatched<T> = unsafe fn(
        cb::cublasHandle_t,
        cb::cublasSideMode_t,
        cb::cublasFillMode_t,
        cb::cublasOperation_t,
        cb::cublasDiagType_t,
        c_int,
        c_int,
        *const T,
        *const *const T,
        c_int,
        *const *mut T,
        c_int,
        c_int,
    ) -> cb::cublasStatus_t;
    pub type GeqrfBatched<T> = unsafe fn(
        cb::cublasHandle_t,
        c_int,
        c_int,
        *const *mut T,
        c_int,
        *const *mut T,
        *mut c_int,
        c_int,
    ) -> cb::cublasStatus_t;
    pub type PotrfBatched<T> = unsafe fn(
        cs::cusolverDnHandle_t,
        cs::cublasFillMode_t,
        c_int,
        *mut *mut T,
        c_int,
        *mut c_int,
        c_int,
    ) -> cs::cusolverStatus_t;
    pub type GetrfBuffer<T> = unsafe fn(
        cs::cusolverDnHandle_t,
        c_int,
        c_int,
        *mut T,
        c_int,
        *mut c_int,
    ) -> cs::cusolverStatus_t;
    pub type Getrf<T> = unsafe fn(
        cs::cusolverDnHandle_t,
        c_int,
        c_int,
        *mut T,
        c_int,
        *mut T,
        *mut c_int,
        *mut c_int,
    ) -> cs::cusolverStatus_t;
    pub type OrgqrBuffer<T> = unsafe fn(
        cs::cusolverDnHandle_t,
        c_int,
        c_int,
        c_int,
        *const T,
        c_int,
        *const T,
        *mut c_int,
    ) -> cs::cusolverStatus_t;
    pub type Orgqr<T> = unsafe fn(
        cs::cusolverDnHandle_t,
        c_int,
        c_int,
        c_int,
        *mut T,
        c_int,
        *const T,
        *mut T,
        c_int,
        *mut c_int,
    ) -> cs::cusolverStatus_t;
    pub type SyevjBatchedBuffer<T> = unsafe fn(
        cs::cusolverDnHandle_t,
        cs::cusolverEigMode_t,
        cs::cublasFillMode_t,
        c_int,
        *const T,
        c_int,
        *const T,
        *mut c_int,
        cs::syevjInfo_t,
        c_int,
    ) -> cs::cusolverStatus_t;
    pub type SyevjBatched<T> = unsafe fn(
        cs::cusolverDnHandle_t,
        cs::cusolverEigMode_t,
        cs::cublasFillMode_t,
        c_int,
        *mut T,
        c_int,
        *mut T,
        *mut T,
        c_int,
        *mut c_int,
        cs::syevjInfo_t,
        c_int,
    ) -> cs::cusolverStatus_t;
    pub type SyevjBuffer<T> = unsafe fn(
        cs::cusolverDnHandle_t,
        cs::cusolverEigMode_t,
        cs::cublasFillMode_t,
        c_int,
        *const T,
        c_int,
        *const T,
        *mut c_int,
        cs::syevjInfo_t,
    ) -> cs::cusolverStatus_t;
    pub type Syevj<T> = unsafe fn(
        cs::cusolverDnHandle_t,
        cs::cusolverEigMode_t,
        cs::cublasFillMode_t,
        c_int,
        *mut T,
        c_int,
        *mut T,
        *mut T,
        c_int,
        *mut c_int,
        cs::syevjInfo_t,
    ) -> cs::cusolverStatus_t;
    pub type GesvdjBatchedBuffer<T> = unsafe fn(
        cs::cusolverDnHandle_t,
        cs::cusolverEigMode_t,
        c_int,
        c_int,
        *const T,
        c_int,
        *const T,
        *const T,
        c_int,
        *const T,
        c_int,
        *mut c_int,
        cs::gesvdjInfo_t,
        c_int,
    ) -> cs::cusolverStatus_t;
    pub type GesvdjBatched<T> = unsafe fn(
        cs::cusolverDnHandle_t,
        cs::cusolverEigMode_t,
        c_int,
        c_int,
        *mut T,
        c_int,
        *mut T,
        *mut T,
        c_int,
        *mut T,
        c_int,
        *mut T,
        c_int,
        *mut c_int,
        cs::gesvdjInfo_t,
        c_int,
    ) -> cs::cusolverStatus_t;
    pub type GesvdjBuffer<T> = unsafe fn(
        cs::cusolverDnHandle_t,
        cs::cusolverEigMode_t,
        c_int,
        c_int,
        c_int,
        *const T,
        c_int,
        *const T,
        *const T,
        c_int,
        *const T,
        c_int,
        *mut c_int,
        cs::gesvdjInfo_t,
    ) -> cs::cusolverStatus_t;
    pub type Gesvdj<T> = unsafe fn(
        cs::cusolverDnHandle_t,
        cs::cusolverEigMode_t,
        c_int,
        c_int,
        c_int,
        *mut T,
        c_int,
        *mut T,
        *mut T,
        c_int,
        *mut T,
        c_int,
        *mut T,
        c_int,
        *mut c_int,
        cs::gesvdjInfo_t,
    ) -> cs::cusolverStatus_t;
}

/// cuBLAS's and cuSOLVER's routines for one element type: cudarc's
/// bindings of `cublas<t>...` / `cusolverDn<t>...`.
pub(super) trait SolverElement: BlasElement + crate::backend::linalg::LinalgFloat {
    const GETRF_BATCHED: sig::GetrfBatched<Self>;
    const GETRI_BATCHED: sig::GetriBatched<Self>;
    const GETRS_BATCHED: sig::GetrsBatched<Self>;
    const TRSM_BATCHED: sig::TrsmBatched<Self>;
    const GEQRF_BATCHED: sig::GeqrfBatched<Self>;
    const POTRF_BATCHED: sig::PotrfBatched<Self>;
    const GETRF_BUFFER: sig::GetrfBuffer<Self>;
    const GETRF: sig::Getrf<Self>;
    const ORGQR_BUFFER: sig::OrgqrBuffer<Self>;
    const ORGQR: sig::Orgqr<Self>;
    const SYEVJ_BATCHED_BUFFER: sig::SyevjBatchedBuffer<Self>;
    const SYEVJ_BATCHED: sig::SyevjBatched<Self>;
    const SYEVJ_BUFFER: sig::SyevjBuffer<Self>;
    const SYEVJ: sig::Syevj<Self>;
    const GESVDJ_BATCHED_BUFFER: sig::GesvdjBatchedBuffer<Self>;
    const GESVDJ_BATCHED: sig::GesvdjBatched<Self>;
    const GESVDJ_BUFFER: sig::GesvdjBuffer<Self>;
    const GESVDJ: sig::Gesvdj<Self>;
}

macro_rules! solver_element {
    ($t:ty: $($name:ident: $sig:ident = $lib:ident::$f:ident),* $(,)?) => {
        impl SolverElement for $t {
            $(const $name: sig::$sig<$t> = $lib::$f;)*
        }
    };
}
solver_element!(f32:
    GETRF_BATCHED: GetrfBatched = cb::cublasSgetrfBatched,
    GETRI_BATCHED: GetriBatched = cb::cublasSgetriBatched,
    GETRS_BATCHED: GetrsBatched = cb::cublasSgetrsBatched,
    TRSM_BATCHED: TrsmBatched = cb::cublasStrsmBatched,
    GEQRF_BATCHED: GeqrfBatched = cb::cublasSgeqrfBatched,
    POTRF_BATCHED: PotrfBatched = cs::cusolverDnSpotrfBatched,
    GETRF_BUFFER: GetrfBuffer = cs::cusolverDnSgetrf_bufferSize,
    GETRF: Getrf = cs::cusolverDnSgetrf,
    ORGQR_BUFFER: OrgqrBuffer = cs::cusolverDnSorgqr_bufferSize,
    ORGQR: Orgqr = cs::cusolverDnSorgqr,
    SYEVJ_BATCHED_BUFFER: SyevjBatchedBuffer = cs::cusolverDnSsyevjBatched_bufferSize,
    SYEVJ_BATCHED: SyevjBatched = cs::cusolverDnSsyevjBatched,
    SYEVJ_BUFFER: SyevjBuffer = cs::cusolverDnSsyevj_bufferSize,
    SYEVJ: Syevj = cs::cusolverDnSsyevj,
    GESVDJ_BATCHED_BUFFER: GesvdjBatchedBuffer = cs::cusolverDnSgesvdjBatched_bufferSize,
    GESVDJ_BATCHED: GesvdjBatched = cs::cusolverDnSgesvdjBatched,
    GESVDJ_BUFFER: GesvdjBuffer = cs::cusolverDnSgesvdj_bufferSize,
    GESVDJ: Gesvdj = cs::cusolverDnSgesvdj,
);
solver_element!(f64:
    GETRF_BATCHED: GetrfBatched = cb::cublasDgetrfBatched,
    GETRI_BATCHED: GetriBatched = cb::cublasDgetriBatched,
    GETRS_BATCHED: GetrsBatched = cb::cublasDgetrsBatched,
    TRSM_BATCHED: TrsmBatched = cb::cublasDtrsmBatched,
    GEQRF_BATCHED: GeqrfBatched = cb::cublasDgeqrfBatched,
    POTRF_BATCHED: PotrfBatched = cs::cusolverDnDpotrfBatched,
    GETRF_BUFFER: GetrfBuffer = cs::cusolverDnDgetrf_bufferSize,
    GETRF: Getrf = cs::cusolverDnDgetrf,
    ORGQR_BUFFER: OrgqrBuffer = cs::cusolverDnDorgqr_bufferSize,
    ORGQR: Orgqr = cs::cusolverDnDorgqr,
    SYEVJ_BATCHED_BUFFER: SyevjBatchedBuffer = cs::cusolverDnDsyevjBatched_bufferSize,
    SYEVJ_BATCHED: SyevjBatched = cs::cusolverDnDsyevjBatched,
    SYEVJ_BUFFER: SyevjBuffer = cs::cusolverDnDsyevj_bufferSize,
    SYEVJ: Syevj = cs::cusolverDnDsyevj,
    GESVDJ_BATCHED_BUFFER: GesvdjBatchedBuffer = cs::cusolverDnDgesvdjBatched_bufferSize,
    GESVDJ_BATCHED: GesvdjBatched = cs::cusolverDnDgesvdjBatched,
    GESVDJ_BUFFER: GesvdjBuffer = cs::cusolverDnDgesvdj_bufferSize,
    GESVDJ: Gesvdj = cs::cusolverDnDgesvdj,
);

/// `syevjBatched_bufferSize` (`batch > 0`) or `syevj_bufferSize` (one
/// matrix), lower triangle, `lda = n`.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn syevj_buffer<T: SolverElement>(
    h: cs::cusolverDnHandle_t,
    jobz: cs::cusolverEigMode_t,
    n: c_int,
    a: *const T,
    w: *const T,
    lwork: *mut c_int,
    params: cs::syevjInfo_t,
    batch: c_int,
) -> cs::cusolverStatus_t {
    let lower = cs::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER;
    // SAFETY: forwarded as the caller's contract states.
    unsafe {
        if batch > 0 {
            (T::SYEVJ_BATCHED_BUFFER)(h, jobz, lower, n, a, n.max(1), w, lwork, params, batch)
        } else {
            (T::SYEVJ_BUFFER)(h, jobz, lower, n, a, n.max(1), w, lwork, params)
        }
    }
}

/// `syevjBatched` (`batch > 0`) or `syevj` (one matrix), lower triangle,
/// `lda = n`.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn syevj<T: SolverElement>(
    h: cs::cusolverDnHandle_t,
    jobz: cs::cusolverEigMode_t,
    n: c_int,
    a: *mut T,
    w: *mut T,
    work: *mut T,
    lwork: c_int,
    info: *mut c_int,
    params: cs::syevjInfo_t,
    batch: c_int,
) -> cs::cusolverStatus_t {
    let lower = cs::cublasFillMode_t::CUBLAS_FILL_MODE_LOWER;
    // SAFETY: forwarded as the caller's contract states.
    unsafe {
        if batch > 0 {
            (T::SYEVJ_BATCHED)(
                h,
                jobz,
                lower,
                n,
                a,
                n.max(1),
                w,
                work,
                lwork,
                info,
                params,
                batch,
            )
        } else {
            (T::SYEVJ)(h, jobz, lower, n, a, n.max(1), w, work, lwork, info, params)
        }
    }
}

/// `gesvdjBatched_bufferSize` (`batch > 0`) or `gesvdj_bufferSize` (one
/// matrix, full `U` and `V`: `econ = 0`); `lda = ldu = m`, `ldv = n`.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn gesvdj_buffer<T: SolverElement>(
    h: cs::cusolverDnHandle_t,
    jobz: cs::cusolverEigMode_t,
    m: c_int,
    n: c_int,
    a: *const T,
    s: *const T,
    u: *const T,
    v: *const T,
    lwork: *mut c_int,
    params: cs::gesvdjInfo_t,
    batch: c_int,
) -> cs::cusolverStatus_t {
    let (lda, ldv) = (m.max(1), n.max(1));
    // SAFETY: forwarded as the caller's contract states.
    unsafe {
        if batch > 0 {
            (T::GESVDJ_BATCHED_BUFFER)(
                h, jobz, m, n, a, lda, s, u, lda, v, ldv, lwork, params, batch,
            )
        } else {
            (T::GESVDJ_BUFFER)(h, jobz, 0, m, n, a, lda, s, u, lda, v, ldv, lwork, params)
        }
    }
}

/// `gesvdjBatched` (`batch > 0`) or `gesvdj` (one matrix, full `U` and
/// `V`: `econ = 0`); `lda = ldu = m`, `ldv = n`.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn gesvdj<T: SolverElement>(
    h: cs::cusolverDnHandle_t,
    jobz: cs::cusolverEigMode_t,
    m: c_int,
    n: c_int,
    a: *mut T,
    s: *mut T,
    u: *mut T,
    v: *mut T,
    work: *mut T,
    lwork: c_int,
    info: *mut c_int,
    params: cs::gesvdjInfo_t,
    batch: c_int,
) -> cs::cusolverStatus_t {
    let (lda, ldv) = (m.max(1), n.max(1));
    // SAFETY: forwarded as the caller's contract states.
    unsafe {
        if batch > 0 {
            (T::GESVDJ_BATCHED)(
                h, jobz, m, n, a, lda, s, u, lda, v, ldv, work, lwork, info, params, batch,
            )
        } else {
            (T::GESVDJ)(
                h, jobz, 0, m, n, a, lda, s, u, lda, v, ldv, work, lwork, info, params,
            )
        }
    }
}
