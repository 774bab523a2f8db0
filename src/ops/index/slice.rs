//! Basic indexing, always a view: an integer picks one position and removes
//! the axis (`select`), a range keeps a part of it (`slice`, with an optional
//! step), `..` keeps it whole. The macros [`index!`](crate::index) and
//! [`try_index!`](crate::try_index) index several axes at once, as `t[.., 2,
//! 1:3]` does in PyTorch.
//!
//! Result types: on axis `K`, an integer gives
//! [`RemoveAxis<K>::Output`](crate::shape::RemoveAxis); a range gives
//! [`SetAxis<K, Dyn>::Output`](crate::shape::SetAxis) (its length is known at
//! run time; state it with [`Tensor::try_into_shape`]); `..` keeps the type.
//!
//! Integers count from the end when negative and must be in `-size..size`
//! (`index 5 is out of bounds for dimension 0 with size 3`). Range bounds
//! also count from the end when negative and are clamped to the axis, as in
//! Python and PyTorch, so a range never fails; a step must be positive.
//!
//! ```
//! use shaped::{index, Shape, Tensor};
//! let t = Tensor::<i32, Shape![2, 3, 4]>::from_vec((0..24).collect());
//! let v: Tensor<i32, Shape![2, _]> = index!(t, .., 2, 1..3);
//! assert_eq!(v.to_vec(), vec![9, 10, 21, 22]);
//! let w = index!(t, -1, .., 0..4;2);
//! assert_eq!(w.to_vec(), vec![12, 14, 16, 18, 20, 22]);
//! ```

use crate::shape::OrPanic;
use core::ops::{Bound, Range, RangeFrom, RangeFull, RangeInclusive, RangeTo, RangeToInclusive};

use crate::Tensor;
use crate::device::Device;
use crate::element::Element;
use crate::shape::{DimVec, Dyn, RemoveAxis, SetAxis, Shape, ShapeError};

use super::out_of_bounds;

/// A range that can slice an axis: `a..b`, `a..`, `..b`, `a..=b`, `..=b`
/// (of `i32`, `i64`, `isize` or `usize`), `..`, or a pair of [`Bound`]s.
/// Negative bounds count from the end.
///
/// ```
/// use shaped::ops::index::AxisRange;
/// use core::ops::Bound;
/// assert_eq!((1..=-2).bounds(), (Bound::Included(1), Bound::Excluded(-1)));
/// assert_eq!((..=-1).bounds(), (Bound::Unbounded, Bound::Unbounded));
/// ```
pub trait AxisRange {
    /// The start and end, the end exclusive or open.
    fn bounds(self) -> (Bound<isize>, Bound<isize>);
}

/// An inclusive end as an exclusive one: `..=-1` reaches the last element.
fn inclusive_end(e: isize) -> Bound<isize> {
    if e == -1 {
        Bound::Unbounded
    } else {
        Bound::Excluded(e.saturating_add(1))
    }
}

/// A bound converted to `isize`, saturating (a huge bound is clamped anyway).
fn to_isize<X: TryInto<isize>>(x: X) -> isize {
    x.try_into().unwrap_or(isize::MAX)
}

macro_rules! axis_ranges {
    ($($x:ty),*) => {$(
        impl AxisRange for Range<$x> {
            fn bounds(self) -> (Bound<isize>, Bound<isize>) {
                (Bound::Included(to_isize(self.start)), Bound::Excluded(to_isize(self.end)))
            }
        }
        impl AxisRange for RangeFrom<$x> {
            fn bounds(self) -> (Bound<isize>, Bound<isize>) {
                (Bound::Included(to_isize(self.start)), Bound::Unbounded)
            }
        }
        impl AxisRange for RangeTo<$x> {
            fn bounds(self) -> (Bound<isize>, Bound<isize>) {
                (Bound::Unbounded, Bound::Excluded(to_isize(self.end)))
            }
        }
        impl AxisRange for RangeInclusive<$x> {
            fn bounds(self) -> (Bound<isize>, Bound<isize>) {
                let (s, e) = self.into_inner();
                (Bound::Included(to_isize(s)), inclusive_end(to_isize(e)))
            }
        }
        impl AxisRange for RangeToInclusive<$x> {
            fn bounds(self) -> (Bound<isize>, Bound<isize>) {
                (Bound::Unbounded, inclusive_end(to_isize(self.end)))
            }
        }
    )*};
}
axis_ranges!(i32, i64, isize, usize);

