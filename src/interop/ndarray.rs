//! Conversions between tensors and `ndarray` arrays (feature `ndarray`).
//!
//! - Tensor to array: [`Tensor::to_ndarray`] copies into an `ArrayD` in
//!   logical order; [`Tensor::ndarray_view`] lends an `ArrayViewD` over the
//!   tensor's own storage without a copy, with the tensor's strides (views,
//!   transposes and expanded stride-0 dimensions included), valid while the
//!   returned guard holds the storage's read lock.
//! - Array to tensor: `From<Array<T, D>>` for `Tensor<T, DynRank>` (no copy
//!   when the array is in standard row-major layout), and
//!   [`Tensor::try_from_ndarray`] for any shape type, checking the sizes.
//!
//! ```
//! use ndarray::array;
//! use shaped::{DynRank, Shape, Tensor};
//! let a = array![[1., 2., 3.], [4., 5., 6.]];
//! let t = Tensor::<f64, Shape![2, 3]>::try_from_ndarray(&a).unwrap();
//! let tt = t.transpose::<0, 1>();
//! let guard = tt.ndarray_view();
//! assert_eq!(guard.view(), a.t().into_dyn());
//! let d: Tensor<f64, DynRank> = a.clone().into();
//! assert_eq!(d.to_ndarray(), a.into_dyn());
//! ```

use crate::backend::cpu::storage::Read;
use ndarray::{Array, ArrayBase, ArrayD, ArrayViewD, Data, Dimension, IxDyn, ShapeBuilder};

use crate::element::Element;
use crate::shape::{DynRank, Shape, ShapeError};
use crate::tensor::Tensor;

/// A tensor's storage, read-locked, lent as an `ndarray` view; see
/// [`Tensor::ndarray_view`].
pub struct NdarrayGuard<'a, T> {
    data: Read<'a, T>,
    dims: Vec<usize>,
    strides: Vec<usize>,
    offset: usize,
}

impl<T> NdarrayGuard<'_, T> {
    /// The elements as an `ArrayViewD`, with the tensor's sizes and strides
    /// (no copy).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 2]>::from([[1, 2], [3, 4]]);
    /// let g = t.ndarray_view();
    /// assert_eq!(g.view().sum(), 10);
    /// ```
    pub fn view(&self) -> ArrayViewD<'_, T> {
        let numel: usize = self.dims.iter().product();
        // An empty view's offset may lie past the end of its storage, and
        // its strides mean nothing: view no storage, with zero strides.
        let (data, strides): (&[T], Vec<usize>) = if numel == 0 {
            (&[], vec![0; self.dims.len()])
        } else {
            (&self.data[self.offset..], self.strides.clone())
        };
        let shape = IxDyn(&self.dims).strides(IxDyn(&strides));
        ArrayViewD::from_shape(shape, data)
            .expect("a tensor's sizes and strides stay inside its storage")
    }
}

impl<T: Element, S: Shape> Tensor<T, S> {
    /// A copy of the elements as an `ndarray` array of the same sizes.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<u8, Shape![2, 2]>::from([[1, 2], [3, 4]]).transpose::<0, 1>();
    /// assert_eq!(t.to_ndarray(), ndarray::array![[1u8, 3], [2, 4]].into_dyn());
    /// ```
    pub fn to_ndarray(&self) -> ArrayD<T> {
        ArrayD::from_shape_vec(IxDyn(self.dims()), self.to_vec())
            .expect("a tensor's elements fill its sizes")
    }

    /// The storage, read-locked, to view as an `ndarray` array without a
    /// copy ([`NdarrayGuard::view`]). Drop the guard before an operation
    /// that writes the same storage on the same thread.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![3]>::from([1., 2., 3.]);
    /// let b: Tensor<f32, Shape![2, 3]> = t.broadcast_to();
    /// let g = b.ndarray_view();
    /// assert_eq!(g.view().strides(), &[0, 1]);
    /// ```
    pub fn ndarray_view(&self) -> NdarrayGuard<'_, T> {
        NdarrayGuard {
            data: self.storage.read(),
            dims: self.dims().to_vec(),
            strides: self.strides().to_vec(),
            offset: self.offset,
        }
    }

    /// A tensor of the array's elements (in logical order), its sizes
    /// checked against `S`.
    ///
    /// # Errors
    /// When the array's sizes do not fit `S`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = ndarray::Array2::<i64>::zeros((2, 3));
    /// assert!(Tensor::<i64, Shape![2, 3]>::try_from_ndarray(&a).is_ok());
    /// assert_eq!(Tensor::<i64, Shape![3, _]>::try_from_ndarray(&a).unwrap_err().to_string(),
    ///     "expected size 3 at dimension 0, but got shape [2, 3]");
    /// ```
    pub fn try_from_ndarray<A, D>(array: &ArrayBase<A, D>) -> Result<Self, ShapeError>
    where
        A: Data<Elem = T>,
        D: Dimension,
    {
        Self::try_from_vec(array.iter().copied().collect(), array.shape())
    }
}

impl<T: Element, D: Dimension> From<Array<T, D>> for Tensor<T, DynRank> {
    /// The array's elements, moved without a copy when the array is in
    /// standard (row-major, unsliced) layout.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let t: Tensor<f32, DynRank> = ndarray::Array::linspace(0., 1., 3).into();
    /// assert_eq!(t.to_vec(), vec![0., 0.5, 1.]);
    /// ```
    fn from(array: Array<T, D>) -> Self {
        let dims = array.shape().to_vec();
        let data = if array.is_standard_layout() {
            let (v, offset) = array.into_raw_vec_and_offset();
            match offset {
                Some(0) | None => v,
                Some(o) => v[o..].to_vec(),
            }
        } else {
            array.iter().copied().collect()
        };
        Tensor::try_from_vec(data, &dims).expect("an array's elements fill its sizes")
    }
}

impl<T: Element, S: Shape> From<&Tensor<T, S>> for ArrayD<T> {
    /// As [`Tensor::to_ndarray`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = ndarray::ArrayD::from(&Tensor::<i32, Shape![2]>::from([1, 2]));
    /// assert_eq!(a.shape(), &[2]);
    /// ```
    fn from(t: &Tensor<T, S>) -> Self {
        t.to_ndarray()
    }
}
