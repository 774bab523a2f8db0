//! Sizes, strides, elements, and conversions between shape types.
//!
//! ```
//! use shaped::{DynRank, Shape, Tensor};
//! let a = Tensor::<f32, Shape![2, 3]>::zeros();
//! let d: Tensor<f32, DynRank> = a.clone().into_dyn();
//! let back: Tensor<f32, Shape![2, _]> = d.try_into_shape().unwrap();
//! assert_eq!(back.dims(), &[2, 3]);
//! ```

use crate::shape::OrPanic;
use crate::tensor::pointwise;
use std::sync::Arc;

use crate::backend::Backend;
use crate::device::Device;
use crate::element::Element;
use crate::shape::{DynRank, Shape, ShapeError};

use super::Tensor;

impl<T: Element, S: Shape, D: Device> Tensor<T, S, D> {
    /// The sizes, as PyTorch's `size()`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f32, Shape![4, 1, 5]>::zeros().dims(), &[4, 1, 5]);
    /// ```
    pub fn dims(&self) -> &[usize] {
        self.dims.as_ref()
    }

    /// The strides, in elements.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f32, Shape![4, 5]>::zeros().strides(), &[5, 1]);
    /// ```
    pub fn strides(&self) -> &[usize] {
        self.strides.as_ref()
    }

    /// The offset of the first element in the storage.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![4]>::zeros();
    /// assert_eq!(t.narrow::<Shape![2]>(0, 1, 2).unwrap().offset(), 1);
    /// ```
    pub fn offset(&self) -> usize {
        self.offset
    }

    /// The number of dimensions.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f32, Shape![4, 5]>::zeros().rank(), 2);
    /// ```
    pub fn rank(&self) -> usize {
        self.dims().len()
    }

    /// The number of elements.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f32, Shape![4, 5]>::zeros().numel(), 20);
    /// ```
    pub fn numel(&self) -> usize {
        self.dims().iter().product()
    }

    /// Whether the elements lie in row-major order without gaps. A tensor
    /// without elements is contiguous, as in PyTorch.
    ///
    /// ```
    /// use shaped::{DynRank, Shape, Tensor};
    /// let t = Tensor::<f32, Shape![4, 5]>::zeros();
    /// assert!(t.is_contiguous());
    /// assert!(!t.transpose::<0, 1>().is_contiguous());
    /// assert!(Tensor::<f32, DynRank>::try_zeros(&[2, 0, 3]).unwrap().is_contiguous());
    /// ```
    pub fn is_contiguous(&self) -> bool {
        self.layout().is_contiguous()
    }

    /// The same tensor with its rank known only at run time.
    ///
    /// ```
    /// use shaped::{DynRank, Shape, Tensor};
    /// let d: Tensor<f32, DynRank> = Tensor::<f32, Shape![2]>::zeros().into_dyn();
    /// assert_eq!(d.dims(), &[2]);
    /// ```
    pub fn into_dyn(self) -> Tensor<T, DynRank, D> {
        let dims = crate::shape::DimVec::from_slice(self.dims());
        self.view_as(dims, self.strides(), self.offset)
    }

    /// The same tensor seen with shape type `S2`, checked at run time.
    ///
    /// # Errors
    /// When the sizes do not fit `S2` (rank, or a static size).
    ///
    /// ```
    /// use shaped::{DynRank, Shape, Tensor};
    /// let d = Tensor::<f32, DynRank>::try_zeros(&[2, 3]).unwrap();
    /// assert!(d.try_into_shape::<Shape![2, 3]>().is_ok());
    /// assert!(d.try_into_shape::<Shape![3, 2]>().is_err());
    /// ```
    pub fn try_into_shape<S2: Shape>(&self) -> Result<Tensor<T, S2, D>, ShapeError> {
        let dims = S2::check_dims(self.dims())?;
        Ok(self.view_as(dims, self.strides(), self.offset))
    }
}

impl<T: Element, S: Shape> Tensor<T, S> {
    /// The elements in row-major order.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 2]>::from_vec(vec![1, 2, 3, 4]);
    /// assert_eq!(t.transpose::<0, 1>().to_vec(), vec![1, 3, 2, 4]);
    /// ```
    #[track_caller]
    pub fn to_vec(&self) -> Vec<T> {
        self.try_to_vec().or_panic()
    }