impl AxisRange for RangeFull {
    fn bounds(self) -> (Bound<isize>, Bound<isize>) {
        (Bound::Unbounded, Bound::Unbounded)
    }
}

impl AxisRange for (Bound<isize>, Bound<isize>) {
    fn bounds(self) -> (Bound<isize>, Bound<isize>) {
        self
    }
}

/// A range with a step, as `a:b:step` in Python; written `a..b;step` in
/// [`index!`](crate::index).
///
/// ```
/// use shaped::{ops::index::Stepped, Shape, Tensor};
/// let t = Tensor::<i32, Shape![5]>::from_vec(vec![0, 1, 2, 3, 4]);
/// let v = t.try_index_axis::<0, _>(Stepped::new(.., 2)).unwrap();
/// assert_eq!(v.to_vec(), vec![0, 2, 4]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stepped<R> {
    /// The range.
    pub range: R,
    /// The step, at least 1.
    pub step: usize,
}

impl<R: AxisRange> Stepped<R> {
    /// `range` taken every `step` elements.
    ///
    /// ```
    /// use shaped::ops::index::Stepped;
    /// assert_eq!(Stepped::new(1..7, 3).step, 3);
    /// ```
    pub fn new(range: R, step: usize) -> Self {
        Stepped { range, step }
    }
}

/// One entry of an index on axis `K` of a tensor of shape `S`: an integer
/// (removes the axis), a range or a [`Stepped`] range (narrows it, to a `Dyn`
/// size), or `..` (keeps it). The building block of
/// [`index!`](crate::index).
///
/// ```
/// use shaped::{ops::index::AxisIndex, Shape, Tensor};
/// let t = Tensor::<i32, Shape![2, 3]>::from_vec((0..6).collect());
/// let col: Tensor<i32, Shape![2]> = AxisIndex::<_, 1>::index_axis(-1, &t).unwrap();
/// assert_eq!(col.to_vec(), vec![2, 5]);
/// ```
#[diagnostic::on_unimplemented(
    message = "cannot index axis {K} of a tensor of shape `{S}` with `{Self}`",
    label = "axis {K} does not exist in `{S}`, or `{Self}` is not an index entry",
    note = "a tensor of rank r takes at most r index entries, for axes 0..r",
    note = "an entry is an integer (removes the axis), a range `a..b`, `a..`, `..b`, `a..=b` (narrows it), `a..b;step`, or `..` (keeps it)"
)]
pub trait AxisIndex<S: Shape, const K: usize> {
    /// The shape of the result.
    type Output: Shape;

    /// The view of `t` this entry picks on axis `K`.
    ///
    /// # Errors
    /// An integer out of range, a zero step, or (for dynamic rank) an axis
    /// `K` the tensor does not have.
    fn index_axis<T: Element, D: Device>(
        self,
        t: &Tensor<T, S, D>,
    ) -> Result<Tensor<T, Self::Output, D>, ShapeError>;
}

/// [`AxisIndex`] behind one blanket impl, for [`index!`](crate::index):
/// [`index_entry`] names its `Output` in its bounds, so that a bad entry (an
/// axis past the rank, a value that is no entry) is one error at the macro,
/// with the failing rule's message and no quote of the bounds.
///
/// ```
/// use shaped::{Shape, Tensor, ops::index::IndexEntry};
/// let t = Tensor::<i32, Shape![2, 3]>::from_vec((0..6).collect());
/// let row: Tensor<i32, Shape![3]> = IndexEntry::<_, 0>::index_entry(1, &t).unwrap();
/// assert_eq!(row.to_vec(), vec![3, 4, 5]);
/// ```
#[doc(hidden)]
pub trait IndexEntry<S: Shape, const K: usize> {
    /// The shape of the result.
    type Output: Shape;

    /// [`AxisIndex::index_axis`].
    ///
    /// # Errors
    /// As [`AxisIndex::index_axis`].
    fn index_entry<T: Element, D: Device>(
        self,
        t: &Tensor<T, S, D>,
    ) -> Result<Tensor<T, Self::Output, D>, ShapeError>;
}

/// Every entry with an [`AxisIndex`] rule.
impl<I: AxisIndex<S, K>, S: Shape, const K: usize> IndexEntry<S, K> for I {
    type Output = I::Output;
    fn index_entry<T: Element, D: Device>(
        self,
        t: &Tensor<T, S, D>,
    ) -> Result<Tensor<T, I::Output, D>, ShapeError> {
        self.index_axis(t)
    }
}

