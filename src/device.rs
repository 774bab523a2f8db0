//! Devices: where a tensor's elements live. The device is a type parameter of
//! [`Tensor`](crate::Tensor), so combining tensors on different devices is a
//! compile error.
//!
//! ```
//! use shaped::{device::Cpu, Tensor, Shape};
//! let t: Tensor<f32, Shape![2], Cpu> = Tensor::zeros();
//! assert_eq!(t.to_vec(), vec![0.0, 0.0]);
//! ```

use crate::element::Element;
use crate::shape::ShapeError;

/// A device a tensor can live on.
///
/// ```
/// use shaped::device::{Cpu, Device};
/// assert_eq!(Cpu::NAME, "cpu");
/// ```
pub trait Device:
    Copy + Default + core::fmt::Debug + Send + Sync + 'static + sealed::Sealed
{
    /// PyTorch's name for the device type.
    const NAME: &'static str;

    /// The buffer a tensor's elements live in on this device (shared by a
    /// tensor and its views through an `Arc`).
    #[doc(hidden)]
    type Storage<T: Element>: Send + Sync + Versioned;

    /// What a fallible operation on this device returns: [`ShapeError`] on
    /// the CPU, [`CudaError`] (a shape error or a driver error) on CUDA.
    type Error: From<ShapeError> + std::error::Error + Send + Sync + 'static;

    /// What a tensor being dropped does with its handle on `storage` before
    /// letting it go: the CPU keeps the storage, with its buffer when small,
    /// for the thread's next result when this was its last handle
    /// (`backend/cpu/shells.rs`); other devices do nothing.
    #[doc(hidden)]
    #[inline]
    fn recycle<T: Element>(storage: &mut std::sync::Arc<Self::Storage<T>>) {
        let _ = storage;
    }
}

pub use crate::backend::Versioned;

/// The CPU, with kernels parallelised over its cores (`RAYON_NUM_THREADS`
/// threads when set).
///
/// ```
/// use shaped::device::Cpu;
/// let _ = Cpu;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cpu;

impl Device for Cpu {
    const NAME: &'static str = "cpu";
    type Storage<T: Element> = crate::backend::cpu::storage::Storage<T>;
    type Error = ShapeError;

    #[inline]
    fn recycle<T: Element>(storage: &mut std::sync::Arc<Self::Storage<T>>) {
        crate::backend::cpu::shells::keep(storage);
    }
}

/// The CPU's caching allocator. Buffers of 32 KiB and more are rounded up
/// to a size class (four per power of two) and, when their tensor is
/// dropped, kept for the next tensor of the same class instead of going
/// back to the system, as PyTorch's CUDA caching allocator does on the GPU:
/// a training loop's temporaries then reuse the previous step's memory
/// instead of faulting in fresh pages. The cache holds at most
/// [`Cpu::cache_limit`] bytes (1 GiB, or `SHAPED_CPU_CACHE_BYTES` when set;
/// 0 turns it off).
///
/// ```
/// use shaped::{device::Cpu, Tensor, Shape};
/// let t: Tensor<f32, Shape![256, 256]> = Tensor::ones();
/// drop(t);
/// // The 256 KiB buffer is held for the next tensor of its size, which
/// // takes it: the new tensor's elements are its own.
/// let z: Tensor<f32, Shape![256, 256]> = Tensor::zeros();
/// assert!(z.to_vec().iter().all(|&x| x == 0.0));
/// Cpu::empty_cache();
/// ```
impl Cpu {
    /// Frees every buffer the cache holds (`torch.cuda.empty_cache()`'s
    /// counterpart); tensors alive keep theirs.
    ///
    /// ```
    /// use shaped::device::Cpu;
    /// Cpu::empty_cache();
    /// ```
    pub fn empty_cache() {
        crate::backend::cpu::cache::empty();
    }

    /// The bytes held by the cache for reuse (not counting live tensors),
    /// as `torch.cuda.memory_reserved() - torch.cuda.memory_allocated()`.
    ///
    /// ```
    /// use shaped::device::Cpu;
    /// let _held: usize = Cpu::cached_bytes();
    /// ```
    pub fn cached_bytes() -> usize {
        crate::backend::cpu::cache::held()
    }

    /// The most bytes the cache holds: set by [`Cpu::set_cache_limit`],
    /// else the `SHAPED_CPU_CACHE_BYTES` environment variable, else 1 GiB.
    ///
    /// ```
    /// use shaped::device::Cpu;
    /// let _limit: usize = Cpu::cache_limit();
    /// ```
    pub fn cache_limit() -> usize {
        crate::backend::cpu::cache::limit()
    }

    /// Sets the most bytes the cache holds, freeing held buffers past it;
    /// 0 turns caching off.
    ///
    /// ```
    /// use shaped::device::Cpu;
    /// let before = Cpu::cache_limit();
    /// Cpu::set_cache_limit(256 << 20);
    /// assert!(Cpu::cached_bytes() <= 256 << 20);
    /// Cpu::set_cache_limit(before);
    /// ```
    pub fn set_cache_limit(bytes: usize) {
        crate::backend::cpu::cache::set_limit(bytes);
    }
}
/// An NVIDIA GPU, driven through the CUDA driver API (cudarc), NVRTC and
/// cuBLAS, all loaded at run time.
///
/// The type exists with or without the `cuda` feature, so that code naming
/// it type-checks everywhere; a handle on an actual GPU is a
/// [`CudaDevice`], obtained from [`Cuda::device`], which returns an error
/// (never panics) when the feature is off or no driver, library or GPU is
/// present.
///
/// ```
/// use shaped::device::{Cuda, Device};
/// assert_eq!(Cuda::NAME, "cuda");
/// match Cuda::device(0) {
///     Ok(dev) => println!("running on {}", dev.name()),
///     Err(e) => println!("no GPU here: {e}"),
/// }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cuda;

impl Device for Cuda {
    const NAME: &'static str = "cuda";
    type Storage<T: Element> = crate::backend::cuda::CudaStorage<T>;
    type Error = CudaError;
}

impl Cuda {
    /// A handle on GPU number `ordinal`: loads libcuda, NVRTC and cuBLAS,
    /// and creates (or reuses) the device's primary context and a stream.
    ///
    /// # Errors
    /// [`CudaError::Unavailable`] when `shaped` was built without the `cuda`
    /// feature or a library cannot be loaded, [`CudaError::Driver`] when the
    /// driver refuses (no such GPU, ...).
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// if let Err(e) = Cuda::device(0) {
    ///     eprintln!("skipped: {e}");
    /// }
    /// ```
    pub fn device(ordinal: usize) -> Result<CudaDevice, CudaError> {
        crate::backend::cuda::open(ordinal)
    }
}

#[cfg(feature = "cuda")]
pub use crate::backend::cuda::CudaElement;
#[cfg(feature = "cuda")]
pub use crate::backend::cuda::blas::BlasElement as CudaBlasElement;
pub use crate::backend::cuda::{CudaDevice, CudaError};

/// The generated CUDA kernel sources and their NVRTC compilation, public so
/// that a test can compile every kernel on a machine without a GPU.
#[cfg(feature = "cuda")]
pub mod cuda_kernels {
    pub use crate::backend::cuda::{KernelSource, all_kernel_sources, compile_cubin, compile_ptx};
}

pub use crate::ops::SameDevice;

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Cpu {}
    impl Sealed for super::Cuda {}
}
