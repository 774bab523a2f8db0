//! CUDA tensors (`Tensor<T, S, Cuda>`, feature `cuda`): transfers between
//! host and GPU (`to_device`, `to_cpu`), `deep_copy`, `contiguous` and
//! `try_reshape`; constructors on the device (`zeros_on`, `ones_on`,
//! `full_on`, `rand_on`, `randn_on`, their `try_*_on` forms taking run-time
//! sizes, and `arange_on`). Every operation is written once over the device
//! ([`Backend`](crate::backend::Backend), [`Gemm`](crate::backend::Gemm)):
//! pointwise ops, reductions and matrix products run on CUDA tensors with the
//! CPU's names, shape rules and messages; fallible forms return
//! [`CudaError`] (a shape error is [`CudaError::Shape`]).
//!
//! Views (`transpose`, `permute`, `expand`, `broadcast_to`, `narrow`,
//! `unsqueeze`, `squeeze`, `broadcast_in_dim`) are the CPU's, written once
//! for every device; `try_reshape` copies on the GPU when it must.
//! [`Tensor::to_device`] keeps a view's strides.
//!
//! The index, joining and masked operations, the linear algebra
//! ([`linalg`](crate::linalg), [`LinalgDevice`](crate::linalg::LinalgDevice))
//! and autograd ([`Var`](crate::autograd::Var) over any
//! [`GradDevice`](crate::autograd::GradDevice)) are written once over the
//! device too. What stays on the CPU: the user closures (`map`, `zip_map`,
//! ...; a GPU cannot run Rust code) and host access (`to_vec`, `get`,
//! `iter`, ...; use [`Tensor::to_cpu`]).
//!
//! ```
//! use shaped::device::Cuda;
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<f32, Shape![2, 1]>::from_vec(vec![1., 2.]);
//! let b = Tensor::<f32, Shape![3]>::from_vec(vec![10., 20., 30.]);
//! match Cuda::device(0) {
//!     Ok(dev) => {
//!         let (ga, gb) = (a.to_device(&dev).unwrap(), b.to_device(&dev).unwrap());
//!         let c: Tensor<f32, Shape![2, 3], Cuda> = &ga + &gb;
//!         assert_eq!(c.to_cpu().unwrap().to_vec(), (&a + &b).to_vec());
//!     }
//!     Err(e) => println!("skipped: {e}"),
//! }
//! ```

use core::marker::PhantomData;
use std::sync::Arc;

use super::construct::{arange_len, check_new};
use crate::Tensor;
use crate::backend::cuda::fill;
use crate::backend::cuda::generate::Generator;
use crate::backend::cuda::{CudaDevice, CudaElement, CudaError, CudaStorage};
use crate::backend::random::below_one;
use crate::device::Cuda;
use crate::element::{Float, Numeric};
use crate::shape::OrPanic;
use crate::shape::{Dyn, FixedShape, Shape};

impl<T: CudaElement, S: Shape> Tensor<T, S> {
    /// A copy of this tensor on GPU `dev`, with the same sizes, strides and
    /// offset relative to the copied span (so a transposed or expanded view
    /// stays one; only the span of storage it reaches is copied).
    ///
    /// # Errors
    /// A driver error (out of memory, ...).
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2, 3]>::zeros().transpose::<0, 1>();
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let g = t.to_device(&dev).unwrap();
    ///     assert_eq!(g.strides(), t.strides());
    ///     assert_eq!(g.to_cpu().unwrap().to_vec(), t.to_vec());
    /// }
    /// ```
    pub fn to_device(&self, dev: &CudaDevice) -> Result<Tensor<T, S, Cuda>, CudaError> {
        let (lo, hi) = span(self.dims(), self.strides(), self.offset());
        let g = self.storage.read();
        let buf = dev.upload(&g[lo..hi])?;
        drop(g);
        Ok(Tensor {
            storage: Arc::new(CudaStorage::new(buf, dev.clone())),
            offset: self.offset() - lo,
            dims: self.dims.clone(),
            strides: self.strides.clone(),
            device: PhantomData,
        })
    }
}

