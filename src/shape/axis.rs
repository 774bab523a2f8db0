//! Axis arithmetic at the type level: the shape after inserting, removing,
//! replacing or swapping a dimension at a compile-time axis. An axis out of range has no
//! impl, so it is a compile error.
//!
//! ```
//! use shaped::{Dyn, Shape, shape::{InsertAxis, RemoveAxis, SetAxis, SwapAxes}};
//! let _: <Shape![4, 3, 5] as RemoveAxis<1>>::Output = <Shape![4, 5]>::default();
//! let _: <Shape![4, 3, 5] as RemoveAxis<1>>::KeepDim = <Shape![4, 1, 5]>::default();
//! let _: <Shape![4, 5] as InsertAxis<0>>::Output = <Shape![1, 4, 5]>::default();
//! let _: <Shape![4, 5] as SwapAxes<0, 1>>::Output = <Shape![5, 4]>::default();
//! let _: <Shape![4, 5] as SetAxis<0, Dyn>>::Output = <Shape![_, 5]>::default();
//! ```

use super::{Dim, DynRank, Shape};

/// The shape with a `One` inserted before axis `K` (`K` may equal the rank).
///
/// ```
/// use shaped::{Shape, shape::InsertAxis};
/// let _: <Shape![3] as InsertAxis<1>>::Output = <Shape![3, 1]>::default();
/// ```
#[diagnostic::on_unimplemented(
    message = "axis {K} is out of range for inserting a dimension into a tensor of shape `{Self}`",
    label = "no axis {K} here",
    note = "a new axis goes at 0..=rank"
)]
pub trait InsertAxis<const K: usize>: Shape {
    /// The shape after insertion.
    type Output: Shape;
}

/// The shape without axis `K`, and with it set to `One` (`KeepDim`), as a
/// reduction over `K` produces.
///
/// ```
/// use shaped::{Const, Shape, shape::RemoveAxis};
/// let _: <Shape![2, 7] as RemoveAxis<1>>::Removed = Const::<7>;
/// ```
#[diagnostic::on_unimplemented(
    message = "axis {K} is out of range for a tensor of shape `{Self}`",
    label = "no axis {K} here",
    note = "axes of a tensor of rank r are 0..r"
)]
pub trait RemoveAxis<const K: usize>: Shape {
    /// The shape without axis `K`.
    type Output: Shape;
    /// The shape with axis `K` of size `One` (keepdim).
    type KeepDim: Shape;
    /// The dimension removed.
    type Removed: Dim;
}

/// The shape with axis `K` replaced by the dimension `D`: what joining,
/// splitting and slicing along `K` produce (`D = Dyn`: a size known only at
/// run time), or an axis picked by a 1-d index of length `D`
/// (`index_select`).
///
/// ```
/// use shaped::{Dyn, Shape, shape::SetAxis};
/// let _: <Shape![4, 3, 5] as SetAxis<1, Dyn>>::Output = <Shape![4, _, 5]>::default();
/// ```
#[diagnostic::on_unimplemented(
    message = "axis {K} is out of range for a tensor of shape `{Self}`",
    label = "no axis {K} here",
    note = "axes of a tensor of rank r are 0..r"
)]
pub trait SetAxis<const K: usize, D: Dim>: Shape {
    /// The shape with axis `K` replaced by `D`.
    type Output: Shape;
}

/// The shape with its last axis replaced by the dimension `D`, for any
/// rank of at least 1: what an operation along the last axis that changes
/// its length produces (`topk`: `D = Dyn`, the run-time `k`;
/// `multinomial`: the number of samples). [`SetAxis`] needs the axis as a
/// number, which code generic over the rank cannot name.
///
/// ```
/// use shaped::{Const, Dyn, Shape, shape::SetLastAxis};
/// let _: <Shape![4, 3, 5] as SetLastAxis<Dyn>>::Output = <Shape![4, 3, _]>::default();
/// let _: <Shape![4, 3, 5] as SetLastAxis<Dyn>>::Last = Const::<5>;
/// ```
#[diagnostic::on_unimplemented(
    message = "a tensor of shape `{Self}` has no last axis to replace",
    label = "a 0-d tensor",
    note = "operations along the last axis need a tensor of rank at least 1"
)]
pub trait SetLastAxis<D: Dim>: Shape {
    /// The shape with the last axis replaced by `D`.
    type Output: Shape;
    /// The dimension replaced.
    type Last: Dim;
}

