//! `to_dtype`: a copy of a tensor with its elements converted to another
//! element type, by PyTorch's `.to(dtype)` rules (see
//! [`CastFrom`](crate::element::CastFrom)).
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let t = Tensor::<f32, Shape![4]>::from([-1.5, 0.0, 2.7, 300.0]);
//! assert_eq!(t.to_dtype::<i32>().to_vec(), vec![-1, 0, 2, 300]);
//! assert_eq!(t.to_dtype::<u8>().to_vec(), vec![255, 0, 2, 44]);
//! assert_eq!(t.to_dtype::<bool>().to_vec(), vec![true, false, true, true]);
//! ```

use crate::backend::Backend;
use crate::element::{CastFrom, Element};
use crate::shape::{OrPanic, Shape};
use crate::tensor::pointwise;

use super::Tensor;

impl<T: Element, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// A new contiguous tensor of the same sizes, on the same device, with
    /// each element converted to `U`; `to_dtype::<T>()` is a copy. On CUDA
    /// one generated kernel per pair of element types (the same rules).
    ///
    /// # Panics
    /// Only when the device cannot allocate the result.
    ///
    /// ```
    /// use shaped::element::f16;
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2]>::from([0.1, 65520.0]);
    /// let h = t.to_dtype::<f16>();
    /// assert_eq!(h.to_vec(), vec![f16::from_f64(0.1), f16::INFINITY]);
    /// ```
    #[track_caller]
    pub fn to_dtype<U: CastFrom<T>>(&self) -> Tensor<U, S, D>
    where
        D: Backend<U>,
    {
        self.try_to_dtype().or_panic()
    }

    /// The fallible form of [`Tensor::to_dtype`].
    ///
    /// # Errors
    /// An allocation or driver error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let m = Tensor::<bool, Shape![3]>::from([true, false, true]);
    /// assert_eq!(m.try_to_dtype::<f32>().unwrap().to_vec(), vec![1., 0., 1.]);
    /// ```
    pub fn try_to_dtype<U: CastFrom<T>>(&self) -> Result<Tensor<U, S, D>, D::Error>
    where
        D: Backend<U>,
    {
        pointwise::cast_from::<U, T, _, _>(self)
    }
}