    /// The fallible form of [`Tensor::to_vec`].
    ///
    /// # Errors
    /// As [`Tensor::try_deep_copy`]: the elements of an expanded view can
    /// need far more memory than the view shares.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let one = Tensor::<f32, DynRank>::try_ones(&[1]).unwrap();
    /// assert_eq!(one.try_to_vec().unwrap(), vec![1.0]);
    /// let wide = one.try_broadcast_to::<DynRank>(&[1 << 40]).unwrap();
    /// let e = wide.try_to_vec().unwrap_err();
    /// assert!(e.to_string().contains("you tried to allocate 4398046511104 bytes"));
    /// ```
    pub fn try_to_vec(&self) -> Result<Vec<T>, ShapeError> {
        if self.numel() == 0 {
            // The offset of an empty view may lie past the end of the storage.
            return Ok(Vec::new());
        }
        if self.is_contiguous() {
            // As many elements as a buffer that exists already holds.
            let g = self.storage.read();
            return Ok(g[self.offset..self.offset + self.numel()].to_vec());
        }
        Ok(self.try_deep_copy()?.into_vec())
    }

    /// The single element of a one-element tensor, as PyTorch's `item()`.
    ///
    /// # Errors
    /// When the tensor does not have exactly one element.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// assert_eq!(Tensor::<f32, DynRank>::scalar(4.0).try_item().unwrap(), 4.0);
    /// ```
    pub fn try_item(&self) -> Result<T, ShapeError> {
        if self.numel() != 1 {
            return Err(ShapeError::Invalid(format!(
                "a Tensor with {} elements cannot be converted to Scalar",
                self.numel()
            )));
        }
        Ok(self.storage.read()[self.offset])
    }

    /// The storage's elements when this tensor owns all of them in order.
    fn into_vec(mut self) -> Vec<T> {
        let whole = self.offset == 0 && self.is_contiguous() && self.storage.len() == self.numel();
        match Arc::get_mut(&mut self.storage) {
            // The emptied storage is dropped with `self`.
            Some(s) if whole => s.take_elements(),
            _ => {
                let g = self.storage.read();
                g[self.offset..self.offset + self.dims.as_ref().iter().product::<usize>()].to_vec()
            }
        }
    }
}

impl<T: Element> Tensor<T, ()> {
    /// The element of a 0-d tensor.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<i64, Shape![]>::full(3).item(), 3);
    /// ```
    pub fn item(&self) -> T {
        self.storage.read()[self.offset]
    }
}

/// Copies on the tensor's own device (the backend's contiguous copy).
impl<T: Element, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// A contiguous copy of the elements, in new storage on the same device
    /// (PyTorch's `clone()`; on the CPU `Clone` does the same,
    /// [`Tensor::share`] shares instead).
    ///
    /// # Panics
    /// With the message of [`Tensor::try_deep_copy`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
    /// let t = a.transpose::<0, 1>();
    /// let c = t.deep_copy();
    /// assert!(c.is_contiguous() && !t.is_contiguous());
    /// assert_eq!(c.to_vec(), vec![1., 3., 2., 4.]);
    /// ```
    #[track_caller]
    pub fn deep_copy(&self) -> Self {
        self.try_deep_copy().or_panic()
    }

    /// The fallible form of [`Tensor::deep_copy`].
    ///
    /// # Errors
    /// When the copy's buffer cannot be allocated (an expanded view can ask
    /// for far more memory than it shares): PyTorch's "... you tried to
    /// allocate N bytes ..." or its size overflow message on the CPU; the
    /// driver's error on CUDA.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let one = Tensor::<f32, DynRank>::try_ones(&[1]).unwrap();
    /// let wide = one.try_broadcast_to::<DynRank>(&[1 << 40]).unwrap();
    /// let e = wide.try_deep_copy().unwrap_err();
    /// assert!(e.to_string().contains("you tried to allocate 4398046511104 bytes"));
    /// ```
    pub fn try_deep_copy(&self) -> Result<Self, D::Error> {
        pointwise::copy(self)
    }

    /// This tensor (shared, as [`Tensor::share`]) if contiguous, else a
    /// contiguous copy, as PyTorch's `contiguous()`.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_contiguous`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2, 3]>::zeros().transpose::<0, 1>();
    /// assert!(t.contiguous().is_contiguous());
    /// ```
    #[track_caller]
    pub fn contiguous(&self) -> Self {
        self.try_contiguous().or_panic()
    }

    /// The fallible form of [`Tensor::contiguous`].
    ///
    /// # Errors
    /// As [`Tensor::try_deep_copy`].
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let t = Tensor::<f64, DynRank>::try_zeros(&[2, 3]).unwrap();
    /// assert!(t.try_contiguous().unwrap().is_contiguous());
    /// ```
    pub fn try_contiguous(&self) -> Result<Self, D::Error> {
        if self.is_contiguous() {
            Ok(self.share())
        } else {
            self.try_deep_copy()
        }
    }
}