/// Dynamic rank: the axis is checked at run time.
#[diagnostic::do_not_recommend]
impl<D: Dim> SetLastAxis<D> for DynRank {
    type Output = DynRank;
    type Last = super::Dyn;
}

/// The shape with the dimension `D` added after the last axis: what a
/// lookup of `D`-wide rows by indices of shape `Self` produces
/// ([`Embedding::forward`](crate::nn::Embedding::forward)).
///
/// ```
/// use shaped::{Const, Shape, shape::AppendAxis};
/// let _: <Shape![2, _] as AppendAxis<Const<8>>>::Output = <Shape![2, _, 8]>::default();
/// ```
#[diagnostic::on_unimplemented(
    message = "cannot add a dimension to a tensor of shape `{Self}`",
    label = "already of the highest rank",
    note = "static shapes have at most 12 dimensions; use `DynRank` beyond"
)]
pub trait AppendAxis<D: Dim>: Shape {
    /// `Self` with `D` appended.
    type Output: Shape;
}

/// Dynamic rank: stays dynamic.
#[diagnostic::do_not_recommend]
impl<D: Dim> AppendAxis<D> for DynRank {
    type Output = DynRank;
}

/// A shape seen as its leading axes and its last axis: the classes of
/// logits `(B, T, V)` against targets `(B, T)`
/// ([`CrossEntropy`](crate::nn::CrossEntropy)). The inverse of
/// [`AppendAxis`].
///
/// ```
/// use shaped::{Const, Shape, shape::SplitLast};
/// let _: <Shape![2, _, 8] as SplitLast>::Rest = <Shape![2, _]>::default();
/// let _: <Shape![2, _, 8] as SplitLast>::Last = Const::<8>;
/// ```
#[diagnostic::on_unimplemented(
    message = "a tensor of shape `{Self}` has no last axis",
    label = "a 0-d tensor",
    note = "a class axis needs a tensor of rank 1 or more"
)]
pub trait SplitLast: Shape {
    /// The shape without its last axis.
    type Rest: Shape;
    /// The last axis.
    type Last: Dim;
}

/// Dynamic rank: stays dynamic.
#[diagnostic::do_not_recommend]
impl SplitLast for DynRank {
    type Rest = DynRank;
    type Last = crate::shape::Dyn;
}

/// The shape with axes `I` and `J` swapped.
///
/// ```
/// use shaped::{Shape, shape::SwapAxes};
/// let _: <Shape![2, 3, 4] as SwapAxes<2, 0>>::Output = <Shape![4, 3, 2]>::default();
/// ```
#[diagnostic::on_unimplemented(
    message = "axes {I} and {J} are not both in range for a tensor of shape `{Self}`",
    label = "axis out of range",
    note = "axes of a tensor of rank r are 0..r"
)]
pub trait SwapAxes<const I: usize, const J: usize>: Shape {
    /// The shape after the swap.
    type Output: Shape;
}

/// A dimension that `squeeze::<K>` may remove: `One`, or `Dyn` (its size
/// checked at run time).
///
/// ```
/// use shaped::{Dyn, One, shape::Squeezable};
/// fn check<D: Squeezable<0>>() {}
/// check::<One>();
/// check::<Dyn>();
/// ```
#[diagnostic::on_unimplemented(
    message = "cannot squeeze dimension {K} of size `{Self}`: only a dimension of size 1 can be removed",
    label = "dimension {K} is not of size 1",
    note = "PyTorch's `squeeze(dim)` silently keeps a dimension of another size; here that is a compile error (a `Dyn` size is checked at run time)"
)]
pub trait Squeezable<const K: usize> {}

/// `squeeze::<K>`'s rule: axis `K` exists ([`RemoveAxis`]) and has size 1
/// ([`Squeezable`]); `Squeezed` is the shape without it.
///
/// The method's result type is this projection, so that a size other than
/// 1 is reported once, at the call, with [`Squeezable`]'s message.
///
/// ```
/// use shaped::{Shape, shape::SqueezeAxis};
/// let _: <Shape![3, 1] as SqueezeAxis<1>>::Squeezed = <Shape![3]>::default();
/// ```
pub trait SqueezeAxis<const K: usize>: RemoveAxis<K> {
    /// The shape without axis `K`.
    type Squeezed: Shape;
}

/// A removable axis of size 1.
impl<S: RemoveAxis<K>, const K: usize> SqueezeAxis<K> for S
where
    S::Removed: Squeezable<K>,
{
    type Squeezed = S::Output;
}

