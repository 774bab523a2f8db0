//! Dimensions: a static size `Const<N>`, the stretchable size `One`, and `Dyn`,
//! a size known only at run time.
//!
//! Size 1 has a type of its own because it is the only size that stretches
//! when broadcasting; keeping it apart makes the broadcasting impls disjoint
//! without specialization (see `broadcast.rs`).
//!
//! ```
//! use shaped::{Const, Dim, Dyn, One};
//!
//! assert_eq!(<Const<5> as Dim>::SIZE, Some(5));
//! assert_eq!(<One as Dim>::SIZE, Some(1));
//! assert_eq!(<Dyn as Dim>::SIZE, None);
//! ```
//!
//! # Why `Const<1>` is a build-time error, not a `cargo check` one
//! `Shape![..]` never writes `Const<1>` (it writes `One`); a hand-written
//! `Const<1>` is refused by an assertion in `<Const<N> as Dim>::SIZE`,
//! which rustc evaluates only when it instantiates code that uses the
//! constant: `cargo build` and `cargo test` report it, `cargo check` and
//! rust-analyzer do not. Stable Rust has no bound that holds for every
//! `N` but 1: a trait bound cannot name `N != 1` (that needs
//! `generic_const_exprs`), an impl cannot leave out one value of a const
//! parameter (that needs negative impls or specialization), and an impl per
//! listed size (typenum-style) would refuse every size not listed. The same
//! limit, with no library code:
//!
//! ```compile_fail,E0080
//! struct Const<const N: usize>;
//! trait Dim { const SIZE: usize; }
//! impl<const N: usize> Dim for Const<N> {
//!     const SIZE: usize = { assert!(N != 1, "`Const<1>` is not a dimension"); N };
//! }
//! fn numel<D: Dim>() -> usize { D::SIZE }
//! fn main() { numel::<Const<1>>(); } // `cargo check` passes; `cargo build` fails
//! ```
//!
//! The build-time error's first line says what to write instead:
//! "`Const<1>` is not a dimension: write `One` (or `1` in `Shape![...]`), the
//! size-1 dimension that broadcasts". `Tensor::reshape` between two fixed
//! shapes has the same limit (see its documentation).
//!
//! # The per-dimension rules
//! `Dim`'s supertraits are the rules every dimension meets
//! ([`BroadcastDim`], [`SameDim`], [`EqualOutput`], [`DimExpandsTo`],
//! [`DimFits`]), and each rule is bounded by `Dim`: one recursive
//! definition, so the rules are declared here, beside `Dim`. Their impls
//! for the three dimension types, and the shape-level rules built on them,
//! are in `broadcast.rs`, `same.rs` and `expand.rs`, which import this
//! file (and this file none of them).

use core::fmt::Debug;

/// A dimension whose size `N` is known at compile time.
///
/// `N` must not be 1: size 1 is written [`One`] (or `1` in
/// [`Shape!`](crate::Shape)), the dimension that broadcasts. A shape that
/// names `Const<1>` fails to build with a message that says so, instead of
/// silently refusing to broadcast.
///
/// ```
/// use shaped::{Const, Dim};
/// assert_eq!(Const::<3>::SIZE, Some(3));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Const<const N: usize>;

/// The static size 1: the dimension that stretches to any other size when
/// broadcasting.
///
/// ```
/// use shaped::{Dim, One};
/// assert_eq!(One::SIZE, Some(1));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct One;

/// A dimension whose size is known only at run time.
///
/// Broadcasting a `Dyn` with a static size keeps the static size and checks
/// the run-time size when the operation runs.
///
/// ```
/// use shaped::{Dim, Dyn};
/// assert_eq!(Dyn::SIZE, None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dyn;

