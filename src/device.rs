//! Devices: where a tensor's elements live. The device is a type parameter of
//! [`Tensor`](crate::Tensor), so combining tensors on different devices is a
//! compile error.
//!
//! ```
//! use shaped::{device::Cpu, Tensor, Shape};
//! let t: Tensor<f32, Shape![2], Cpu> = Tensor::zeros();
//! assert_eq!(t.to_vec(), vec![0.0, 0.0]);
//! ```

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
}

/// The CPU, with kernels parallelised by rayon.
///
/// ```
/// use shaped::device::Cpu;
/// let _ = Cpu;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Cpu;

impl Device for Cpu {
    const NAME: &'static str = "cpu";
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Cpu {}
}
