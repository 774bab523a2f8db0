//! The CUDA backend: device handles, kernels generated as CUDA C and compiled
//! at run time by NVRTC, launches over the shared iteration plan, and cuBLAS
//! for matrix products.
//!
//! | file | what |
//! |---|---|
//! | `error.rs` | [`CudaError`], with or without the `cuda` feature |
//! | `device.rs` | loading the libraries, [`CudaDevice`], [`CudaStorage`], the kernel cache |
//! | `source.rs` | CUDA C for every kernel: one template per kind, pointwise expressions from the op table (`backend/op/table.rs`) |
//! | `reductions.rs` | the reductions, with their identities and combining expressions |
//! | `compose.rs` | `var`/`std`, norms, `logsumexp`, `softmax` composed of primitives; `all`/`any`; arg-reductions |
//! | `kernels/*.cu` | the fixed CUDA C of the templates (`source.rs`, `prelude.rs`, `cast.rs` include them) |
//! | `generate.rs` | launches of `arange` and the seeded uniform / normal generators |
//! | `index.rs` | `gather`, `scatter`, `scatter_add` (index values checked on the device first) |
//! | `primitives.rs` | [`Backend`](crate::backend::Backend) for CUDA: the pointwise primitives over the shared plan |
//! | `operands.rs` | what every primitive checks of its operands (same device, no overlap) and allocates for its result |
//! | `elementwise.rs` | layouts from the iteration plan, variant choice, launches |
//! | `reduce.rs` | reductions over a dimension or all (warp shuffles), arg-reductions; over the axes of a layout |
//! | `blas.rs` | cuBLAS's strided-batched GEMM |
//! | `linalg.rs` | [`Linalg`](crate::backend::Linalg) for CUDA: LU, inverse, solve, Cholesky, triangular solves through cuBLAS's and cuSOLVER's batched routines |
//! | `linalg_sys.rs` | the cuBLAS / cuSOLVER routines `linalg.rs` calls, per element type |
//! | `gemm.rs` | [`Gemm`](crate::backend::Gemm) for CUDA: products laid out for one strided-batched GEMM |
//!
//! cudarc panics when it cannot load a library, so [`open`] checks with
//! cudarc's own `is_culib_present` (which only tries `dlopen`) before
//! calling anything else in cudarc, and returns [`CudaError::Unavailable`].
//!
//! Without the `cuda` feature only the error type, an uninhabited storage
//! type and a [`CudaDevice`] that cannot be constructed exist, so that
//! [`Cuda`](crate::device::Cuda) and the device-mismatch compile errors are
//! the same in every build.

pub(crate) mod cast;
mod error;
pub(crate) mod fused_adjoint;
pub(crate) mod fused_lower;
pub(crate) mod fused_source;
pub(crate) mod prelude;
mod types;
pub use error::CudaError;

#[cfg(feature = "cuda")]
pub(crate) mod blas;
#[cfg(feature = "cuda")]
pub(crate) mod compose;
#[cfg(feature = "cuda")]
mod device;
#[cfg(feature = "cuda")]
pub(crate) mod elementwise;
#[cfg(feature = "cuda")]
pub(crate) mod fill;
#[cfg(feature = "cuda")]
pub(crate) mod fused;
#[cfg(feature = "cuda")]
mod gemm;
#[cfg(feature = "cuda")]
pub(crate) mod generate;
#[cfg(feature = "cuda")]
pub(crate) mod index;
#[cfg(feature = "cuda")]
mod linalg;
#[cfg(feature = "cuda")]
mod linalg_sys;
#[cfg(feature = "cuda")]
pub(crate) mod operands;
#[cfg(feature = "cuda")]
pub(crate) mod primitives;
#[cfg(feature = "cuda")]
pub(crate) mod reduce;
#[cfg(feature = "cuda")]
pub(crate) mod reductions;
#[cfg(feature = "cuda")]
pub(crate) mod source;

#[cfg(feature = "cuda")]
pub(crate) use blas::{GemmBatch, gemm_strided_batched};

#[cfg(feature = "cuda")]
/// Every kernel module the CUDA backend can generate: each op of the op
/// table (`backend/op/table.rs`) in each of its modes, for each element type
/// its family admits, and each reduction.
///
/// ```
/// let all = shaped::device::cuda_kernels::all_kernel_sources();
/// assert!(all.iter().any(|k| k.name == "sh_add_f32"));
/// assert!(all.iter().any(|k| k.name == "sh_sub_ls_f64"));
/// ```
pub fn all_kernel_sources() -> Vec<KernelSource> {
    source::kernel_sources(crate::backend::op::table::POINTWISE)
}

#[cfg(feature = "cuda")]
pub use device::{CudaDevice, CudaElement, CudaStorage, compile_cubin, compile_ptx, open};
#[cfg(feature = "cuda")]
pub use source::KernelSource;

#[cfg(not(feature = "cuda"))]
mod disabled {
    use core::marker::PhantomData;

    use super::CudaError;

    /// A handle on one GPU. Without the `cuda` feature none can be made:
    /// [`Cuda::device`](crate::device::Cuda::device) returns
    /// [`CudaError::Unavailable`].
    #[derive(Clone, Debug)]
    pub struct CudaDevice {
        never: core::convert::Infallible,
    }

    impl CudaDevice {
        /// The GPU's name, as the driver reports it.
        pub fn name(&self) -> &str {
            match self.never {}
        }

        /// The device's ordinal (0 for the first GPU).
        pub fn ordinal(&self) -> usize {
            match self.never {}
        }

        /// The compute capability, `(major, minor)`.
        pub fn compute_capability(&self) -> (u32, u32) {
            match self.never {}
        }
    }

    /// The storage of a CUDA tensor: uninhabited without the `cuda` feature.
    #[doc(hidden)]
    pub struct CudaStorage<T> {
        _never: core::convert::Infallible,
        _t: PhantomData<fn() -> T>,
    }

    impl<T> crate::backend::Versioned for CudaStorage<T> {
        fn version(&self) -> u64 {
            match self._never {}
        }
    }

    /// Always [`CudaError::Unavailable`]: built without the `cuda` feature.
    pub fn open(_ordinal: usize) -> Result<CudaDevice, CudaError> {
        Err(CudaError::Unavailable(
            "shaped was built without the `cuda` feature".into(),
        ))
    }
}
#[cfg(not(feature = "cuda"))]
pub use disabled::{CudaDevice, CudaStorage, open};