/// A dimension type: [`Const<N>`], [`One`] or [`Dyn`].
///
/// Sealed: the broadcasting rules are written for exactly these three.
///
/// # Generic dimensions
///
/// A function generic over `B: Dim` (a batch size, say) needs no other bound
/// for the rules whose result the types decide: the supertraits state them
/// for every dimension, so the trait solver knows them for a generic `B`.
///
/// | rule | result |
/// |---|---|
/// | `B ⊕ B`, `B ⊕ One`, `One ⊕ B` | `B` |
/// | `B ⊕ Dyn`, `Dyn ⊕ B` | `B::WithDyn` (`Const<N>` stays, `One` gives `Dyn`) |
/// | `B` equal to `B` or to `Dyn` (`matmul`'s inner sizes, `bmm`'s batches, `cat_with`) | `B` |
/// | `B`, `One` or `Dyn` written in place into `B`; `B` into `Dyn` | allowed |
///
/// Two different parameters `B` and `C` cannot be proven equal, so `(B, 3) +
/// (C, 3)` is a compile error; state that they are with a
/// [`EqualDim`](crate::EqualDim) bound (`B: EqualDim<C>`), which each caller's
/// sizes then meet, or convert one side with
/// [`Tensor::into_dyn`](crate::Tensor::into_dyn) to check the sizes at run
/// time instead, and [`Tensor::try_into_shape`](crate::Tensor::try_into_shape)
/// to get a static shape back.
///
/// ```
/// use shaped::{Const, Dim, Shape, Tensor};
/// fn residual<B: Dim>(x: &Tensor<f32, Shape![B, 3]>, bias: &Tensor<f32, Shape![1, 3]>)
///     -> Tensor<f32, Shape![B, 3]> {
///     &(x + bias) + x
/// }
/// fn size_of<D: Dim>() -> Option<usize> { D::SIZE }
/// assert_eq!(size_of::<Const<7>>(), Some(7));
/// let x = Tensor::<f32, Shape![2, 3]>::ones();
/// assert_eq!(residual(&x, &Tensor::zeros()).to_vec(), vec![2.0; 6]);
/// ```
pub trait Dim:
    Copy
    + Default
    + Debug
    + Send
    + Sync
    + 'static
    + sealed::Sealed
    + BroadcastDim<Self, Output = Self>
    + BroadcastDim<One, Output = Self>
    + BroadcastDim<Dyn, Output = <Self as Dim>::WithDyn>
    + SameDim<Self, Output = Self>
    + SameDim<Dyn, Output = Self>
    + EqualOutput<Self, Output = Self>
    + EqualOutput<Dyn, Output = Self>
    + DimExpandsTo<Self, Checked = Fits>
    + DimExpandsTo<Dyn, Checked = Fits>
    + DimFits<Fits = Fits>
{
    /// The size, when it is known at compile time.
    const SIZE: Option<usize>;
    /// What this dimension broadcasts to with a [`Dyn`]: a `Const<N>` stays
    /// (the run-time size is checked against it), `One` and `Dyn` give
    /// `Dyn`.
    type WithDyn: Dim;
}

/// The build-time error for a hand-written `Const<1>`.
const CONST_ONE: &str = "`Const<1>` is not a dimension: write `One` (or `1` in `Shape![...]`), the size-1 dimension that broadcasts";

impl<const N: usize> Dim for Const<N> {
    // One line, so that the build-time error quotes one line of it.
    const SIZE: Option<usize> = {
        assert!(N != 1, "{}", CONST_ONE);
        Some(N)
    };
    type WithDyn = Const<N>;
}

impl Dim for One {
    const SIZE: Option<usize> = Some(1);
    type WithDyn = Dyn;
}

impl Dim for Dyn {
    const SIZE: Option<usize> = None;
    type WithDyn = Dyn;
}

/// A dimension whose size is static: [`Const<N>`] or [`One`].
///
/// ```
/// use shaped::{Const, FixedDim};
/// assert_eq!(<Const<4> as FixedDim>::N, 4);
/// ```
pub trait FixedDim: Dim {
    /// The size.
    const N: usize;
}

impl<const N: usize> FixedDim for Const<N> {
    const N: usize = match <Self as Dim>::SIZE {
        Some(n) => n,
        None => N,
    };
}

/// The size of a [`FixedDim`] from its [`Dim::SIZE`]: a shape's element
/// count reads `SIZE` directly, so that a `Const<1>` in it is reported with
/// one note fewer than through [`FixedDim::N`].
pub(crate) const fn fixed_size(size: Option<usize>) -> usize {
    match size {
        Some(n) => n,
        None => 0,
    }
}

impl FixedDim for One {
    const N: usize = 1;
}

pub(crate) mod sealed {
    pub trait Sealed {}
    impl<const N: usize> Sealed for super::Const<N> {}
    impl Sealed for super::One {}
    impl Sealed for super::Dyn {}
}

