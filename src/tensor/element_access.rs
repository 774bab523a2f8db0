//! Element access: `get` / `set` by index, and the elements of a contiguous
//! tensor as a slice (`as_slice`, `as_mut_slice`) behind a lock guard.
//!
//! # Why not `Index` / `IndexMut`
//!
//! A tensor's elements live in storage shared with its views and guarded by
//! a lock (kernels on other threads may read or write the same storage), so
//! a bare `&T` or `&mut T` into it cannot outlive a lock guard, and
//! `Index::index` has nowhere to keep one. `shaped` offers instead:
//! - `t.get([i, j])` (a copy of the element) and `t.set([i, j], v)`, with
//!   PyTorch's out-of-bounds message, and `try_` forms returning the error;
//! - `t.as_slice()` / `t.as_mut_slice()`: `Some(guard)` when the tensor is
//!   contiguous, a guard that derefs to `[T]` in row-major order and holds
//!   the lock while it lives (drop it before running an operation that
//!   writes the same storage on the same thread).
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let t = Tensor::<i32, Shape![2, 3]>::from_vec(vec![0, 1, 2, 3, 4, 5]);
//! assert_eq!(t.get([1, 2]), 5);
//! t.set([1, 2], 50);
//! assert_eq!(&t.as_slice().unwrap()[3..], &[3, 4, 50]);
//! assert!(t.transpose::<0, 1>().as_slice().is_none());
//! ```

use crate::shape::OrPanic;
use core::ops::{Deref, DerefMut, Range};

use crate::backend::cpu::storage::{Read, Write};

use crate::element::Element;
use crate::shape::{Shape, ShapeError};

use super::Tensor;

/// The elements of a contiguous tensor, read-locked; derefs to `[T]`.
///
/// ```
/// use shaped::{Shape, Tensor};
/// let t = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
/// let s = t.as_slice().unwrap();
/// assert_eq!(s.iter().sum::<f32>(), 6.);
/// ```
pub struct SliceGuard<'a, T> {
    guard: Read<'a, T>,
    range: Range<usize>,
}

impl<T> Deref for SliceGuard<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.guard[self.range.clone()]
    }
}

/// The elements of a contiguous tensor, write-locked; derefs to `&mut [T]`.
///
/// ```
/// use shaped::{Shape, Tensor};
/// let t = Tensor::<f32, Shape![3]>::zeros();
/// t.as_mut_slice().unwrap()[1] = 7.;
/// assert_eq!(t.to_vec(), vec![0., 7., 0.]);
/// ```
pub struct SliceGuardMut<'a, T> {
    guard: Write<'a, T>,
    range: Range<usize>,
}

impl<T> Deref for SliceGuardMut<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        &self.guard[self.range.clone()]
    }
}

impl<T> DerefMut for SliceGuardMut<'_, T> {
    fn deref_mut(&mut self) -> &mut [T] {
        &mut self.guard[self.range.clone()]
    }
}

impl<T: Element, S: Shape> Tensor<T, S> {
    /// The storage range of the elements when contiguous (empty tensors too).
    fn contiguous_range(&self) -> Option<Range<usize>> {
        if !self.is_contiguous() {
            return None;
        }
        if self.numel() == 0 {
            return Some(0..0);
        }
        Some(self.offset..self.offset + self.numel())
    }

