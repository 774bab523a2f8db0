//! `Tensor<T, S, D>`: shared storage, an offset, strides and a typed shape.
//!
//! Views (`expand`, `permute`, `narrow`, ...) share the storage and only
//! change the offset, sizes and strides; an expanded dimension has stride 0.
//! `Clone` copies the elements, as PyTorch's `clone()` does, so that
//! `let mut y = x.clone(); y.add_(..)` never changes `x`; another handle on
//! the same storage (a view of the whole tensor) is the explicitly named
//! [`Tensor::share`].
//!
//! | file | what |
//! |---|---|
//! | `storage.rs` | the shared buffer |
//! | `construct.rs` | `from_vec`, `zeros`, `full`, `arange`, `rand`, ... |
//! | `like.rs` | `zeros_like`, `full_like`, `rand_like`, ...: another tensor's sizes, on its device |
//! | `access.rs` | sizes, strides, `to_vec`, `item`, shape conversions |
//! | `view.rs` | views: `expand`, `unsqueeze`, `permute`, `narrow`, `reshape`, ... |
//! | `display.rs` | printing as PyTorch prints |
//! | `cast.rs` | `to_dtype` |
//! | `element_access.rs` | `get`/`set`, `as_slice`/`as_mut_slice` |
//! | `elements.rs` | `iter`, `IntoIterator`, `FromIterator` |
//! | `convert.rs` | `From` (nested) arrays, `From`/`TryFrom` a `Vec` |
//! | `traits.rs` | `PartialEq`, `Hash`, `Default`, `Not`, ... |
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]);
//! let t = a.transpose::<0, 1>();
//! assert_eq!(t.dims(), &[3, 2]);
//! assert_eq!(t.to_vec(), vec![1., 4., 2., 5., 3., 6.]);
//! ```

mod access;
mod cast;
mod construct;
mod convert;
#[cfg(feature = "cuda")]
mod cuda;
mod display;
mod element_access;
mod elements;
pub mod host;
pub(crate) mod indexing;
mod like;
pub mod pointwise;
pub mod reduction;
mod traits;
mod view;
pub(crate) mod windows;
pub(crate) use crate::backend::random::SplitMix64;
#[cfg(any(feature = "npy", feature = "safetensors"))]
pub(crate) use display::shape_name;
pub(crate) use view::wrap_dim;

pub use convert::VecShape;
pub use element_access::{SliceGuard, SliceGuardMut};
pub use elements::Iter;
pub use view::{try_broadcast_tensors, try_broadcast_tensors3};

use core::marker::PhantomData;
use std::sync::Arc;

use crate::backend::cpu::storage::Storage;
use crate::device::{Cpu, Device};
use crate::element::Element;
use crate::shape::Shape;

/// An n-dimensional array of `T` with shape type `S` on device `D`.
///
/// `S` is a tuple of dimensions written with [`Shape!`](crate::Shape) (sizes
/// checked at compile time where static) or [`DynRank`](crate::DynRank).
///
/// ```
/// use shaped::{Shape, Tensor};
/// let b = Tensor::<f32, Shape![4]>::from_vec(vec![1., 2., 3., 4.]);
/// let c: Tensor<f32, Shape![4, 4]> = b.broadcast_to();
/// assert_eq!(c.dims(), &[4, 4]);
/// assert_eq!(c.strides(), &[0, 1]);
/// ```
pub struct Tensor<T: Element, S: Shape, D: Device = Cpu> {
    pub(crate) storage: Arc<D::Storage<T>>,
    pub(crate) offset: usize,
    pub(crate) dims: S::Dims,
    pub(crate) strides: S::Dims,
    pub(crate) device: PhantomData<D>,
}

/// A dropped tensor hands its storage handle to its device first
/// ([`Device::recycle`]): on the CPU, a storage whose last handle this was
/// is kept, with its buffer when small, for the thread's next result of its
/// element type (`backend/cpu/shells.rs`).
impl<T: Element, S: Shape, D: Device> Drop for Tensor<T, S, D> {
    #[inline]
    fn drop(&mut self) {
        D::recycle(&mut self.storage);
    }
}

impl<T: Element, S: Shape, D: Device> Tensor<T, S, D> {
    /// Another handle on the same storage: a view of the whole tensor, as
    /// PyTorch's `t.view_as(t)` or `t.detach()` (without autograd) give.
    /// Writes through either handle are seen by both; nothing is copied.
    /// (`Clone` copies the elements, as PyTorch's `clone()`.)
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![2]>::zeros();
    /// let mut y = x.share();
    /// y.fill_(1.0);
    /// assert_eq!(x.to_vec(), vec![1.0, 1.0]);
    /// ```
    pub fn share(&self) -> Self {
        Tensor {
            storage: Arc::clone(&self.storage),
            offset: self.offset,
            dims: self.dims.clone(),
            strides: self.strides.clone(),
            device: PhantomData,
        }
    }
}

