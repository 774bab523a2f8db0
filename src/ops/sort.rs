//! `sort` and `topk` along the last axis, with the positions the values
//! came from, as `torch.sort(t, dim=-1, stable=True)` and
//! `torch.topk(t, k, dim=-1, largest=True, sorted=True)`.
//!
//! Order: NaN is larger than every number (so it comes last ascending and
//! first descending, as in PyTorch), `-0.0` equals `0.0`, and equal values
//! keep their original order (stable), descending too. `topk` gives the
//! first `k` of the stable descending sort: among equal values the lower
//! index first (PyTorch leaves the order of ties unspecified).
//!
//! `topk`'s result has the last axis `Dyn` in its type
//! ([`SetLastAxis<Dyn>`](crate::shape::SetLastAxis)), since `k` is known at
//! run time; `sort` keeps the shape.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let t = Tensor::<f32, Shape![2, 3]>::from_vec(vec![3., 1., 2., f32::NAN, 0., 5.]);
//! let (v, i) = t.sort(false);
//! assert_eq!(i.to_vec(), vec![1, 2, 0, 1, 2, 0]);
//! assert_eq!(v.to_vec()[..3], [1., 2., 3.]);
//! let (v, i): (Tensor<f32, Shape![2, _]>, _) = t.topk(1);
//! assert_eq!(i.to_vec(), vec![0, 0]);
//! assert!(v.to_vec()[1].is_nan());
//! ```
//!
//! # Design
//! The values are read to the host, each row's positions sorted there (on
//! a slice, generic over the element type only), and the results written
//! back on the tensor's device: on the CPU that is one copy in and out;
//! a CUDA tensor makes a round trip through host memory.

use crate::tensor::host;
use core::cmp::Ordering;

use crate::Tensor;
use crate::backend::Backend;
use crate::element::{Element, Numeric};
use crate::shape::{Dyn, OrPanic, SetLastAxis, Shape, ShapeError};

/// Values and their `i64` positions along the last axis.
type Sorted<T, S, D> = (Tensor<T, S, D>, Tensor<i64, S, D>);

/// `a` against `b` with NaN larger than every number and equal to itself:
/// PyTorch's sort order.
fn nan_last<T: Element>(a: &T, b: &T) -> Ordering {
    #[allow(clippy::eq_op)] // `x != x` is the NaN test for every element type.
    match (a != a, b != b) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => a.partial_cmp(b).unwrap_or(Ordering::Equal),
    }
}

/// The positions of the first `k` elements of `row` in the stable sort
/// (ascending or `descending`), in that order.
fn first_k<T: Element>(row: &[T], descending: bool, k: usize) -> Vec<usize> {
    // Ties broken by position make the order total, so any sort (or
    // selection) gives the stable sort's answer.
    let by = |&i: &usize, &j: &usize| {
        let o = nan_last(&row[i], &row[j]);
        let o = if descending { o.reverse() } else { o };
        o.then(i.cmp(&j))
    };
    let mut pos: Vec<usize> = (0..row.len()).collect();
    if k == 0 {
        return Vec::new();
    }
    if k < pos.len() {
        pos.select_nth_unstable_by(k - 1, by);
        pos.truncate(k);
    }
    pos.sort_unstable_by(by);
    pos
}

/// The first `k` of every row of `data` (rows of `n`): values and
/// positions, row after row.
fn rows_first_k<T: Element>(
    data: &[T],
    n: usize,
    descending: bool,
    k: usize,
) -> (Vec<T>, Vec<i64>) {
    // With `n == 0` there is no element, so no row.
    let rows = data.len() / n.max(1);
    let (mut values, mut index) = (Vec::with_capacity(rows * k), Vec::with_capacity(rows * k));
    for row in data.chunks_exact(n.max(1)) {
        for p in first_k(row, descending, k) {
            values.push(row[p]);
            index.push(p as i64);
        }
    }
    (values, index)
}

/// The first `k` along the last axis of `t` (a 0-d tensor is one row of
/// one element and stays 0-d), as tensors of shape `SO` on `t`'s device.
fn first_k_along_last<T: Element, SO: Shape, D: Backend<T> + Backend<i64>>(
    t: &Tensor<T, impl Shape, D>,
    descending: bool,
    k: usize,
) -> Result<Sorted<T, SO, D>, <D as crate::device::Device>::Error> {
    let n = t.dims().last().copied().unwrap_or(1);
    let mut dims = t.dims().to_vec();
    if let Some(last) = dims.last_mut() {
        *last = k;
    }
    let data = host::to_host(t)?;
    let (values, index) = rows_first_k(&data, n, descending, k.min(n));
    let values = host::from_host(t, values, &dims)?;
    let index = host::from_host(t, index, &dims)?;
    Ok((values, index))
}