/// The range of storage indices a layout reaches (empty for no elements).
fn span(dims: &[usize], strides: &[usize], offset: usize) -> (usize, usize) {
    if dims.contains(&0) {
        return (0, 0);
    }
    let reach: usize = dims.iter().zip(strides).map(|(&d, &s)| (d - 1) * s).sum();
    (offset, offset + reach + 1)
}

impl<T: CudaElement, S: Shape> Tensor<T, S, Cuda> {
    /// A contiguous tensor over `buf` (at least `numel(dims)` elements):
    /// the NCCL collectives' results (feature `nccl`).
    #[cfg(feature = "nccl")]
    pub(crate) fn from_cuda_parts(buf: Arc<CudaStorage<T>>, dims: S::Dims) -> Self {
        use crate::shape::Dims;
        let strides = crate::iter::contiguous_strides(dims.as_ref());
        Tensor {
            storage: buf,
            offset: 0,
            strides: <S::Dims as Dims>::from_slice(&strides),
            dims,
            device: PhantomData,
        }
    }

    /// The GPU this tensor lives on.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let a = Tensor::<f32, Shape![2]>::zeros().to_device(&dev).unwrap();
    ///     assert_eq!(a.device().ordinal(), dev.ordinal());
    /// }
    /// ```
    pub fn device(&self) -> &CudaDevice {
        &self.storage.dev
    }

    /// The elements copied back to the CPU, as a contiguous tensor.
    ///
    /// # Errors
    /// A driver error (including one raised by an earlier asynchronous
    /// kernel on this device).
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let a = Tensor::<i64, Shape![3]>::from_vec(vec![1, 2, 3]);
    ///     assert_eq!(a.to_device(&dev).unwrap().to_cpu().unwrap().to_vec(), a.to_vec());
    /// }
    /// ```
    pub fn to_cpu(&self) -> Result<Tensor<T, S>, CudaError> {
        let n = self.numel();
        if n == 0 {
            return Ok(Tensor::from_parts(Vec::new(), self.dims.clone()));
        }
        let c = self.try_contiguous()?;
        let g = c.storage.buf.read();
        let view = g.slice(c.offset..c.offset + n);
        let data = self.device().stream().clone_dtoh(&view)?;
        // A copy to pageable memory completes before the call returns; the
        // synchronisation also reports errors of earlier asynchronous work.
        self.device().synchronize()?;
        Ok(Tensor::from_parts(data, self.dims.clone()))
    }
}

/// The sizes, strides, dtype and device (not the elements, which would need
/// a copy from the GPU: use [`Tensor::to_cpu`] to print them).
impl<T: CudaElement, S: Shape> core::fmt::Debug for Tensor<T, S, Cuda> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "tensor(size={:?}, stride={:?}, dtype={}, device='cuda:{}')",
            self.dims(),
            self.strides(),
            T::NAME,
            self.device().ordinal()
        )
    }
}

/// The sizes of the static shape `S`.
fn fixed_dims<S: FixedShape>() -> S::Dims {
    S::static_sizes().expect("a fixed shape has static sizes")
}

/// A fresh tensor of sizes `dims` on `dev` whose elements the generator
/// `g` writes.
fn generated<T: CudaElement, S: Shape>(
    dev: &CudaDevice,
    dims: &[usize],
    g: Generator<T>,
) -> Result<Tensor<T, S, Cuda>, CudaError> {
    check_new::<S>(dims)?;
    Ok(Tensor::from_output(fill::generated(dev, dims, g)?)?)
}

