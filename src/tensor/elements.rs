//! Iterating over a tensor's elements in logical (row-major) order, views
//! included: `iter()`, `IntoIterator` for `&Tensor` and `Tensor`, and
//! `FromIterator` into a 1-d tensor.
//!
//! ```
//! use shaped::{Dyn, Shape, Tensor};
//! let t = Tensor::<i32, Shape![2, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]);
//! let col_major: Vec<i32> = t.transpose::<0, 1>().iter().collect();
//! assert_eq!(col_major, vec![1, 4, 2, 5, 3, 6]);
//! let doubled: Tensor<i32, (Dyn,)> = t.iter().map(|x| 2 * x).collect();
//! assert_eq!(doubled.dims(), &[6]);
//! ```

use crate::backend::cpu::storage::Read;

use crate::element::Element;
use crate::shape::{Dyn, DynRank, Shape};

use super::Tensor;

/// The elements of a tensor in row-major order of its logical index; holds
/// a read lock on the storage while it lives.
///
/// ```
/// use shaped::{Shape, Tensor};
/// let t = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
/// let mut it = t.iter();
/// assert_eq!(it.len(), 2);
/// assert_eq!((it.next(), it.next(), it.next()), (Some(1.), Some(2.), None));
/// ```
pub struct Iter<'a, T> {
    data: Read<'a, T>,
    dims: Vec<usize>,
    strides: Vec<usize>,
    index: Vec<usize>,
    pos: usize,
    left: usize,
}

impl<T: Copy> Iterator for Iter<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        if self.left == 0 {
            return None;
        }
        let x = self.data[self.pos];
        self.left -= 1;
        // Odometer step: the last index moves fastest.
        for d in (0..self.dims.len()).rev() {
            self.index[d] += 1;
            self.pos += self.strides[d];
            if self.index[d] < self.dims[d] {
                break;
            }
            self.pos -= self.strides[d] * self.dims[d];
            self.index[d] = 0;
        }
        Some(x)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<T: Copy> ExactSizeIterator for Iter<'_, T> {}

impl<T: Element, S: Shape> Tensor<T, S> {
    /// The elements in logical row-major order (a view's order, not its
    /// storage's), by value.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<u8, Shape![3]>::from_vec(vec![1, 2, 3]);
    /// let e: Tensor<u8, Shape![2, 3]> = t.broadcast_to();
    /// assert_eq!(e.iter().map(u32::from).sum::<u32>(), 12);
    /// ```
    pub fn iter(&self) -> Iter<'_, T> {
        let left = self.numel();
        Iter {
            data: self.storage.read(),
            dims: self.dims().to_vec(),
            strides: self.strides().to_vec(),
            index: vec![0; self.rank()],
            pos: self.offset,
            left,
        }
    }
}

impl<'a, T: Element, S: Shape> IntoIterator for &'a Tensor<T, S> {
    type Item = T;
    type IntoIter = Iter<'a, T>;

    /// As [`Tensor::iter`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i64, Shape![2]>::from_vec(vec![3, 4]);
    /// let mut sum = 0;
    /// for x in &t { sum += x; }
    /// assert_eq!(sum, 7);
    /// ```
    fn into_iter(self) -> Iter<'a, T> {
        self.iter()
    }
}

impl<T: Element, S: Shape> IntoIterator for Tensor<T, S> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    /// The elements in logical row-major order, by value.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i64, Shape![2, 2]>::from_vec(vec![1, 2, 3, 4]).transpose::<0, 1>();
    /// assert_eq!(t.into_iter().collect::<Vec<_>>(), vec![1, 3, 2, 4]);
    /// ```
    fn into_iter(self) -> Self::IntoIter {
        self.to_vec().into_iter()
    }
}

impl<T: Element> FromIterator<T> for Tensor<T, (Dyn,)> {
    /// A 1-d tensor of the items.
    ///
    /// ```
    /// use shaped::{Dyn, Tensor};
    /// let t: Tensor<f64, (Dyn,)> = (0..4).map(f64::from).collect();
    /// assert_eq!(t.to_vec(), vec![0., 1., 2., 3.]);
    /// ```
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let data: Vec<T> = iter.into_iter().collect();
        let n = data.len();
        Tensor::try_from_vec(data, &[n]).expect("a 1-d shape fits any length")
    }
}

impl<T: Element> FromIterator<T> for Tensor<T, DynRank> {
    /// A 1-d tensor of the items.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let t: Tensor<bool, DynRank> = [true, false].into_iter().collect();
    /// assert_eq!(t.dims(), &[2]);
    /// ```
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let data: Vec<T> = iter.into_iter().collect();
        let n = data.len();
        Tensor::try_from_vec(data, &[n]).expect("a 1-d shape fits any length")
    }
}