impl<T: Element, S: Shape, D: Backend<T> + Backend<i64>> Tensor<T, S, D> {
    /// The elements of each row (along the last axis) sorted, ascending or
    /// `descending`, and where each came from, as
    /// `torch.sort(t, dim=-1, descending=descending, stable=True)`. NaN
    /// sorts as the largest value; equal values keep their order.
    ///
    /// # Errors
    /// Only the device's (an allocation or driver error).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![5]>::from_vec(vec![2, 7, 2, 1, 7]);
    /// let (v, i) = t.try_sort(true).unwrap();
    /// assert_eq!(v.to_vec(), vec![7, 7, 2, 2, 1]);
    /// assert_eq!(i.to_vec(), vec![1, 4, 0, 2, 3]);
    /// ```
    pub fn try_sort(
        &self,
        descending: bool,
    ) -> Result<Sorted<T, S, D>, <D as crate::device::Device>::Error> {
        let n = self.dims().last().copied().unwrap_or(1);
        first_k_along_last(self, descending, n)
    }

    /// The elements of each row sorted, and where each came from; see
    /// [`Tensor::try_sort`].
    ///
    /// # Panics
    /// On a device error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![4]>::from_vec(vec![1., f32::NAN, -f32::INFINITY, 0.]);
    /// let (v, i) = t.sort(false);
    /// assert_eq!(i.to_vec(), vec![2, 3, 0, 1]);
    /// assert!(v.to_vec()[3].is_nan());
    /// ```
    #[track_caller]
    pub fn sort(&self, descending: bool) -> Sorted<T, S, D> {
        self.try_sort(descending).or_panic()
    }
}

impl<T: Numeric, S: Shape, D: Backend<T> + Backend<i64>> Tensor<T, S, D> {
    /// The `k` largest elements of each row (along the last axis), largest
    /// first, and where each came from, as `torch.topk(t, k, dim=-1)`
    /// (`largest=True, sorted=True`). NaN counts as the largest value;
    /// among equal values the lower index comes first. The last axis of the
    /// result is `Dyn`, of size `k`.
    ///
    /// # Errors
    /// PyTorch's `selected index k out of range` when `k` exceeds the
    /// length of the last axis; a device error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2, 4]>::from_vec(vec![1., 9., 3., 7., 0., 0., 5., 0.]);
    /// let (v, i): (Tensor<f32, Shape![2, _]>, Tensor<i64, Shape![2, _]>) = t.try_topk(2).unwrap();
    /// assert_eq!(v.to_vec(), vec![9., 7., 5., 0.]);
    /// assert_eq!(i.to_vec(), vec![1, 3, 2, 0]);
    /// assert_eq!(t.try_topk(5).unwrap_err().to_string(), "selected index k out of range");
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn try_topk(
        &self,
        k: usize,
    ) -> Result<Sorted<T, <S as SetLastAxis<Dyn>>::Output, D>, <D as crate::device::Device>::Error>
    where
        S: SetLastAxis<Dyn>,
    {
        let n = self.dims().last().copied().unwrap_or(1);
        if k > n {
            return Err(ShapeError::Invalid("selected index k out of range".into()).into());
        }
        first_k_along_last(self, true, k)
    }

    /// The `k` largest elements of each row, largest first, and where each
    /// came from; see [`Tensor::try_topk`].
    ///
    /// # Panics
    /// With the message of [`Tensor::try_topk`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let logits = Tensor::<f32, Shape![5]>::from_vec(vec![0.1, 2.0, -1.0, 3.0, 2.0]);
    /// let (v, i) = logits.topk(3);
    /// assert_eq!(v.to_vec(), vec![3.0, 2.0, 2.0]);
    /// assert_eq!(i.to_vec(), vec![3, 1, 4]);
    /// ```
    #[track_caller]
    pub fn topk(&self, k: usize) -> Sorted<T, <S as SetLastAxis<Dyn>>::Output, D>
    where
        S: SetLastAxis<Dyn>,
    {
        self.try_topk(k).or_panic()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Against the definition: positions sorted by a plain stable sort.
    #[test]
    fn first_k_is_a_prefix_of_the_stable_sort() {
        let row = [3.0, f64::NAN, 1.0, 3.0, -0.0, 0.0, f64::NAN, 2.0];
        for descending in [false, true] {
            let mut want: Vec<usize> = (0..row.len()).collect();
            want.sort_by(|&i, &j| {
                let o = nan_last(&row[i], &row[j]);
                if descending { o.reverse() } else { o }
            });
            for k in 0..=row.len() {
                assert_eq!(first_k(&row, descending, k), want[..k], "k {k}");
            }
        }
    }
}
