//! Splitting: views of consecutive parts of one axis, the inverse of `cat`.
//! The axis is a const generic `K` and each part's size there is `Dyn`.
//!
//! `split(n)` cuts parts of `n` (the last one shorter), `chunk(n)` cuts `n`
//! parts of equal size rounded up (so possibly fewer than `n`), and
//! `split_with_sizes` cuts parts of the given sizes, which must add up to
//! the axis's size. The rules and messages are PyTorch's.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let t = Tensor::<i32, Shape![5]>::from_vec((0..5).collect());
//! let parts: Vec<Vec<i32>> = t.split::<0>(2).iter().map(|p| p.to_vec()).collect();
//! assert_eq!(parts, vec![vec![0, 1], vec![2, 3], vec![4]]);
//! assert_eq!(t.chunk::<0>(2).len(), 2);
//! ```

use crate::Tensor;
use crate::device::Device;
use crate::element::Element;
use crate::shape::OrPanic;
use crate::shape::{Dyn, SetAxis, Shape, ShapeError};
use crate::tensor::wrap_dim;

/// The parts' shape: `S` with a run-time size along `K`.
type Part<S, const K: usize> = <S as SetAxis<K, Dyn>>::Output;

/// The axis `k` of a tensor of rank `rank`, and `op`'s error for a 0-d one.
fn split_axis(op: &str, k: usize, rank: usize) -> Result<usize, ShapeError> {
    if rank == 0 {
        return Err(ShapeError::Invalid(format!(
            "{op} expects at least a 1-dimensional tensor"
        )));
    }
    wrap_dim(k as isize, rank)
}

/// An empty vector with room for `n` items, or the error PyTorch raises
/// where its `std::vector` cannot be made: "cannot create std::vector larger
/// than max_size()" past the address space, "std::bad_alloc" where the
/// allocator refuses. (`split(1)` of an expanded axis can ask for more parts
/// than memory holds.)
fn try_with_capacity<X>(n: usize) -> Result<Vec<X>, ShapeError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        let fits = n
            .checked_mul(core::mem::size_of::<X>())
            .is_some_and(|b| b <= isize::MAX as usize);
        ShapeError::Invalid(if fits {
            "std::bad_alloc".into()
        } else {
            "cannot create std::vector larger than max_size()".into()
        })
    })?;
    Ok(v)
}

/// PyTorch's `split` sizes for an axis of `size`.
fn split_sizes(size: usize, split_size: usize) -> Result<Vec<usize>, ShapeError> {
    if split_size == 0 && size != 0 {
        return Err(ShapeError::Invalid(format!(
            "split_size can only be 0 if dimension size is 0, but got dimension size of {size}"
        )));
    }
    if split_size == 0 {
        return Ok(vec![0]);
    }
    let n = size.div_ceil(split_size).max(1);
    let mut sizes = try_with_capacity(n)?;
    sizes.extend((0..n).map(|i| split_size.min(size - (i * split_size).min(size))));
    Ok(sizes)
}

/// PyTorch's `chunk` sizes for an axis of `size`.
fn chunk_sizes(size: usize, chunks: usize) -> Result<Vec<usize>, ShapeError> {
    if chunks == 0 {
        return Err(ShapeError::Invalid(
            "chunk expects `chunks` to be greater than 0, got: 0".into(),
        ));
    }
    if size == 0 {
        // `chunks` empty parts, as PyTorch keeps their number.
        let mut sizes = try_with_capacity(chunks)?;
        sizes.resize(chunks, 0);
        return Ok(sizes);
    }
    split_sizes(size, size.div_ceil(chunks))
}

impl<T: Element, S: Shape, D: Device> Tensor<T, S, D> {
    /// Views of consecutive parts of `sizes` along axis `K`, as
    /// `torch.split_with_sizes(self, sizes, K)`.
    ///
    /// # Errors
    /// `split_with_sizes expects split_sizes to sum exactly to 3 (input
    /// tensor's size at dimension 0), but got split_sizes=[1, 1]`; a 0-d
    /// tensor; for dynamic rank, an axis `K` it does not have.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![3]>::from_vec(vec![1, 2, 3]);
    /// let p = t.try_split_with_sizes::<0>(&[1, 0, 2]).unwrap();
    /// assert_eq!(p[2].to_vec(), vec![2, 3]);
    /// assert_eq!(t.try_split_with_sizes::<0>(&[1, 1]).err().unwrap().to_string(),
    ///     "split_with_sizes expects split_sizes to sum exactly to 3 (input tensor's size at dimension 0), but got split_sizes=[1, 1]");
    /// ```
    pub fn try_split_with_sizes<const K: usize>(
        &self,
        sizes: &[usize],
    ) -> Result<Vec<Tensor<T, Part<S, K>, D>>, ShapeError>
    where
        S: SetAxis<K, Dyn>,
    {
        let dim = split_axis("split_with_sizes", K, self.rank())?;
        let size = self.dims()[dim];
        if sizes.iter().try_fold(0usize, |a, &s| a.checked_add(s)) != Some(size) {
            return Err(ShapeError::Invalid(format!(
                "split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at dimension {dim}), but got split_sizes={sizes:?}"
            )));
        }
        let mut parts = try_with_capacity(sizes.len())?;
        let mut start = 0;
        for &len in sizes {
            parts.push(self.narrow(dim as isize, start, len)?);
            start += len;
        }
        Ok(parts)
    }