/// The view `entry` picks on axis `K` of `t`: what [`index!`](crate::index)
/// calls for each axis.
///
/// # Errors
/// As [`AxisIndex::index_axis`].
///
/// ```
/// use shaped::{Shape, Tensor, ops::index::index_entry};
/// let t = Tensor::<i32, Shape![2, 3]>::from_vec((0..6).collect());
/// assert_eq!(index_entry::<_, _, 1, _, _>(&t, 1..).unwrap().to_vec(), vec![1, 2, 4, 5]);
/// ```
#[doc(hidden)]
pub fn index_entry<T: Element, S: Shape, const K: usize, I: IndexEntry<S, K>, D: Device>(
    t: &Tensor<T, S, D>,
    entry: I,
) -> Result<Tensor<T, I::Output, D>, ShapeError>
where
    I::Output: Shape,
{
    entry.index_entry(t)
}

macro_rules! axis_integers {
    ($($x:ty),*) => {$(
        /// An integer: removes the axis.
        #[diagnostic::do_not_recommend]
        impl<S: RemoveAxis<K>, const K: usize> AxisIndex<S, K> for $x {
            type Output = S::Output;
            fn index_axis<T: Element, D: Device>(self, t: &Tensor<T, S, D>) -> Result<Tensor<T, S::Output, D>, ShapeError> {
                t.try_select::<K>(to_isize(self))
            }
        }
    )*};
}
axis_integers!(i32, i64, isize, usize);

macro_rules! axis_range_entries {
    ($($r:ty),*) => {$(
        /// A range: narrows the axis to a run-time size.
        #[diagnostic::do_not_recommend]
        impl<S: SetAxis<K, Dyn>, const K: usize> AxisIndex<S, K> for $r {
            type Output = S::Output;
            fn index_axis<T: Element, D: Device>(self, t: &Tensor<T, S, D>) -> Result<Tensor<T, S::Output, D>, ShapeError> {
                t.try_slice::<K>(self)
            }
        }
    )*};
}
axis_range_entries!(
    Range<i32>,
    Range<i64>,
    Range<isize>,
    Range<usize>,
    RangeFrom<i32>,
    RangeFrom<i64>,
    RangeFrom<isize>,
    RangeFrom<usize>,
    RangeTo<i32>,
    RangeTo<i64>,
    RangeTo<isize>,
    RangeTo<usize>,
    RangeInclusive<i32>,
    RangeInclusive<i64>,
    RangeInclusive<isize>,
    RangeInclusive<usize>,
    RangeToInclusive<i32>,
    RangeToInclusive<i64>,
    RangeToInclusive<isize>,
    RangeToInclusive<usize>,
    (Bound<isize>, Bound<isize>)
);

/// A stepped range: narrows the axis to a run-time size.
#[diagnostic::do_not_recommend]
impl<S: SetAxis<K, Dyn>, R: AxisRange, const K: usize> AxisIndex<S, K> for Stepped<R> {
    type Output = S::Output;
    fn index_axis<T: Element, D: Device>(
        self,
        t: &Tensor<T, S, D>,
    ) -> Result<Tensor<T, S::Output, D>, ShapeError> {
        t.try_slice_step::<K>(self.range, self.step)
    }
}

/// `..`: keeps the axis (which must exist).
#[diagnostic::do_not_recommend]
impl<S: RemoveAxis<K>, const K: usize> AxisIndex<S, K> for RangeFull {
    type Output = S;
    fn index_axis<T: Element, D: Device>(
        self,
        t: &Tensor<T, S, D>,
    ) -> Result<Tensor<T, S, D>, ShapeError> {
        check_axis(K, t.rank())?;
        Ok(t.share())
    }
}

/// An error unless axis `k` exists in a tensor of rank `rank`.
fn check_axis(k: usize, rank: usize) -> Result<(), ShapeError> {
    if rank == 0 {
        return Err(ShapeError::Invalid(
            "invalid index of a 0-dim tensor. Use `item()` to convert a 0-dim tensor to a number"
                .into(),
        ));
    }
    if k >= rank {
        return Err(ShapeError::Invalid(format!(
            "too many indices for tensor of dimension {rank}"
        )));
    }
    Ok(())
}