    /// The elements in row-major order, without a copy, when the tensor is
    /// contiguous; `None` otherwise (use [`to_vec`](Tensor::to_vec) or
    /// [`iter`](Tensor::iter) there). The guard holds a read lock on the
    /// storage while it lives.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<u8, Shape![2, 2]>::from_vec(vec![1, 2, 3, 4]);
    /// assert_eq!(&*t.as_slice().unwrap(), &[1, 2, 3, 4]);
    /// ```
    pub fn as_slice(&self) -> Option<SliceGuard<'_, T>> {
        let range = self.contiguous_range()?;
        Some(SliceGuard {
            guard: self.storage.read(),
            range,
        })
    }

    /// The elements in row-major order, writable in place, when the tensor
    /// is contiguous; `None` otherwise. Writes show through every view of the
    /// same storage. The guard holds the write lock while it lives.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i64, Shape![2, 2]>::zeros();
    /// t.as_mut_slice().unwrap().copy_from_slice(&[1, 2, 3, 4]);
    /// assert_eq!(t.transpose::<0, 1>().to_vec(), vec![1, 3, 2, 4]);
    /// ```
    pub fn as_mut_slice(&self) -> Option<SliceGuardMut<'_, T>> {
        let range = self.contiguous_range()?;
        Some(SliceGuardMut {
            guard: self.storage.write(),
            range,
        })
    }

    /// The storage position of the element at `index`, checked as PyTorch
    /// checks an index.
    fn position(&self, index: &[usize]) -> Result<usize, ShapeError> {
        if index.len() > self.rank() {
            return Err(ShapeError::Invalid(format!(
                "too many indices for tensor of dimension {}",
                self.rank()
            )));
        }
        if index.len() < self.rank() {
            return Err(ShapeError::Invalid(format!(
                "an element of a tensor of dimension {} needs {} indices, got {}",
                self.rank(),
                self.rank(),
                index.len()
            )));
        }
        let mut pos = self.offset;
        for (dim, ((&i, &size), &stride)) in index
            .iter()
            .zip(self.dims())
            .zip(self.strides())
            .enumerate()
        {
            if i >= size {
                return Err(ShapeError::Invalid(format!(
                    "index {i} is out of bounds for dimension {dim} with size {size}"
                )));
            }
            pos += i * stride;
        }
        Ok(pos)
    }

    /// The element at `index` (one index per dimension).
    ///
    /// # Errors
    /// When an index is out of bounds (PyTorch's "index 3 is out of bounds
    /// for dimension 0 with size 3"), or the number of indices is not the
    /// rank.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let t = Tensor::<f32, DynRank>::try_from_vec(vec![1., 2., 3.], &[3]).unwrap();
    /// assert_eq!(t.try_get(&[2]).unwrap(), 3.);
    /// assert_eq!(t.try_get(&[3]).unwrap_err().to_string(),
    ///     "index 3 is out of bounds for dimension 0 with size 3");
    /// ```
    pub fn try_get(&self, index: &[usize]) -> Result<T, ShapeError> {
        let pos = self.position(index)?;
        Ok(self.storage.read()[pos])
    }

    /// The element at `index`, as [`try_get`](Tensor::try_get).
    ///
    /// # Panics
    /// Where `try_get` returns an error, with its message.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 2]>::from_vec(vec![1, 2, 3, 4]);
    /// assert_eq!(t.transpose::<0, 1>().get([0, 1]), 3);
    /// ```
    #[track_caller]
    pub fn get<const R: usize>(&self, index: [usize; R]) -> T {
        self.try_get(&index).or_panic()
    }

    /// Writes `value` at `index`, in the storage shared with every view.
    ///
    /// # Errors
    /// As [`try_get`](Tensor::try_get).
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let t = Tensor::<u8, DynRank>::try_zeros(&[2]).unwrap();
    /// t.try_set(&[1], 9).unwrap();
    /// assert_eq!(t.to_vec(), vec![0, 9]);
    /// ```
    pub fn try_set(&self, index: &[usize], value: T) -> Result<(), ShapeError> {
        let pos = self.position(index)?;
        self.storage.write()[pos] = value;
        Ok(())
    }

    /// Writes `value` at `index`, as [`try_set`](Tensor::try_set).
    ///
    /// # Panics
    /// Where `try_set` returns an error, with its message.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f64, Shape![2, 2]>::zeros();
    /// t.set([0, 1], 5.);
    /// assert_eq!(t.to_vec(), vec![0., 5., 0., 0.]);
    /// ```
    #[track_caller]
    pub fn set<const R: usize>(&self, index: [usize; R], value: T) {
        self.try_set(&index, value).or_panic()
    }
}
