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

use crate::element::{CastFrom, Element};
use crate::shape::Shape;

use super::Tensor;

impl<T: Element, S: Shape> Tensor<T, S> {
    /// A new contiguous tensor of the same sizes with each element
    /// converted to `U`; `to_dtype::<T>()` is a copy.
    ///
    /// ```
    /// use shaped::element::f16;
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2]>::from([0.1, 65520.0]);
    /// let h = t.to_dtype::<f16>();
    /// assert_eq!(h.to_vec(), vec![f16::from_f64(0.1), f16::INFINITY]);
    /// ```
    pub fn to_dtype<U: CastFrom<T>>(&self) -> Tensor<U, S> {
        let data: Vec<U> = self.iter().map(U::cast_from).collect();
        Tensor::from_parts(data, self.dims.clone())
    }
}