/// The layout after picking `index` on axis `k`.
fn select_layout(
    dims: &[usize],
    strides: &[usize],
    offset: usize,
    k: usize,
    index: isize,
) -> Result<(DimVec, DimVec, usize), ShapeError> {
    check_axis(k, dims.len())?;
    // Every size is at most isize::MAX (`checked_numel`, where sizes enter),
    // so `index + size` cannot overflow.
    let size = dims[k] as isize;
    let wrapped = if index < 0 { index + size } else { index };
    if wrapped < 0 || wrapped >= size {
        return Err(out_of_bounds(index as i64, k, dims[k]));
    }
    let (mut d, mut s) = (DimVec::from_slice(dims), DimVec::from_slice(strides));
    let stride = s.remove(k);
    d.remove(k);
    Ok((d, s, offset + wrapped as usize * stride))
}

/// The layout after keeping `bounds` every `step` on axis `k`.
fn slice_layout(
    dims: &[usize],
    strides: &[usize],
    offset: usize,
    k: usize,
    (start, end): (Bound<isize>, Bound<isize>),
    step: usize,
) -> Result<(DimVec, DimVec, usize), ShapeError> {
    check_axis(k, dims.len())?;
    if step == 0 {
        return Err(ShapeError::Invalid("slice step cannot be zero".into()));
    }
    // Every size is at most isize::MAX (`checked_numel`, where sizes enter),
    // so a bound counted from the end cannot overflow; `v + 1` saturates at
    // isize::MAX, which clamps to `size` as the exact value would.
    let size = dims[k] as isize;
    let clamp = |v: isize| {
        if v < 0 {
            (v + size).max(0)
        } else {
            v.min(size)
        }
    };
    let start = match start {
        Bound::Included(s) => clamp(s),
        Bound::Excluded(s) => clamp(s.saturating_add(1)),
        Bound::Unbounded => 0,
    };
    let end = match end {
        Bound::Excluded(e) => clamp(e),
        Bound::Included(e) => clamp(e.saturating_add(1)),
        Bound::Unbounded => size,
    };
    // Both ends lie in [0, size], so the count and `start` fit in usize.
    let len = if end > start {
        ((end - start) as usize).div_ceil(step)
    } else {
        0
    };
    let (mut d, mut s) = (DimVec::from_slice(dims), DimVec::from_slice(strides));
    let off = if len > 0 {
        offset + start as usize * s[k]
    } else {
        offset
    };
    d[k] = len;
    // With two or more positions, `step * stride` stays inside the axis's
    // span; with fewer the stride is never used, so it is left as it was.
    if len > 1 {
        s[k] *= step;
    }
    Ok((d, s, off))
}

impl<T: Element, S: Shape, D: Device> Tensor<T, S, D> {
    /// The view at position `index` of axis `K`, without that axis, as
    /// PyTorch's `select(K, index)` or `t[index]`. Negative indices count
    /// from the end.
    ///
    /// # Errors
    /// `index 5 is out of bounds for dimension 0 with size 3` when `index`
    /// is outside `-size..size`; for dynamic rank, an axis `K` the tensor
    /// does not have.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![3, 2]>::from_vec((0..6).collect());
    /// let r: Tensor<i32, Shape![2]> = t.try_select::<0>(-1).unwrap();
    /// assert_eq!(r.to_vec(), vec![4, 5]);
    /// assert_eq!(t.try_select::<0>(5).err().unwrap().to_string(),
    ///     "index 5 is out of bounds for dimension 0 with size 3");
    /// ```
    pub fn try_select<const K: usize>(
        &self,
        index: isize,
    ) -> Result<Tensor<T, S::Output, D>, ShapeError>
    where
        S: RemoveAxis<K>,
    {
        let (d, s, off) = select_layout(self.dims(), self.strides(), self.offset, K, index)?;
        Ok(self.view_as(<S::Output as Shape>::check_dims(&d)?, &s, off))
    }

    /// The view at position `index` of axis `K`, without that axis.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_select`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![3, 2]>::from_vec((0..6).collect());
    /// let c: Tensor<i32, Shape![3]> = t.select::<1>(0);
    /// assert_eq!(c.to_vec(), vec![0, 2, 4]);
    /// ```
    #[track_caller]
    pub fn select<const K: usize>(&self, index: isize) -> Tensor<T, S::Output, D>
    where
        S: RemoveAxis<K>,
    {
        self.try_select::<K>(index).or_panic()
    }

