//! The std traits: `PartialEq`/`Eq`/`Hash` (shape and values), `Default`,
//! conversions from arrays and `Vec`s, `from_slice`, `Not` for `bool`
//! tensors, and `UnwindSafe`.
//!
//! Conversions: a static shape is built infallibly from a (nested) array of
//! its sizes (`From<[[T; 3]; 2]>` for `Shape![2, 3]`; a size of 1 is the
//! type `One`, which these impls do not cover: use `from_vec`); every shape is built
//! fallibly from a `Vec` (`TryFrom<Vec<T>>`: the length checked, one dynamic
//! size inferred, `DynRank` 1-d); `FromIterator` builds `(Dyn,)` and
//! `DynRank` tensors. (An infallible `From<Vec<T>>` for the dynamic shapes
//! would make the one generic `TryFrom` impossible: coherence.)
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<i32, Shape![2, 2]>::from([[1, 2], [3, 4]]);
//! let b: Tensor<i32, Shape![2, 2]> = vec![1, 2, 3, 4].try_into().unwrap();
//! assert_eq!(a, b);
//! assert_ne!(a, b.transpose::<0, 1>());
//! ```

use core::hash::{Hash, Hasher};
use core::ops::Not;
use std::panic::{RefUnwindSafe, UnwindSafe};

use crate::device::Device;
use crate::element::Element;
use crate::shape::{Const, FixedShape, Shape, ShapeError};

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

impl<T: Element, const N: usize> From<[T; N]> for Tensor<T, (Const<N>,)> {
    /// A 1-d tensor of the array (`N` must not be 1: size 1 is `One`).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t: Tensor<f32, Shape![3]> = [1., 2., 3.].into();
    /// assert_eq!(t.to_vec(), vec![1., 2., 3.]);
    /// ```
    fn from(a: [T; N]) -> Self {
        Tensor::from_vec(a.to_vec())
    }
}

impl<T: Element, const M: usize, const N: usize> From<[[T; N]; M]>
    for Tensor<T, (Const<M>, Const<N>)>
{
    /// A 2-d tensor of the nested array, row-major.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 3]>::from([[1, 2, 3], [4, 5, 6]]);
    /// assert_eq!(t.get([1, 0]), 4);
    /// ```
    fn from(a: [[T; N]; M]) -> Self {
        Tensor::from_vec(a.iter().flatten().copied().collect())
    }
}

impl<T: Element, const L: usize, const M: usize, const N: usize> From<[[[T; N]; M]; L]>
    for Tensor<T, (Const<L>, Const<M>, Const<N>)>
{
    /// A 3-d tensor of the nested array, row-major.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<u8, Shape![2, 2, 2]>::from([[[0, 1], [2, 3]], [[4, 5], [6, 7]]]);
    /// assert_eq!(t.get([1, 1, 0]), 6);
    /// ```
    fn from(a: [[[T; N]; M]; L]) -> Self {
        Tensor::from_vec(a.iter().flatten().flatten().copied().collect())
    }
}

impl<T: Element, S: Shape> TryFrom<Vec<T>> for Tensor<T, S> {
    type Error = ShapeError;

    /// The elements, row-major. A static shape checks the length; one
    /// dynamic (`_`) size is inferred from it, as `reshape(-1)` infers;
    /// [`DynRank`](crate::DynRank) gives a 1-d tensor.
    ///
    /// # Errors
    /// When the length does not fit the shape (PyTorch's "shape '[2, 2]' is
    /// invalid for input of size 3"), or the shape has more than one dynamic
    /// size to infer.
    ///
    /// ```
    /// use shaped::{DynRank, Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2, 2]>::try_from(vec![1., 2., 3., 4.]).unwrap();
    /// assert_eq!(t.dims(), &[2, 2]);
    /// let e = Tensor::<f64, Shape![2, 2]>::try_from(vec![1., 2., 3.]).unwrap_err();
    /// assert_eq!(e.to_string(), "shape '[2, 2]' is invalid for input of size 3");
    /// let r: Tensor<f64, Shape![_, 3]> = vec![0.; 6].try_into().unwrap();
    /// assert_eq!(r.dims(), &[2, 3]);
    /// let d: Tensor<f64, DynRank> = vec![0.; 6].try_into().unwrap();
    /// assert_eq!(d.dims(), &[6]);
    /// ```
    fn try_from(data: Vec<T>) -> Result<Self, ShapeError> {
        let dims = inferred_dims::<S>(data.len())?;
        Self::try_from_vec(data, &dims)
    }
}

/// The sizes of `S` for `n` elements: static sizes as they are, one dynamic
/// size inferred (a size that does not divide is left for the caller's
/// element-count check to report), `[n]` for [`DynRank`].
fn inferred_dims<S: Shape>(n: usize) -> Result<Vec<usize>, ShapeError> {
    if S::RANK.is_none() {
        return Ok(vec![n]);
    }
    let fixed: usize = S::STATIC_DIMS.iter().flatten().product();
    let dynamic = S::STATIC_DIMS.iter().filter(|d| d.is_none()).count();
    if dynamic > 1 || (dynamic == 1 && fixed == 0) {
        return Err(ShapeError::Invalid(format!(
            "cannot infer the sizes of a shape with {dynamic} dynamic dimensions from {n} elements"
        )));
    }
    let inferred = n.checked_div(fixed).unwrap_or(0);
    Ok(S::STATIC_DIMS
        .iter()
        .map(|d| d.unwrap_or(inferred))
        .collect())
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