    /// Views of consecutive parts of `sizes` along axis `K`.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_split_with_sizes`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 3]>::from_vec((0..6).collect());
    /// let p = t.split_with_sizes::<1>(&[2, 1]);
    /// assert_eq!((p[0].dims(), p[1].to_vec()), (&[2, 2][..], vec![2, 5]));
    /// ```
    #[track_caller]
    pub fn split_with_sizes<const K: usize>(&self, sizes: &[usize]) -> Vec<Tensor<T, Part<S, K>, D>>
    where
        S: SetAxis<K, Dyn>,
    {
        self.try_split_with_sizes::<K>(sizes).or_panic()
    }

    /// Views of consecutive parts of `split_size` along axis `K` (the last
    /// one shorter), as `torch.split(self, split_size, K)`.
    ///
    /// # Errors
    /// `split_size can only be 0 if dimension size is 0, but got dimension
    /// size of 3`; `split expects at least a 1-dimensional tensor`; for
    /// dynamic rank, an axis `K` the tensor does not have.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![3]>::zeros();
    /// assert_eq!(t.try_split::<0>(5).unwrap().len(), 1);
    /// assert!(t.try_split::<0>(0).is_err());
    /// ```
    pub fn try_split<const K: usize>(
        &self,
        split_size: usize,
    ) -> Result<Vec<Tensor<T, Part<S, K>, D>>, ShapeError>
    where
        S: SetAxis<K, Dyn>,
    {
        let dim = split_axis("split", K, self.rank())?;
        self.try_split_with_sizes::<K>(&split_sizes(self.dims()[dim], split_size)?)
    }

    /// Views of consecutive parts of `split_size` along axis `K`.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_split`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 5]>::from_vec((0..10).collect());
    /// let p = t.split::<1>(2);
    /// assert_eq!(p.iter().map(|p| p.dims()[1]).collect::<Vec<_>>(), vec![2, 2, 1]);
    /// ```
    #[track_caller]
    pub fn split<const K: usize>(&self, split_size: usize) -> Vec<Tensor<T, Part<S, K>, D>>
    where
        S: SetAxis<K, Dyn>,
    {
        self.try_split::<K>(split_size).or_panic()
    }

    /// Views of `chunks` parts of equal size (rounded up, so possibly fewer
    /// parts) along axis `K`, as `torch.chunk(self, chunks, K)`.
    ///
    /// # Errors
    /// `chunk expects `chunks` to be greater than 0, got: 0`; `chunk expects
    /// at least a 1-dimensional tensor`; for dynamic rank, an axis `K` the
    /// tensor does not have.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![6]>::from_vec((0..6).collect());
    /// // ceil(6 / 4) = 2 per part: three parts, not four, as in PyTorch.
    /// assert_eq!(t.try_chunk::<0>(4).unwrap().len(), 3);
    /// ```
    pub fn try_chunk<const K: usize>(
        &self,
        chunks: usize,
    ) -> Result<Vec<Tensor<T, Part<S, K>, D>>, ShapeError>
    where
        S: SetAxis<K, Dyn>,
    {
        let dim = split_axis("chunk", K, self.rank())?;
        self.try_split_with_sizes::<K>(&chunk_sizes(self.dims()[dim], chunks)?)
    }

    /// Views of `chunks` parts of equal size along axis `K`.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_chunk`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![5]>::from_vec((0..5).collect());
    /// let p = t.chunk::<0>(2);
    /// assert_eq!((p[0].to_vec(), p[1].to_vec()), (vec![0, 1, 2], vec![3, 4]));
    /// ```
    #[track_caller]
    pub fn chunk<const K: usize>(&self, chunks: usize) -> Vec<Tensor<T, Part<S, K>, D>>
    where
        S: SetAxis<K, Dyn>,
    {
        self.try_chunk::<K>(chunks).or_panic()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_pytorch() {
        assert_eq!(split_sizes(5, 2).unwrap(), vec![2, 2, 1]);
        assert_eq!(split_sizes(3, 5).unwrap(), vec![3]);
        assert_eq!(split_sizes(0, 0).unwrap(), vec![0]);
        assert_eq!(split_sizes(0, 2).unwrap(), vec![0]);
        assert_eq!(chunk_sizes(6, 4).unwrap(), vec![2, 2, 2]);
        assert_eq!(chunk_sizes(5, 2).unwrap(), vec![3, 2]);
        assert_eq!(chunk_sizes(0, 3).unwrap(), vec![0, 0, 0]);
    }
}