    /// The view of the positions `range` of axis `K`, as `t[a:b]`; the
    /// axis's size becomes `Dyn`. Bounds count from the end when negative
    /// and are clamped to the axis.
    ///
    /// # Errors
    /// For dynamic rank, an axis `K` the tensor does not have.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![5]>::from_vec(vec![0, 1, 2, 3, 4]);
    /// assert_eq!(t.try_slice::<0>(-3..).unwrap().to_vec(), vec![2, 3, 4]);
    /// assert_eq!(t.try_slice::<0>(1..100).unwrap().dims(), &[4]);
    /// ```
    pub fn try_slice<const K: usize>(
        &self,
        range: impl AxisRange,
    ) -> Result<Tensor<T, <S as SetAxis<K, Dyn>>::Output, D>, ShapeError>
    where
        S: SetAxis<K, Dyn>,
    {
        self.try_slice_step::<K>(range, 1)
    }

    /// The view of the positions `range` of axis `K`.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_slice`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 3]>::from_vec((0..6).collect());
    /// let s: Tensor<i32, Shape![2, _]> = t.slice::<1>(..2);
    /// assert_eq!(s.to_vec(), vec![0, 1, 3, 4]);
    /// ```
    #[track_caller]
    pub fn slice<const K: usize>(
        &self,
        range: impl AxisRange,
    ) -> Tensor<T, <S as SetAxis<K, Dyn>>::Output, D>
    where
        S: SetAxis<K, Dyn>,
    {
        self.try_slice::<K>(range).or_panic()
    }

    /// The view of every `step`-th position of `range` on axis `K`, as
    /// `t[a:b:step]`.
    ///
    /// # Errors
    /// `step` is 0; for dynamic rank, an axis `K` the tensor does not have.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![6]>::from_vec((0..6).collect());
    /// assert_eq!(t.try_slice_step::<0>(1.., 2).unwrap().to_vec(), vec![1, 3, 5]);
    /// assert!(t.try_slice_step::<0>(.., 0).is_err());
    /// ```
    pub fn try_slice_step<const K: usize>(
        &self,
        range: impl AxisRange,
        step: usize,
    ) -> Result<Tensor<T, <S as SetAxis<K, Dyn>>::Output, D>, ShapeError>
    where
        S: SetAxis<K, Dyn>,
    {
        let (d, s, off) = slice_layout(
            self.dims(),
            self.strides(),
            self.offset,
            K,
            range.bounds(),
            step,
        )?;
        Ok(self.view_as(<S as SetAxis<K, Dyn>>::Output::check_dims(&d)?, &s, off))
    }

    /// The view of every `step`-th position of `range` on axis `K`.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_slice_step`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 4]>::from_vec((0..8).collect());
    /// let s: Tensor<i32, Shape![2, _]> = t.slice_step::<1>(.., 3);
    /// assert_eq!(s.to_vec(), vec![0, 3, 4, 7]);
    /// ```
    #[track_caller]
    pub fn slice_step<const K: usize>(
        &self,
        range: impl AxisRange,
        step: usize,
    ) -> Tensor<T, <S as SetAxis<K, Dyn>>::Output, D>
    where
        S: SetAxis<K, Dyn>,
    {
        self.try_slice_step::<K>(range, step).or_panic()
    }
}

impl<T: Element, S: Shape, D: Device> Tensor<T, S, D> {
    /// The view `entry` picks on axis `K` (see [`AxisIndex`]): what
    /// [`try_index!`](crate::try_index) calls for each axis.
    ///
    /// # Errors
    /// As [`Tensor::try_select`] for an integer, [`Tensor::try_slice_step`]
    /// for a range.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![2, 3]>::from_vec((0..6).collect());
    /// assert_eq!(t.try_index_axis::<1, _>(1..).unwrap().to_vec(), vec![1, 2, 4, 5]);
    /// ```
    pub fn try_index_axis<const K: usize, I: AxisIndex<S, K>>(
        &self,
        entry: I,
    ) -> Result<Tensor<T, I::Output, D>, ShapeError> {
        entry.index_axis(self)
    }
}

