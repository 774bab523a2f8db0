//! Broadcasting at the type level: the shape two (or three) static shapes
//! broadcast to, found by the trait solver.
//!
//! Per dimension, `BroadcastDim` states the rule; per shape, `BroadcastShape`
//! aligns the trailing dimensions and applies it to each pair. A pair of sizes
//! that cannot broadcast has no impl, so the mismatch is a type error at
//! `cargo check` time, reported on the two sizes, with rustc's note naming both
//! shapes.
//!
//! ```
//! use shaped::{BroadcastShape, Shape};
//!
//! fn same<T>(_: core::marker::PhantomData<T>, _: core::marker::PhantomData<T>) {}
//! same(
//!     core::marker::PhantomData::<<Shape![5, 1, 4, 1] as BroadcastShape<Shape![3, 1, 1]>>::Output>,
//!     core::marker::PhantomData::<Shape![5, 3, 4, 1]>,
//! );
//! ```
//!
//! The impls for tuples are generated for every pair of ranks up to
//! [`MAX_STATIC_RANK`](crate::shape::MAX_STATIC_RANK) instead of going through
//! a type-level list: then rustc's notes name the two tuples the user wrote,
//! with no intermediate list types between the failing sizes and the shapes.

use super::{BroadcastDim, Const, Dim, DynRank, One, Shape};
use crate::shape::Dyn;

/// `Const<N> ⊕ Const<N> = Const<N>`
#[diagnostic::do_not_recommend]
impl<const N: usize> BroadcastDim<Const<N>> for Const<N> {
    type Output = Const<N>;
}

/// `One ⊕ X = X`
#[diagnostic::do_not_recommend]
impl<X: Dim> BroadcastDim<X> for One {
    type Output = X;
}

/// `Const<N> ⊕ One = Const<N>`
#[diagnostic::do_not_recommend]
impl<const N: usize> BroadcastDim<One> for Const<N> {
    type Output = Const<N>;
}

/// `Const<N> ⊕ Dyn = Const<N>`, checked at run time
#[diagnostic::do_not_recommend]
impl<const N: usize> BroadcastDim<Dyn> for Const<N> {
    type Output = Const<N>;
}

/// `Dyn ⊕ X = X::WithDyn`: `Const<N>` (checked at run time), or `Dyn` for
/// `One` and `Dyn`
#[diagnostic::do_not_recommend]
impl<X: Dim> BroadcastDim<X> for Dyn {
    type Output = X::WithDyn;
}

/// [`BroadcastDim`] at dimension `DIM` of the broadcast shape (counted from
/// the left, as PyTorch counts it): the bound the shape rules state, so that
/// a mismatch names the dimension.
///
/// ```
/// use shaped::{BroadcastsAt, Const, One};
/// let _: <Const<4> as BroadcastsAt<One, 2>>::Output = Const::<4>;
/// ```
#[diagnostic::on_unimplemented(
    message = "shape mismatch: the size of tensor a (`{Self}`) must match the size of tensor b (`{Rhs}`) at non-singleton dimension {DIM}",
    label = "these shapes do not broadcast",
    note = "two sizes broadcast when they are equal or one of them is 1 (`One`); for fixed sizes, line the axes up: `.unsqueeze::<K>()` adds a size-1 axis, `.transpose::<I, J>()` swaps two; for two generic sizes that are equal, say so with `B: EqualDim<C>`, or check them at run time with `.into_dyn()` on one operand"
)]
pub trait BroadcastsAt<Rhs: Dim, const DIM: usize> {
    /// The broadcast size.
    type Output: Dim;
}

/// Any pair with a [`BroadcastDim`] rule.
#[diagnostic::do_not_recommend]
impl<A: BroadcastDim<B>, B: Dim, const DIM: usize> BroadcastsAt<B, DIM> for A {
    type Output = <A as BroadcastDim<B>>::Output;
}

/// A **type operator** giving the shape two shapes broadcast to: trailing
/// dimensions aligned, missing ones taken as `One`, each pair combined by
/// [`BroadcastDim`].
///
/// Mixing a static shape with [`DynRank`] gives `DynRank`.
///
/// ```
/// use shaped::{BroadcastShape, DynRank, Shape};
/// let _: <Shape![4, 1] as BroadcastShape<Shape![4]>>::Output = Default::default();
/// let _: <Shape![2, 3] as BroadcastShape<DynRank>>::Output = DynRank;
/// ```
#[diagnostic::on_unimplemented(
    message = "the shapes `{Self}` and `{Rhs}` cannot be broadcast at compile time",
    label = "no broadcasting rule for these shapes",
    note = "static shapes broadcast at compile time up to rank 12; use `DynRank` for higher ranks"
)]
pub trait BroadcastShape<Rhs: Shape>: Shape {
    /// The broadcast shape.
    type Output: Shape;
}

/// `A ⊕ B`, for every pair of shapes with a rule.
impl<A: Shape + ShapePair<B>, B: Shape> BroadcastShape<B> for A {
    type Output = <A as ShapePair<B>>::Joint;
}

/// The rule for one pair of shapes, generated for every pair of tuple ranks.
///
/// Kept apart from [`BroadcastShape`] so that the public trait has a single
/// impl: then an error lists no "other types that implement" it.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "the shapes `{Self}` and `{Rhs}` cannot be broadcast at compile time",
    label = "no broadcasting rule for these shapes",
    note = "static shapes broadcast at compile time up to rank 12; use `DynRank` for higher ranks"
)]
pub trait ShapePair<Rhs> {
    /// The broadcast shape (not `Output`, so that `S::Output` stays
    /// unambiguous for a generic `S: Shape`, of which this is a supertrait).
    type Joint: Shape;
}

/// `DynRank ⊕ S = DynRank`, checked at run time
impl<S: Shape> ShapePair<S> for DynRank {
    type Joint = DynRank;
}

/// The shape that `Self`, `B` and `C` broadcast to together, as three-operand
/// operations (`addcmul`, `where`, `lerp`, `clamp`) broadcast: PyTorch's docs show
/// that broadcasting all three at once equals broadcasting step by step.
///
/// ```
/// use shaped::{Broadcast3, Shape};
/// let _: <Shape![3, 1] as Broadcast3<Shape![4], Shape![2, 1, 1]>>::Output =
///     <Shape![2, 3, 4]>::default();
/// ```
pub trait Broadcast3<B: Shape, C: Shape>: Shape {
    /// The broadcast shape of the three.
    type Output: Shape;
}

/// `broadcast(A, B, C) = (A ⊕ B) ⊕ C`
impl<A, B, C> Broadcast3<B, C> for A
where
    A: BroadcastShape<B>,
    B: Shape,
    C: Shape,
    A::Output: BroadcastShape<C>,
{
    type Output = <A::Output as BroadcastShape<C>>::Output;
}

/// Short name for the shape `A` and `B` broadcast to.
///
/// ```
/// use shaped::{Broadcast, Shape};
/// let _: Broadcast<Shape![1], Shape![3, 1, 7]> = <Shape![3, 1, 7]>::default();
/// ```
pub type Broadcast<A, B> = <A as BroadcastShape<B>>::Output;
