//! The std traits: `PartialEq`/`Eq`/`Hash` (shape and values), `Default`,
//! `from_slice`, `Not` for `bool` tensors, and `UnwindSafe`. (`From` arrays
//! and `Vec`s: `convert.rs`; `FromIterator`: `elements.rs`.)
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<i32, Shape![2, 2]>::from([[1, 2], [3, 4]]);
//! let b = Tensor::<i32, Shape![2, 2]>::from_slice(&[1, 2, 3, 4]);
//! assert_eq!(a, b);
//! assert_ne!(a, b.transpose::<0, 1>());
//! ```

use core::hash::{Hash, Hasher};
use core::ops::Not;
use std::panic::{RefUnwindSafe, UnwindSafe};

use crate::device::Device;
use crate::element::Element;
use crate::shape::{FixedShape, Shape, ShapeError};

use super::Tensor;

impl<T: Element, S: Shape, S2: Shape> PartialEq<Tensor<T, S2>> for Tensor<T, S> {
    /// Equal sizes and equal elements (by `T`'s `==`, so a NaN makes two
    /// float tensors unequal); the shape types may differ.
    ///
    /// ```
    /// use shaped::{DynRank, Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2]>::from([1., 2.]);
    /// let d = Tensor::<f32, DynRank>::try_from_vec(vec![1., 2.], &[2]).unwrap();
    /// assert_eq!(a, d);
    /// assert_ne!(a, Tensor::<f32, Shape![2, 1]>::from_vec(vec![1., 2.]));
    /// ```
    fn eq(&self, other: &Tensor<T, S2>) -> bool {
        self.dims() == other.dims() && self.iter().eq(other.iter())
    }
}

impl<T: Element + Eq, S: Shape> Eq for Tensor<T, S> {}

impl<T: Element + Hash, S: Shape> Hash for Tensor<T, S> {
    /// Hashes the sizes and the elements in logical order, so that equal
    /// tensors hash alike whatever their strides.
    ///
    /// ```
    /// use std::collections::HashSet;
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i64, Shape![2, 2]>::from([[1, 3], [2, 4]]);
    /// let b = Tensor::<i64, Shape![2, 2]>::from([[1, 2], [3, 4]]).transpose::<0, 1>();
    /// let set: HashSet<_> = [a, b].into_iter().collect();
    /// assert_eq!(set.len(), 1);
    /// ```
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.dims().hash(state);
        for x in self.iter() {
            x.hash(state);
        }
    }
}

impl<T: Element, S: FixedShape> Default for Tensor<T, S> {
    /// A tensor of `T::default()` (zeros, or `false`).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<u16, Shape![2]>::default().to_vec(), vec![0, 0]);
    /// ```
    fn default() -> Self {
        Self::zeros()
    }
}

impl<T: Element, S: Shape> Tensor<T, S> {
    /// A tensor of sizes `dims` over a copy of `data` (row-major).
    ///
    /// # Errors
    /// As [`try_from_vec`](Tensor::try_from_vec).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![_, 2]>::try_from_slice(&[1., 2., 3., 4.], &[2, 2]).unwrap();
    /// assert_eq!(t.get([1, 1]), 4.);
    /// ```
    pub fn try_from_slice(data: &[T], dims: &[usize]) -> Result<Self, ShapeError> {
        Self::try_from_vec(data.to_vec(), dims)
    }
}

impl<T: Element, S: FixedShape> Tensor<T, S> {
    /// A tensor over a copy of `data` (row-major).
    ///
    /// # Panics
    /// When `data.len()` is not the shape's number of elements, with
    /// PyTorch's "shape '[2, 2]' is invalid for input of size 3".
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i8, Shape![2, 2]>::from_slice(&[1, 2, 3, 4]);
    /// assert_eq!(t.get([1, 0]), 3);
    /// ```
    #[track_caller]
    pub fn from_slice(data: &[T]) -> Self {
        Self::from_vec(data.to_vec())
    }
}

impl<S: Shape> Not for &Tensor<bool, S> {
    type Output = Tensor<bool, S>;

    /// Elementwise logical not (PyTorch's `~t` on a bool tensor).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<bool, Shape![2]>::from([true, false]);
    /// assert_eq!((!&t).to_vec(), vec![false, true]);
    /// ```
    fn not(self) -> Tensor<bool, S> {
        let data: Vec<bool> = self.iter().map(|b| !b).collect();
        Tensor::from_parts(data, self.dims.clone())
    }
}

impl<S: Shape> Not for Tensor<bool, S> {
    type Output = Tensor<bool, S>;

    /// Elementwise logical not.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<bool, Shape![2, 2]>::from([[true, false], [false, false]]);
    /// assert_eq!((!t).to_vec(), vec![false, true, true, true]);
    /// ```
    fn not(self) -> Tensor<bool, S> {
        !&self
    }
}

/// A panic cannot leave a tensor's storage in a state that breaks its
/// invariants: the elements are `Copy` values, the sizes and strides of a
/// handle never change in place, and the storage's lock (parking_lot's)
/// does not poison. At worst a panic mid-operation leaves some elements of
/// an in-place write updated and some not, as with any `&mut [T]`.
impl<T: Element, S: Shape, D: Device> UnwindSafe for Tensor<T, S, D> {}

/// See the `UnwindSafe` impl.
impl<T: Element, S: Shape, D: Device> RefUnwindSafe for Tensor<T, S, D> {}
