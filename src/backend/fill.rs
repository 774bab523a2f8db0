//! Filled and random tensors made on a device: the primitives behind the
//! `*_like` constructors ([`Tensor::zeros_like`], [`Tensor::rand_like`],
//! ...), which are written once over the device. The device is the one a
//! given tensor lives on (a CUDA tensor carries its GPU handle, the CPU
//! needs none), so code generic over `D` can make new tensors beside its
//! inputs.
//!
//! ```
//! use shaped::backend::{Distribution, Fill};
//! use shaped::device::Cpu;
//! use shaped::{DynRank, Tensor};
//! let like = Tensor::<f32, DynRank>::try_zeros(&[2]).unwrap();
//! let t: Tensor<i64, DynRank> = Cpu::full_like(&like, &[2, 3], 7).unwrap();
//! assert_eq!(t.to_vec(), vec![7; 6]);
//! let r: Tensor<f64, DynRank> = Cpu::random_like(&like, &[4], Distribution::Uniform, 5).unwrap();
//! assert_eq!(r.to_vec(), Tensor::<f64, DynRank>::try_rand(&[4], 5).unwrap().to_vec());
//! ```

use crate::Tensor;
use crate::device::Device;
use crate::element::{Element, Float};
use crate::shape::Shape;

/// The distribution of [`Fill::random_like`]'s samples.
///
/// ```
/// use shaped::backend::Distribution;
/// assert_ne!(Distribution::Uniform, Distribution::Normal);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distribution {
    /// Uniform in `[0, 1)` (PyTorch's `rand`).
    Uniform,
    /// Standard normal (PyTorch's `randn`).
    Normal,
}

/// New tensors of elements `T` filled on a device: with one value, or with
/// seeded samples (the same values on every device for the same seed:
/// SplitMix64 streams, element by element).
pub trait Fill<T: Element>: Device {
    /// A new contiguous tensor of sizes `dims` on the device of `like`,
    /// every element `value` (PyTorch's `full`).
    ///
    /// # Errors
    /// When `dims` does not fit `S`; an allocation or driver error.
    fn full_like<S: Shape, U: Element, SL: Shape>(
        like: &Tensor<U, SL, Self>,
        dims: &[usize],
        value: T,
    ) -> Result<Tensor<T, S, Self>, Self::Error>;

    /// A new contiguous tensor of sizes `dims` on the device of `like`,
    /// samples of `dist` from the generator seeded with `seed`.
    ///
    /// # Errors
    /// As [`Fill::full_like`].
    fn random_like<S: Shape, U: Element, SL: Shape>(
        like: &Tensor<U, SL, Self>,
        dims: &[usize],
        dist: Distribution,
        seed: u64,
    ) -> Result<Tensor<T, S, Self>, Self::Error>
    where
        T: Float;
}
