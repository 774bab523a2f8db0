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
/// ```
/// use shaped::{Const, Dim};
/// fn size_of<D: Dim>() -> Option<usize> { D::SIZE }
/// assert_eq!(size_of::<Const<7>>(), Some(7));
/// ```
pub trait Dim: Copy + Default + Debug + Send + Sync + 'static + sealed::Sealed {
    /// The size, when it is known at compile time.
    const SIZE: Option<usize>;
}

impl<const N: usize> Dim for Const<N> {
    const SIZE: Option<usize> = {
        assert!(
            N != 1,
            "`Const<1>` is not a dimension: write `One` (or `1` in `Shape![...]`), the size-1 dimension that broadcasts"
        );
        Some(N)
    };
}

impl Dim for One {
    const SIZE: Option<usize> = Some(1);
}

impl Dim for Dyn {
    const SIZE: Option<usize> = None;
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

impl FixedDim for One {
    const N: usize = 1;
}

pub(crate) mod sealed {
    pub trait Sealed {}
    impl<const N: usize> Sealed for super::Const<N> {}
    impl Sealed for super::One {}
    impl Sealed for super::Dyn {}
}