/// Constructors on the GPU: the elements are written there by a kernel
/// (`fill`, `arange`, the seeded generators), never computed on the host
/// and copied up. Values equal the CPU constructors' (`rand` / `randn`
/// draw the same SplitMix64 streams, element by element).
impl<T: CudaElement, S: Shape> Tensor<T, S, Cuda> {
    /// A tensor of sizes `dims` on `dev` filled with `value`, as
    /// `torch.full(dims, value, device='cuda')`.
    ///
    /// # Errors
    /// When `dims` does not fit `S` (the CPU's messages), or a driver
    /// error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{DynRank, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let t = Tensor::<i32, DynRank, Cuda>::try_full_on(&dev, &[2, 3], 7).unwrap();
    ///     assert_eq!(t.to_cpu().unwrap().to_vec(), vec![7; 6]);
    /// }
    /// ```
    pub fn try_full_on(dev: &CudaDevice, dims: &[usize], value: T) -> Result<Self, CudaError> {
        check_new::<S>(dims)?;
        Ok(Tensor::from_output(fill::full(dev, dims, value)?)?)
    }

    /// [`Tensor::try_full_on`] with zeros.
    ///
    /// # Errors
    /// As [`Tensor::try_full_on`].
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let t = Tensor::<f32, Shape![_, 2], Cuda>::try_zeros_on(&dev, &[3, 2]).unwrap();
    ///     assert_eq!(t.to_cpu().unwrap().to_vec(), vec![0.0; 6]);
    /// }
    /// ```
    pub fn try_zeros_on(dev: &CudaDevice, dims: &[usize]) -> Result<Self, CudaError> {
        Self::try_full_on(dev, dims, T::default())
    }
}

