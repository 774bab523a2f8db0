//! The in-place rule at the type level: a shape expands to a target shape
//! when broadcasting the two gives the target back unchanged.
//!
//! This is the rule of `expand`, `broadcast_to`, `copy_from` and every
//! in-place operation (`a += b` needs `B: ExpandsTo<A>`): the in-place tensor
//! never changes shape.
//!
//! ```
//! use shaped::{ExpandsTo, Shape};
//! fn check<S: ExpandsTo<T>, T: shaped::shape::Shape>() {}
//! check::<Shape![3, 1, 1], Shape![5, 3, 4, 1]>();
//! ```

use super::{Checked, Const, Dim, DimExpandsTo, DimFits, Dyn, DynRank, Fits, One, Shape};

/// `One → X`
#[diagnostic::do_not_recommend]
impl<X: Dim> DimExpandsTo<X> for One {
    type Checked = <X as DimFits>::Fits;
}

/// [`DimExpandsTo`] at dimension `DIM` of the in-place tensor (counted from
/// the left): the bound the in-place rule states, so that a mismatch names
/// the dimension.
///
/// ```
/// use shaped::{Const, One, shape::ExpandsAt};
/// fn check<S: ExpandsAt<T, 1>, T: shaped::Dim>() {}
/// check::<One, Const<7>>();
/// ```
#[diagnostic::on_unimplemented(
    message = "shape mismatch: a size `{Self}` cannot expand to the size `{Target}` at dimension {DIM} of the target",
    label = "only a size 1 (`One`) expands to another size",
    note = "`broadcast_to`, `expand` and in-place operations (`a += b`, whose target `a` keeps its shape) need each size of the expanded tensor to be 1 or equal to the target's; for two generic sizes that are equal, say so with `B: EqualDim<C>`, or check them at run time with `.into_dyn()` on the expanded tensor"
)]
pub trait ExpandsAt<Target, const DIM: usize> {
    /// [`Fits`] once the pair is checked ([`DimExpandsTo::Checked`]).
    ///
    /// The shape rule states the dimensions from the last to the first, the
    /// target of each one written `<Checked as Checked>::Then<T>` with the
    /// `Checked` of the dimension after it: when a dimension fails, the ones
    /// before it have no target and are not reported, so that one mistake
    /// is one error (on the last mismatching dimension, as PyTorch reports
    /// it).
    type Checked: Checked;
}

/// Any pair with a [`DimExpandsTo`] rule.
#[diagnostic::do_not_recommend]
impl<S: DimExpandsTo<T>, T: Dim, const DIM: usize> ExpandsAt<T, DIM> for S {
    type Checked = <S as DimExpandsTo<T>>::Checked;
}

impl<const N: usize> DimFits for Const<N> {
    type Fits = Fits;
}

impl DimFits for One {
    type Fits = Fits;
}

impl DimFits for Dyn {
    type Fits = Fits;
}

/// `Const<N> → Const<N>`
#[diagnostic::do_not_recommend]
impl<const N: usize> DimExpandsTo<Const<N>> for Const<N> {
    type Checked = Fits;
}

/// `Const<N> → Dyn`, checked at run time
#[diagnostic::do_not_recommend]
impl<const N: usize> DimExpandsTo<Dyn> for Const<N> {
    type Checked = Fits;
}

/// `Dyn → X`, checked at run time
#[diagnostic::do_not_recommend]
impl<X: Dim> DimExpandsTo<X> for Dyn {
    type Checked = <X as DimFits>::Fits;
}

/// A shape expands to `Target` without changing it: trailing dimensions
/// aligned, `Self` no longer than `Target`, each aligned pair
/// [`DimExpandsTo`].
///
/// ```
/// use shaped::{DynRank, ExpandsTo, Shape};
/// fn check<S: ExpandsTo<T>, T: shaped::shape::Shape>() {}
/// check::<Shape![4], Shape![3, 4]>();
/// check::<Shape![4], DynRank>();
/// ```
///
/// A method states the rule as `S2: ExpandsTo<S>, S2::Expanded: Shape`: the
/// second bound, always true, makes the compiler check the rule through the
/// projection at the call, which reports a mismatch without quoting the
/// method's bounds.
#[diagnostic::on_unimplemented(
    message = "a tensor of shape `{Self}` cannot be expanded to shape `{Target}`",
    label = "it has more dimensions than the target",
    note = "the expanded tensor must have at most as many dimensions as the target (for `a += b`, the target is `a`)"
)]
pub trait ExpandsTo<Target: Shape>: Shape {
    /// `Target`, the shape after expansion.
    type Expanded: Shape;
}

/// `S → T` for every pair of shapes with a rule.
impl<S: Shape + ShapeExpands<T>, T: Shape> ExpandsTo<T> for S {
    type Expanded = T;
}

/// The in-place rule for one pair of shapes, generated for every pair of tuple
/// ranks; hidden behind [`ExpandsTo`] so that errors list no other impls.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "a tensor of shape `{Self}` cannot be expanded to shape `{Target}`",
    label = "no expansion rule for these shapes",
    note = "static shapes have in-place rules up to rank 12; use `DynRank` for higher ranks"
)]
pub trait ShapeExpands<Target> {}

/// Never implemented: the bound of the in-place rule for a source with more
/// dimensions than the target, so that the error says so and names both
/// shapes.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "shape mismatch: a tensor of shape `{Self}` has more dimensions than the target shape `{Target}`",
    label = "the target cannot gain dimensions",
    note = "`broadcast_to`, `expand` and in-place operations (`a += b`, whose target `a` keeps its shape) need the expanded tensor to have at most as many dimensions as the target"
)]
pub trait FewerDimsThan<Target> {}

/// `S → DynRank`, checked at run time
impl<S: Shape> ShapeExpands<DynRank> for S {}

/// `broadcast_to::<Target>`'s rule as a type operator: `Self` expands to
/// `Target` ([`ExpandsTo`]); `Output` is `Target`.
///
/// `broadcast_to` returns this projection (bounded by `Output = Target`),
/// so that a mismatch is reported once, at the call, with no quote of the
/// method's bounds.
///
/// ```
/// use shaped::{Shape, shape::BroadcastTo};
/// let _: <Shape![3] as BroadcastTo<Shape![2, 3]>>::Output = <Shape![2, 3]>::default();
/// ```
pub trait BroadcastTo<Target: Shape>: ExpandsTo<Target> {
    /// `Target`.
    type Output: Shape;
}

/// Every pair with an [`ExpandsTo`] rule.
impl<S: ExpandsTo<T>, T: Shape> BroadcastTo<T> for S {
    type Output = T;
}

/// `sum_to::<Target>`'s rule as a type operator: `Target` expands to `Self`
/// (the sum undoes a broadcast); `Output` is `Target`. Returned by `sum_to`
/// for the reason given at [`BroadcastTo`].
///
/// ```
/// use shaped::{Shape, shape::SumTo};
/// let _: <Shape![2, 3] as SumTo<Shape![3]>>::Output = <Shape![3]>::default();
/// ```
pub trait SumTo<Target: Shape>: Shape {
    /// `Target`.
    type Output: Shape;
}

/// Every pair whose `Target` has an [`ExpandsTo`] rule to `Self`.
impl<S: Shape, T: ExpandsTo<S>> SumTo<T> for S {
    type Output = T;
}
