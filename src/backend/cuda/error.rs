//! The error every CUDA operation returns.

use crate::shape::ShapeError;

/// Why a CUDA operation failed.
///
/// ```
/// use shaped::device::{Cuda, CudaError};
/// match Cuda::device(0) {
///     Ok(_) => {}
///     Err(CudaError::Unavailable(why)) => println!("no CUDA: {why}"),
///     Err(e) => println!("{e}"),
/// }
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CudaError {
    /// The `cuda` feature is off, or libcuda / NVRTC cannot be loaded.
    Unavailable(String),
    /// The CUDA driver reported an error (no such device, out of memory, ...).
    Driver(String),
    /// NVRTC could not compile a generated kernel (a bug in `shaped`).
    Compile {
        /// The kernel's name.
        kernel: String,
        /// NVRTC's log.
        log: String,
    },
    /// cuBLAS could not be loaded or reported an error.
    Blas(String),
    /// A shape error, with PyTorch's wording (as the CPU operations return).
    Shape(ShapeError),
}

impl core::fmt::Display for CudaError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            CudaError::Unavailable(why) => write!(f, "CUDA is unavailable: {why}"),
            CudaError::Driver(e) => write!(f, "CUDA driver error: {e}"),
            CudaError::Compile { kernel, log } => {
                write!(f, "NVRTC could not compile kernel `{kernel}`:\n{log}")
            }
            CudaError::Blas(e) => write!(f, "cuBLAS error: {e}"),
            CudaError::Shape(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for CudaError {}

impl From<ShapeError> for CudaError {
    fn from(e: ShapeError) -> Self {
        CudaError::Shape(e)
    }
}

#[cfg(feature = "cuda")]
impl From<cudarc::driver::DriverError> for CudaError {
    fn from(e: cudarc::driver::DriverError) -> Self {
        CudaError::Driver(e.to_string())
    }
}

#[cfg(feature = "cuda")]
impl From<cudarc::cublas::result::CublasError> for CudaError {
    fn from(e: cudarc::cublas::result::CublasError) -> Self {
        CudaError::Blas(e.to_string())
    }
}