impl<T: CudaElement + Numeric, S: Shape> Tensor<T, S, Cuda> {
    /// [`Tensor::try_full_on`] with ones.
    ///
    /// # Errors
    /// As [`Tensor::try_full_on`].
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{DynRank, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let t = Tensor::<u8, DynRank, Cuda>::try_ones_on(&dev, &[4]).unwrap();
    ///     assert_eq!(t.to_cpu().unwrap().to_vec(), vec![1; 4]);
    /// }
    /// ```
    pub fn try_ones_on(dev: &CudaDevice, dims: &[usize]) -> Result<Self, CudaError> {
        Self::try_full_on(dev, dims, T::one())
    }
}

impl<T: CudaElement + Float, S: Shape> Tensor<T, S, Cuda> {
    /// Uniform samples in `[0, 1)` drawn on `dev`: the same values as the
    /// CPU's [`Tensor::try_rand`] with this seed.
    ///
    /// # Errors
    /// As [`Tensor::try_full_on`].
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{DynRank, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let g = Tensor::<f64, DynRank, Cuda>::try_rand_on(&dev, &[5], 3).unwrap();
    ///     assert_eq!(g.to_cpu().unwrap().to_vec(), Tensor::<f64, DynRank>::try_rand(&[5], 3).unwrap().to_vec());
    /// }
    /// ```
    pub fn try_rand_on(dev: &CudaDevice, dims: &[usize], seed: u64) -> Result<Self, CudaError> {
        let below_one = below_one::<T>();
        generated(dev, dims, Generator::Uniform { seed, below_one })
    }

    /// Standard normal samples drawn on `dev` (Box-Muller over the same
    /// stream as the CPU's [`Tensor::try_randn`], equal to it up to the
    /// last bits of the device's `log` and `cos`).
    ///
    /// # Errors
    /// As [`Tensor::try_full_on`].
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{DynRank, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let g = Tensor::<f64, DynRank, Cuda>::try_randn_on(&dev, &[1000], 1).unwrap();
    ///     assert!(g.mean().to_cpu().unwrap().item().abs() < 0.1);
    /// }
    /// ```
    pub fn try_randn_on(dev: &CudaDevice, dims: &[usize], seed: u64) -> Result<Self, CudaError> {
        generated(dev, dims, Generator::Normal { seed })
    }
}

impl<T: CudaElement, S: FixedShape> Tensor<T, S, Cuda> {
    /// A tensor of static shape `S` on `dev` filled with `value`.
    ///
    /// # Panics
    /// On a driver error (out of memory, ...); [`Tensor::try_full_on`]
    /// returns it instead.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let t = Tensor::<f64, Shape![2, 2], Cuda>::full_on(&dev, 1.5);
    ///     assert_eq!(t.to_cpu().unwrap().to_vec(), vec![1.5; 4]);
    /// }
    /// ```
    #[track_caller]
    pub fn full_on(dev: &CudaDevice, value: T) -> Self {
        Self::try_full_on(dev, fixed_dims::<S>().as_ref(), value).or_panic()
    }

    /// A tensor of static shape `S` on `dev` filled with zeros, as
    /// `torch.zeros(.., device='cuda')`.
    ///
    /// # Panics
    /// As [`Tensor::full_on`].
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let t = Tensor::<f32, Shape![3], Cuda>::zeros_on(&dev);
    ///     assert_eq!(t.to_cpu().unwrap().to_vec(), vec![0.0; 3]);
    /// }
    /// ```
    #[track_caller]
    pub fn zeros_on(dev: &CudaDevice) -> Self {
        Self::full_on(dev, T::default())
    }
}

impl<T: CudaElement + Numeric, S: FixedShape> Tensor<T, S, Cuda> {
    /// A tensor of static shape `S` on `dev` filled with ones.
    ///
    /// # Panics
    /// As [`Tensor::full_on`].
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let t = Tensor::<i64, Shape![2], Cuda>::ones_on(&dev);
    ///     assert_eq!(t.to_cpu().unwrap().to_vec(), vec![1, 1]);
    /// }
    /// ```
    #[track_caller]
    pub fn ones_on(dev: &CudaDevice) -> Self {
        Self::full_on(dev, T::one())
    }
}

impl<T: CudaElement + Float, S: FixedShape> Tensor<T, S, Cuda> {
    /// [`Tensor::try_rand_on`] for a static shape.
    ///
    /// # Panics
    /// As [`Tensor::full_on`].
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let g = Tensor::<f32, Shape![4], Cuda>::rand_on(&dev, 9);
    ///     assert_eq!(g.to_cpu().unwrap().to_vec(), Tensor::<f32, Shape![4]>::rand(9).to_vec());
    /// }
    /// ```
    #[track_caller]
    pub fn rand_on(dev: &CudaDevice, seed: u64) -> Self {
        Self::try_rand_on(dev, fixed_dims::<S>().as_ref(), seed).or_panic()
    }

    /// [`Tensor::try_randn_on`] for a static shape.
    ///
    /// # Panics
    /// As [`Tensor::full_on`].
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let g = Tensor::<f64, Shape![2, 2], Cuda>::randn_on(&dev, 4);
    ///     assert_eq!(g.dims(), &[2, 2]);
    /// }
    /// ```
    #[track_caller]
    pub fn randn_on(dev: &CudaDevice, seed: u64) -> Self {
        Self::try_randn_on(dev, fixed_dims::<S>().as_ref(), seed).or_panic()
    }
}

impl<T: CudaElement + Numeric> Tensor<T, (Dyn,), Cuda> {
    /// `start, start + step, ...` up to but excluding `end`, computed on
    /// `dev`, as `torch.arange(.., device='cuda')`: the CPU's
    /// [`Tensor::arange`] values and errors.
    ///
    /// # Errors
    /// The CPU's errors for the arguments, or a driver error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::Tensor;
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let g = Tensor::<i64, _, Cuda>::arange_on(&dev, 0, 5, 2).unwrap();
    ///     assert_eq!(g.to_cpu().unwrap().to_vec(), vec![0, 2, 4]);
    /// }
    /// ```
    pub fn arange_on(dev: &CudaDevice, start: T, end: T, step: T) -> Result<Self, CudaError> {
        let n = arange_len(start, end, step)?;
        let (start, step) = (start.to_f64(), step.to_f64());
        generated(dev, &[n], Generator::Arange { start, step })
    }
}
