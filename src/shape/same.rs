//! Two sizes that must be equal, with no broadcasting: the sizes away from
//! the joined axis of `cat_with`, the inner sizes of a product, the batches of
//! `bmm`. A static size wins over `Dyn` (checked at run time), as nalgebra's
//! `DimEq` picks its representative; `One` is a size like any other here.
//!
//! ```
//! use shaped::{Const, Dyn, One, SameDim};
//! let _: <Dyn as SameDim<Const<3>>>::Output = Const::<3>;
//! let _: <One as SameDim<One>>::Output = One;
//! fn generic<B: shaped::Dim>() -> <B as SameDim<B>>::Output { B::default() }
//! ```

use super::{Const, Dim, Dyn, EqualOutput, One, SameDim, Shape};

/// A bound that states two generic sizes are equal: `B: EqualDim<C>`
/// lets `B` and `C` broadcast (`(B, 3) + (C, 3)`, the result `(B, 3)`) and
/// meet where sizes must be equal (the inner sizes of a product, the
/// batches of `bmm`), in a function generic over both. It holds for two
/// equal static sizes and for a static `B` with a `Dyn` `C` (checked at run
/// time), never for two different sizes nor for `B` of any size with `C`
/// of size 1: the caller's sizes are checked where it names them.
///
/// ```
/// use shaped::{Dim, EqualDim, Shape, Tensor};
/// fn add<B: EqualDim<C>, C: Dim>(
///     x: &Tensor<f32, Shape![B, 3]>,
///     y: &Tensor<f32, Shape![C, 3]>,
/// ) -> Tensor<f32, Shape![B, 3]> {
///     x + y
/// }
/// let x = Tensor::<f32, Shape![2, 3]>::ones();
/// assert_eq!(add(&x, &x).to_vec(), vec![2.0; 6]);
/// ```
///
/// Operands in that order (`x + y`, `B` first); for `y + x` state
/// `C: EqualDim<B>` too.
#[diagnostic::on_unimplemented(
    message = "size mismatch: `{Self}` and `{Rhs}` are not the same size",
    label = "`EqualDim` asks for the same size",
    note = "two static sizes must be equal (a size 1, which would broadcast, is not the same size); a static size and `Dyn` are checked at run time"
)]
pub trait EqualDim<Rhs: Dim>:
    Dim
    + super::BroadcastDim<Rhs, Output = Self>
    + SameDim<Rhs, Output = Self>
    + EqualOutput<Rhs, Output = Self>
{
}

/// `Const<N>` is `Const<N>`.
#[diagnostic::do_not_recommend]
impl<const N: usize> EqualDim<Const<N>> for Const<N> {}

/// `Const<N>` and `Dyn`: checked at run time.
#[diagnostic::do_not_recommend]
impl<const N: usize> EqualDim<Dyn> for Const<N> {}

/// `One` is `One`.
#[diagnostic::do_not_recommend]
impl EqualDim<One> for One {}

/// `Dyn` and `Dyn`: checked at run time.
#[diagnostic::do_not_recommend]
impl EqualDim<Dyn> for Dyn {}

/// `Const<N> = Const<N>`
#[diagnostic::do_not_recommend]
impl<const N: usize> SameDim<Const<N>> for Const<N> {
    type Output = Const<N>;
}

/// `One = One`
#[diagnostic::do_not_recommend]
impl SameDim<One> for One {
    type Output = One;
}

/// `Const<N> = Dyn`, checked at run time
#[diagnostic::do_not_recommend]
impl<const N: usize> SameDim<Dyn> for Const<N> {
    type Output = Const<N>;
}

/// `One = Dyn`, checked at run time
#[diagnostic::do_not_recommend]
impl SameDim<Dyn> for One {
    type Output = One;
}

/// `Dyn = X`, checked at run time
#[diagnostic::do_not_recommend]
impl<X: Dim> SameDim<X> for Dyn {
    type Output = X;
}