/// Size 1
#[diagnostic::do_not_recommend]
impl<const K: usize> Squeezable<K> for super::One {}

/// Checked at run time
#[diagnostic::do_not_recommend]
impl<const K: usize> Squeezable<K> for super::Dyn {}

/// Dynamic rank: the axis is checked at run time.
#[diagnostic::do_not_recommend]
impl<const K: usize> InsertAxis<K> for DynRank {
    type Output = DynRank;
}

/// Dynamic rank: the axis is checked at run time.
#[diagnostic::do_not_recommend]
impl<const K: usize> RemoveAxis<K> for DynRank {
    type Output = DynRank;
    type KeepDim = DynRank;
    type Removed = super::Dyn;
}

/// Dynamic rank: the axis is checked at run time.
#[diagnostic::do_not_recommend]
impl<const K: usize, D: Dim> SetAxis<K, D> for DynRank {
    type Output = DynRank;
}

/// Dynamic rank: the axes are checked at run time.
#[diagnostic::do_not_recommend]
impl<const I: usize, const J: usize> SwapAxes<I, J> for DynRank {
    type Output = DynRank;
}

/// `cat::<K>`'s rule: `K` is an axis of `Self`; `Output` is `Self` with
/// size `Dyn` there (the joined size is known at run time).
///
/// `cat` states this bound and returns this projection. It is implemented
/// through a second, hidden rule ([`JoinAxis`]) on top of [`SetAxis`]: with
/// the failing rule two impls deep, an axis out of range is one error, at
/// the call, with [`SetAxis`]'s message (one level deep, rustc reports it
/// twice, once for the bound and once for the result type).
///
/// ```
/// use shaped::{Shape, shape::CatAxis};
/// let _: <Shape![2, 4] as CatAxis<1>>::Output = <Shape![2, _]>::default();
/// ```
pub trait CatAxis<const K: usize>: Shape {
    /// The joined shape.
    type Output: Shape;
}

/// Every shape with a [`JoinAxis`] rule.
impl<S: JoinAxis<K>, const K: usize> CatAxis<K> for S {
    type Output = <S as JoinAxis<K>>::Output;
}

/// The inner level of [`CatAxis`] and [`StackAxis`]: `Self` with size `Dyn`
/// at axis `K`.
///
/// ```
/// use shaped::{Shape, shape::JoinAxis};
/// let _: <Shape![2, 4] as JoinAxis<0>>::Output = <Shape![_, 4]>::default();
/// ```
#[doc(hidden)]
pub trait JoinAxis<const K: usize>: Shape {
    /// `Self` with size `Dyn` at `K`.
    type Output: Shape;
}

/// Every shape with a [`SetAxis`] rule at `K`.
impl<S: SetAxis<K, super::Dyn>, const K: usize> JoinAxis<K> for S {
    type Output = <S as SetAxis<K, super::Dyn>>::Output;
}

/// `stack::<K>`'s rule: a new axis can be inserted at `K` (`K` at most the
/// rank); `Output` is `Self` with a new axis of size `Dyn` there. Two levels
/// deep for the reason given at [`CatAxis`].
///
/// ```
/// use shaped::{Shape, shape::StackAxis};
/// let _: <Shape![2, 4] as StackAxis<2>>::Output = <Shape![2, 4, _]>::default();
/// ```
pub trait StackAxis<const K: usize>: Shape {
    /// The stacked shape.
    type Output: Shape;
}

/// Every shape with a [`NewAxis`] rule.
impl<S: NewAxis<K>, const K: usize> StackAxis<K> for S {
    type Output = <S as NewAxis<K>>::Output;
}

/// The inner level of [`StackAxis`]: [`InsertAxis`], then size `Dyn` at the
/// new axis.
///
/// ```
/// use shaped::{Shape, shape::NewAxis};
/// let _: <Shape![2, 4] as NewAxis<0>>::Output = <Shape![_, 2, 4]>::default();
/// ```
#[doc(hidden)]
pub trait NewAxis<const K: usize>: Shape {
    /// `Self` with a new axis of size `Dyn` at `K`.
    type Output: Shape;
}

/// Every shape with an [`InsertAxis`] rule at `K`.
impl<S: InsertAxis<K>, const K: usize> NewAxis<K> for S
where
    <S as InsertAxis<K>>::Output: SetAxis<K, super::Dyn>,
{
    type Output = <<S as InsertAxis<K>>::Output as SetAxis<K, super::Dyn>>::Output;
}