/// A **type operator** giving the size two dimensions broadcast to.
///
/// Every [`Dim`] broadcasts with itself, with [`One`] and with [`Dyn`] (in
/// both orders), so a generic `B: Dim` needs no further bound for these.
///
/// ```
/// use shaped::{BroadcastDim, Const, Dim, Dyn, One};
/// let _: <One as BroadcastDim<Const<3>>>::Output = Const::<3>;
/// let _: <Dyn as BroadcastDim<Const<3>>>::Output = Const::<3>;
/// let _: <Dyn as BroadcastDim<Dyn>>::Output = Dyn;
/// fn generic<B: Dim>() -> (<B as BroadcastDim<B>>::Output, <B as BroadcastDim<One>>::Output) {
///     (B::default(), B::default())
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "shape mismatch: a dimension of size `{Self}` cannot broadcast with one of size `{Rhs}`",
    label = "these shapes do not broadcast",
    note = "two sizes broadcast when they are equal or one of them is 1 (`One`); for fixed sizes, line the axes up: `.unsqueeze::<K>()` adds a size-1 axis, `.transpose::<I, J>()` swaps two; for two generic sizes that are equal, say so with `B: EqualDim<C>`, or check them at run time with `.into_dyn()` on one operand"
)]
pub trait BroadcastDim<Rhs: Dim> {
    /// The broadcast size.
    type Output: Dim;
}

/// A **type operator**: the size two dimensions that must be equal share.
///
/// Every [`Dim`] is equal to itself and to [`Dyn`] (in both orders), so a
/// generic `B: Dim` needs no further bound for these.
#[diagnostic::on_unimplemented(
    message = "size mismatch: `{Self}` and `{Rhs}` must be equal",
    label = "these sizes differ",
    note = "these sizes do not broadcast (the batches of `bmm`, `baddbmm` and `addbmm`, the inner sizes of a product, the rows of `solve`, the sizes away from the axis of `cat_with`); for two generic sizes that are equal, say so with `B: EqualDim<C>`, or check them at run time with `.into_dyn()` on one tensor"
)]
pub trait SameDim<Rhs: Dim> {
    /// The size both have: the static one where the other is `Dyn`.
    type Output: Dim;
}

/// The size two dimensions share when they are equal, for **every** pair:
/// the static one, or the right one where the left is [`Dyn`]. Result types
/// are computed with it rather than with the `Output` of a checking rule such
/// as [`SameDim`], so that a mismatch is reported once, by the rule named in
/// the method's bounds and with its message (normalizing a failing rule's
/// `Output` would report the inner rule's message instead).
///
/// ```
/// use shaped::{Const, Dyn, One, shape::EqualOutput};
/// let _: <Dyn as EqualOutput<Const<3>>>::Output = Const::<3>;
/// let _: <One as EqualOutput<Dyn>>::Output = One;
/// ```
pub trait EqualOutput<Rhs: Dim> {
    /// The shared size.
    type Output: Dim;
}

/// A dimension of the source can be expanded to the target's dimension.
///
/// ```
/// use shaped::{Const, DimExpandsTo, One};
/// fn check<S: DimExpandsTo<T>, T: shaped::Dim>() {}
/// check::<One, Const<7>>();
/// ```
#[diagnostic::on_unimplemented(
    message = "shape mismatch: a dimension of size `{Self}` cannot expand to the size `{Target}`",
    label = "only a size 1 (`One`) expands to another size",
    note = "an expanded size must be 1 (`One`) or equal to the target's size; `{Self}` is neither for `{Target}`"
)]
pub trait DimExpandsTo<Target: Dim> {
    /// [`Fits`] once the pair is checked: the in-place rule passes each
    /// target size through the check of the dimension after it (see
    /// [`ExpandsAt`](super::ExpandsAt)), so that one mismatch is one error.
    type Checked: Checked;
}

/// The outcome of a passed check: [`Fits`]. Its `Then<T>` is `T`, so the
/// next check's target exists only once this one passed.
///
/// ```
/// use shaped::{Const, shape::{Checked, Fits}};
/// let _: <Fits as Checked>::Then<Const<4>> = Const::<4>;
/// ```
#[doc(hidden)]
pub trait Checked {
    /// `T`.
    type Then<T>;
}

/// A check that passed.
#[doc(hidden)]
#[derive(Debug, Clone, Copy, Default)]
pub struct Fits;

/// `Then<T> = T`
impl Checked for Fits {
    type Then<T> = T;
}

/// [`Fits`] for every dimension (a supertrait of [`Dim`], so it holds for a
/// generic `B: Dim`): the outcome of a check whose result is the target
/// size `Self` alone (`One → X`, `Dyn → X`).
///
/// ```
/// use shaped::{Const, shape::{DimFits, Fits}};
/// let _: <Const<3> as DimFits>::Fits = Fits;
/// ```
#[doc(hidden)]
pub trait DimFits {
    /// [`Fits`].
    type Fits: Checked;
}