/// A static size is kept (the rule that checks equality is separate).
impl<const N: usize, X: Dim> EqualOutput<X> for Const<N> {
    type Output = Const<N>;
}

/// `One` is kept (the rule that checks equality is separate).
impl<X: Dim> EqualOutput<X> for One {
    type Output = One;
}

/// `Dyn` takes the other size.
impl<X: Dim> EqualOutput<X> for Dyn {
    type Output = X;
}

/// [`SameDim`] for a size away from the joined axis `AXIS` of
/// [`Tensor::cat_with`](crate::Tensor::cat_with): the bound the join rule
/// states, so that a mismatch says it is a join.
///
/// ```
/// use shaped::{Const, Dyn, JoinDim};
/// let _: <Const<4> as JoinDim<Dyn, 0>>::Output = Const::<4>;
/// ```
#[diagnostic::on_unimplemented(
    message = "sizes of tensors must match except in dimension {AXIS}: expected size `{Self}` but got size `{Rhs}`",
    label = "these tensors cannot be joined along axis {AXIS}",
    note = "`cat_with` does not broadcast: every size but the joined one must be equal (a 1 is not stretched); for two generic sizes that are equal, say so with `B: EqualDim<C>`, or check them at run time with `.into_dyn()` on one tensor"
)]
pub trait JoinDim<Rhs: Dim, const AXIS: usize> {
    /// The size both have.
    type Output: Dim;
}

/// Any pair with a [`SameDim`] rule.
#[diagnostic::do_not_recommend]
impl<A: SameDim<B>, B: Dim, const AXIS: usize> JoinDim<B, AXIS> for A {
    type Output = <A as SameDim<B>>::Output;
}

/// A **type operator** giving the shape of two shapes joined along `AXIS`
/// (whose sizes there are already `Dyn`): the same rank, each pair of sizes
/// [`JoinDim`]. A [`DynRank`](crate::DynRank) side gives `DynRank`.
///
/// ```
/// use shaped::{JoinShape, Shape};
/// let _: <Shape![_, 3] as JoinShape<Shape![_, _], 0>>::Output = <Shape![_, 3]>::default();
/// ```
#[diagnostic::on_unimplemented(
    message = "tensors of shapes `{Self}` and `{Rhs}` cannot be joined: their ranks differ",
    label = "these tensors have different numbers of dimensions",
    note = "`cat_with` joins tensors of one rank along one of their axes"
)]
pub trait JoinShape<Rhs: Shape, const AXIS: usize> {
    /// The joined shape.
    type Output: Shape;
}

/// `A` joined with `B`, for every pair of shapes with a rule.
impl<A: Shape + JoinPair<B, AXIS>, B: Shape, const AXIS: usize> JoinShape<B, AXIS> for A {
    type Output = <A as JoinPair<B, AXIS>>::Output;
}

/// The join rule for one pair of shapes of one rank, generated for every
/// rank; hidden behind [`JoinShape`] so that errors list no other impls.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "tensors of shapes `{Self}` and `{Rhs}` cannot be joined: their ranks differ",
    label = "these tensors have different numbers of dimensions",
    note = "`cat_with` joins tensors of one rank along one of their axes"
)]
pub trait JoinPair<Rhs, const AXIS: usize> {
    /// The joined shape.
    type Output: Shape;
}

/// Never implemented: the bound of the join rule for two tuples of different
/// ranks, so that the error says so and names both shapes.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "tensors of shapes `{Self}` and `{Rhs}` cannot be joined: their ranks differ",
    label = "these tensors have different numbers of dimensions",
    note = "`cat_with` joins tensors of one rank along one of their axes"
)]
pub trait SameRank<Rhs> {}

/// `DynRank` joined with anything is `DynRank`, checked at run time
impl<S: Shape, const AXIS: usize> JoinPair<S, AXIS> for super::DynRank {
    type Output = super::DynRank;
}
