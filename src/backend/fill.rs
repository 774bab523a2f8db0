//! Filled and random tensors made on a device: the primitives behind the
//! `*_like` constructors ([`Tensor::zeros_like`], [`Tensor::rand_like`],
//! ...), which are written once over the device. The device is the one a
//! given tensor lives on (a CUDA tensor carries its GPU handle, the CPU
//! needs none), so code generic over `D` can make new tensors beside its
//! inputs.
//!
//! ```
//! use shaped::backend::Fill;
//! use shaped::{DynRank, Tensor};
//! // Generic code asks for `Fill`; the `*_like` methods pass the layout
//! // of `like` down (its device) and type the new storage.
//! fn noise<D: Fill<f64>>(like: &Tensor<f64, DynRank, D>) -> Tensor<f64, DynRank, D> {
//!     like.rand_like(5)
//! }
//! let like = Tensor::<f64, DynRank>::try_zeros(&[4]).unwrap();
//! assert_eq!(noise(&like).to_vec(), Tensor::<f64, DynRank>::try_rand(&[4], 5).unwrap().to_vec());
//! assert_eq!(like.full_like(7.0).to_vec(), vec![7.0; 4]);
//! ```

use super::layout::{Layout, Output};
use crate::device::Device;
use crate::element::{Element, Float};

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
    /// A new contiguous storage of sizes `dims` on the device of `like`,
    /// every element `value` (PyTorch's `full`).
    ///
    /// # Errors
    /// An allocation or driver error (PyTorch's messages for sizes too
    /// large to allocate).
    fn full_like<U: Element>(
        like: Layout<'_, Self::Storage<U>>,
        dims: &[usize],
        value: T,
    ) -> Result<Output<Self::Storage<T>>, Self::Error>;

    /// A new contiguous storage of sizes `dims` on the device of `like`,
    /// samples of `dist` from the generator seeded with `seed`.
    ///
    /// # Errors
    /// As [`Fill::full_like`].
    fn random_like<U: Element>(
        like: Layout<'_, Self::Storage<U>>,
        dims: &[usize],
        dist: Distribution,
        seed: u64,
    ) -> Result<Output<Self::Storage<T>>, Self::Error>
    where
        T: Float;
}