/// `clone()` copies the elements into a new contiguous buffer, as PyTorch's
/// `Tensor.clone()`: writing into the copy never changes the original. A
/// second handle on the same storage is [`Tensor::share`]. (A CUDA tensor
/// copies with the fallible `deep_copy` instead, so it is not `Clone`.)
///
/// ```
/// use shaped::{Shape, Tensor};
/// let x = Tensor::<f32, Shape![2]>::zeros();
/// let mut y = x.clone();
/// y.fill_(1.0);
/// assert_eq!((x.to_vec(), y.to_vec()), (vec![0.0, 0.0], vec![1.0, 1.0]));
/// ```
impl<T: Element, S: Shape> Clone for Tensor<T, S> {
    fn clone(&self) -> Self {
        self.deep_copy()
    }
}

impl<T: Element, S: Shape, D: Device> Tensor<T, S, D> {
    /// The tensor with its shape type erased, as the backends take it.
    pub(crate) fn layout(&self) -> crate::backend::Layout<'_, D::Storage<T>> {
        crate::backend::Layout {
            storage: &self.storage,
            dims: self.dims.as_ref(),
            strides: self.strides.as_ref(),
            offset: self.offset,
        }
    }

    /// A backend's new storage as a tensor of shape `S`: its sizes checked
    /// against `S` (an error names them when they do not fit).
    #[inline]
    pub(crate) fn from_output(
        o: crate::backend::Output<D::Storage<T>>,
    ) -> Result<Self, crate::ShapeError> {
        let dims = Self::checked_dims(&o.dims)?;
        Ok(Self::from_storage(o.storage, dims))
    }

    /// `dims`, the sizes of a buffer that exists, as `S`'s sizes.
    ///
    /// The buffer exists, so its element count fits in memory: only the
    /// rank and the static sizes are compared here, against constants of
    /// `S` (the full `check_dims` makes the error when they differ).
    #[inline]
    fn checked_dims(dims: &[usize]) -> Result<S::Dims, crate::ShapeError> {
        let fits = match S::RANK {
            None => true,
            Some(rank) => {
                dims.len() == rank
                    && S::STATIC_DIMS
                        .iter()
                        .zip(dims)
                        .all(|(s, &d)| s.is_none_or(|s| s == d))
            }
        };
        if fits {
            Ok(<S::Dims as crate::shape::Dims>::from_slice(dims))
        } else {
            S::check_dims(dims)
        }
    }

    /// A contiguous tensor over all of `storage`, whose sizes `dims` are
    /// already checked.
    #[inline]
    fn from_storage(storage: Arc<D::Storage<T>>, dims: S::Dims) -> Self {
        // Row-major strides, as `iter::contiguous_strides` computes them,
        // written in place (this runs on every allocating operation).
        let mut strides = dims.clone();
        let mut acc = 1usize;
        for (s, &d) in strides.as_mut().iter_mut().zip(dims.as_ref()).rev() {
            *s = acc;
            acc = acc.saturating_mul(d.max(1));
        }
        Tensor {
            storage,
            offset: 0,
            strides,
            dims,
            device: PhantomData,
        }
    }
}

impl<T: Element, S: Shape> Tensor<T, S> {
    /// A CPU kernel's new buffer as a tensor of shape `S`, its sizes
    /// checked as [`Tensor::from_output`] checks them.
    #[inline]
    pub(crate) fn from_fresh(
        f: crate::backend::cpu::exec::Fresh<T>,
    ) -> Result<Self, crate::ShapeError> {
        let dims = Self::checked_dims(&f.dims)?;
        Ok(Self::from_storage(f.storage, dims))
    }

    /// A tensor over `data` (row-major) with already checked `dims`.
    pub(crate) fn from_parts(data: Vec<T>, dims: S::Dims) -> Self {
        Self::from_storage(Storage::shared(data), dims)
    }
}

impl<T: Element, S: Shape, D: Device> Tensor<T, S, D> {
    /// A view of the same storage with other sizes, strides and offset.
    ///
    /// A view with no elements gets offset 0: its offset would never be read
    /// through, and an offset past the end of an empty (or shorter) buffer
    /// would make the kernels' `ptr.add(offset)` undefined behaviour. Every
    /// view goes through here, so no kernel sees an empty layout whose offset
    /// lies outside its storage.
    pub(crate) fn view_as<S2: Shape>(
        &self,
        dims: S2::Dims,
        strides: &[usize],
        offset: usize,
    ) -> Tensor<T, S2, D> {
        let empty = dims.as_ref().contains(&0);
        let offset = if empty { 0 } else { offset };
        Tensor {
            storage: Arc::clone(&self.storage),
            offset,
            dims,
            strides: <S2::Dims as crate::shape::Dims>::from_slice(strides),
            device: PhantomData,
        }
    }
}