/// Indexes several axes at once, as `t[.., 2, 1:3]` in PyTorch, returning
/// `Result<Tensor<..>, ShapeError>`; a view, never a copy.
///
/// Entries, one per leading axis (later axes are kept whole):
/// - an integer `i` picks one position and removes the axis (negative counts
///   from the end; out of range is an error);
/// - a range `a..b`, `a..`, `..b`, `a..=b`, `..=b` keeps those positions
///   (negative bounds count from the end; clamped, never an error), and
///   `a..b;step` every `step`-th of them;
/// - `..` keeps the axis whole.
///
/// The result type follows from the shape type: an integer on axis `K`
/// removes it ([`RemoveAxis`](crate::shape::RemoveAxis)), a range makes its
/// size `Dyn` ([`SetAxis`](crate::shape::SetAxis)). An axis a static shape
/// does not have is a compile error; for [`DynRank`](crate::DynRank), a run
/// time error (`too many indices for tensor of dimension 2`). Entries are
/// evaluated left to right.
///
/// ```
/// use shaped::{try_index, DynRank, Shape, Tensor};
/// let t = Tensor::<f32, Shape![3, 4]>::from_vec((0..12).map(|x| x as f32).collect());
/// let e = try_index!(t, 1, -1).unwrap();
/// assert_eq!(e.item(), 7.0);
/// let err = try_index!(t, 3).err().unwrap();
/// assert_eq!(err.to_string(), "index 3 is out of bounds for dimension 0 with size 3");
/// let d = t.clone().into_dyn();
/// assert_eq!(try_index!(d, 0, 0, 0).err().unwrap().to_string(),
///     "too many indices for tensor of dimension 2");
/// ```
#[macro_export]
macro_rules! try_index {
    ($t:expr, $($entries:tt)+) => {
        $crate::__index_axes!((&$t) (0usize) $($entries)+)
    };
}

/// Indexes several axes at once, as [`try_index!`](crate::try_index), and
/// panics with the error's message on a bad index.
///
/// ```
/// use shaped::{index, Shape, Tensor};
/// let t = Tensor::<i32, Shape![2, 3, 4]>::from_vec((0..24).collect());
/// let v: Tensor<i32, Shape![3]> = index!(t, 1, .., -1);
/// assert_eq!(v.to_vec(), vec![15, 19, 23]);
/// let s: Tensor<i32, Shape![_, 3, 4]> = index!(t, ..1);
/// assert_eq!(s.dims(), &[1, 3, 4]);
/// ```
#[macro_export]
macro_rules! index {
    ($t:expr, $($entries:tt)+) => {
        match $crate::try_index!($t, $($entries)+) {
            ::core::result::Result::Ok(view) => view,
            ::core::result::Result::Err(e) => ::core::panic!("{}", e),
        }
    };
}

/// The recursion behind [`try_index!`](crate::try_index): each entry is
/// evaluated (left to right), then the entries are applied from the last
/// axis to the first, so that removing an axis never renumbers the axes
/// still to be indexed. Clippy's `reversed_empty_ranges` is allowed on the
/// entries: `1..-1` is a Python-style slice here, not an empty range.
#[doc(hidden)]
#[macro_export]
macro_rules! __index_axes {
    (($t:expr) ($k:expr) $r:expr ; $s:expr $(,)?) => {{
        #[allow(clippy::reversed_empty_ranges)]
        let entry = $crate::ops::index::Stepped::new($r, $s);
        $crate::ops::index::index_entry::<_, _, { $k }, _, _>(&$t, entry)
    }};
    (($t:expr) ($k:expr) $r:expr ; $s:expr , $($rest:tt)+) => {{
        #[allow(clippy::reversed_empty_ranges)]
        let entry = $crate::ops::index::Stepped::new($r, $s);
        $crate::__index_axes!(($t) ($k + 1) $($rest)+)
            .and_then(move |v| $crate::ops::index::index_entry::<_, _, { $k }, _, _>(&v, entry))
    }};
    (($t:expr) ($k:expr) $i:expr $(,)?) => {{
        #[allow(clippy::reversed_empty_ranges)]
        let entry = $i;
        $crate::ops::index::index_entry::<_, _, { $k }, _, _>(&$t, entry)
    }};
    (($t:expr) ($k:expr) $i:expr , $($rest:tt)+) => {{
        #[allow(clippy::reversed_empty_ranges)]
        let entry = $i;
        $crate::__index_axes!(($t) ($k + 1) $($rest)+)
            .and_then(move |v| $crate::ops::index::index_entry::<_, _, { $k }, _, _>(&v, entry))
    }};
}
