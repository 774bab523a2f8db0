//! Shapes: dimension types, shapes as tuples of them, broadcasting at the type
//! level and at run time, and shape errors. No tensors here.
//!
//! A static shape is a tuple of dimensions, written with [`Shape!`](crate::Shape):
//! `Shape![5, 1, 4, _]` is `(Const<5>, One, Const<4>, Dyn)`. A shape whose rank
//! is known only at run time is [`DynRank`].
//!
//! | file | rule |
//! |---|---|
//! | `dim.rs` | the three dimension types |
//! | `broadcast.rs` | `A ⊕ B` at the type level, two and three operands |
//! | `expand.rs` | in place: `B` expands to `A` without changing `A` |
//! | `same.rs` | two sizes that must be equal (no broadcasting): joins, products |
//! | `dyn_rank.rs` | shapes of dynamic rank |
//! | `runtime.rs` | the same rules on run-time sizes |
//! | `const_message.rs` | messages of build-time shape errors, naming sizes |
//! | `error.rs` | `ShapeError`, worded as PyTorch words it |
//!
//! ```
//! use shaped::{broadcast_shapes, Broadcast, Shape};
//! use shaped::shape::Shape as _;
//!
//! type Out = Broadcast<Shape![5, 1, 4, 1], Shape![3, 1, 1]>;
//! assert_eq!(Out::STATIC_DIMS, &[Some(5), Some(3), Some(4), Some(1)]);
//! assert_eq!(broadcast_shapes(&[&[5, 1, 4, 1], &[3, 1, 1]]).unwrap(), vec![5, 3, 4, 1]);
//! ```

mod axis;
pub(crate) mod broadcast;
pub(crate) mod const_message;
mod dim;
mod dyn_rank;
mod error;
pub(crate) mod expand;
mod runtime;
pub(crate) mod same;
mod split;

pub use axis::{
    AppendAxis, CatAxis, InsertAxis, RemoveAxis, SetAxis, SetLastAxis, SplitLast, Squeezable,
    SqueezeAxis, StackAxis, SwapAxes,
};
#[doc(hidden)]
pub use axis::{JoinAxis, NewAxis};
#[doc(hidden)]
pub use broadcast::ShapePair;
pub use broadcast::{Broadcast, Broadcast3, BroadcastShape, BroadcastsAt};
pub use dim::{BroadcastDim, Const, Dim, DimExpandsTo, Dyn, EqualOutput, FixedDim, One, SameDim};
#[doc(hidden)]
pub use dim::{Checked, DimFits, Fits};
pub use dyn_rank::DynRank;
pub(crate) use error::OrPanic;
pub use error::ShapeError;
#[doc(hidden)]
pub use expand::ShapeExpands;
pub use expand::{BroadcastTo, ExpandsAt, ExpandsTo, SumTo};
pub use runtime::{DimVec, broadcast_shapes, check_expand, check_inplace, checked_numel};
pub(crate) use runtime::{broadcast_pair, check_static};
#[doc(hidden)]
pub use same::JoinPair;
pub use same::{EqualDim, JoinDim, JoinShape};
pub use split::SplitsInto;

use core::fmt::Debug;
use core::hash::Hash;

use generic_array::{ArrayLength, GenericArray};

/// The highest rank for which static shapes have broadcasting impls.
///
/// ```
/// assert_eq!(shaped::shape::MAX_STATIC_RANK, 12);
/// ```
pub const MAX_STATIC_RANK: usize = 12;

/// A shape type: a tuple of [`Dim`]s (static rank) or [`DynRank`].
///
/// Sealed. The type says what is known at compile time; a tensor keeps its
/// run-time sizes in [`Shape::Dims`].
///
/// ```
/// use shaped::{Shape, shape::Shape as _};
/// assert_eq!(<Shape![2, _]>::RANK, Some(2));
/// assert_eq!(<Shape![2, _]>::STATIC_DIMS, &[Some(2), None]);
/// assert!(<Shape![2, _]>::check_dims(&[2, 9]).is_ok());
/// assert!(<Shape![2, _]>::check_dims(&[3, 9]).is_err());
/// ```
///
/// A generic `S: Shape` broadcasts with itself and expands to itself in
/// place, with no other bound (the supertraits are the hidden rules behind
/// [`BroadcastShape`] and [`ExpandsTo`]):
///
/// ```
/// use shaped::{Tensor, shape::Shape};
/// fn double<S: Shape>(x: &Tensor<f32, S>) -> Tensor<f32, S> {
///     let mut y = x + x;
///     y += x;
///     y
/// }
/// let x = Tensor::<f32, shaped::Shape![2]>::ones();
/// assert_eq!(double(&x).to_vec(), vec![3.0, 3.0]);
/// ```
pub trait Shape:
    Copy
    + Default
    + Debug
    + Send
    + Sync
    + 'static
    + sealed::Sealed
    + ShapePair<Self, Joint = Self>
    + ShapeExpands<Self>
{
    /// Run-time storage for sizes and strides: `GenericArray<usize, Rank>` for
    /// a static rank, a small vector for [`DynRank`].
    type Dims: Dims;
    /// The rank, when it is static.
    const RANK: Option<usize>;
    /// For each dimension, its size when static (empty for [`DynRank`]).
    const STATIC_DIMS: &'static [Option<usize>];

    /// Checks run-time sizes against this shape and stores them.
    ///
    /// # Errors
    /// [`ShapeError::Rank`] or [`ShapeError::StaticSize`] when `dims` does not
    /// fit the static rank or a static size; [`ShapeError::TooLarge`] when
    /// the element count exceeds `isize::MAX`.
    fn check_dims(dims: &[usize]) -> Result<Self::Dims, ShapeError> {
        check_static(Self::RANK, Self::STATIC_DIMS, dims)?;
        Ok(Self::Dims::from_slice(dims))
    }

    /// The sizes of a shape whose every dimension is static, or `None`.
    fn static_sizes() -> Option<Self::Dims> {
        Self::RANK?;
        let sizes: Option<DimVec> = Self::STATIC_DIMS.iter().copied().collect();
        sizes.map(|s| Self::Dims::from_slice(&s))
    }
}

/// A shape whose rank is static: a tuple of dimensions.
///
/// ```
/// use shaped::{Shape, shape::StaticShape};
/// use shaped::typenum::Unsigned;
/// assert_eq!(<<Shape![4, 1, 5] as StaticShape>::Rank as Unsigned>::USIZE, 3);
/// ```
pub trait StaticShape: Shape {
    /// The rank as a typenum number.
    type Rank: ArrayLength + typenum::Unsigned;
}

/// A shape whose every size is static: a tuple of [`Const`] and [`One`].
///
/// ```
/// use shaped::{Shape, shape::FixedShape};
/// assert_eq!(<Shape![2, 1, 3] as FixedShape>::NUMEL, 6);
/// ```
pub trait FixedShape: StaticShape {
    /// The number of elements.
    const NUMEL: usize;
}

/// Run-time sizes (or strides) of a shape: fixed length for a static rank.
///
/// ```
/// use shaped::shape::Dims;
/// use shaped::generic_array::{GenericArray, typenum::U2};
/// let d = <GenericArray<usize, U2> as Dims>::from_slice(&[3, 4]);
/// let sizes: &[usize] = d.as_ref();
/// assert_eq!(sizes, &[3, 4]);
/// ```
pub trait Dims:
    Clone + Debug + PartialEq + Eq + Hash + Send + Sync + AsRef<[usize]> + AsMut<[usize]> + 'static
{
    /// Copies `dims`. For a static rank, `dims.len()` must be that rank.
    ///
    /// # Panics
    /// If the length differs from a static rank; callers check the rank first.
    fn from_slice(dims: &[usize]) -> Self;
}

impl<N: ArrayLength> Dims for GenericArray<usize, N> {
    #[track_caller]
    fn from_slice(dims: &[usize]) -> Self {
        GenericArray::from_slice(dims).clone()
    }
}

impl Dims for DimVec {
    fn from_slice(dims: &[usize]) -> Self {
        DimVec::from_slice(dims)
    }
}

impl sealed::Sealed for DynRank {}

impl Shape for DynRank {
    type Dims = DimVec;
    const RANK: Option<usize> = None;
    const STATIC_DIMS: &'static [Option<usize>] = &[];
}

pub(crate) mod sealed {
    pub trait Sealed {}
}

shaped_macros::__static_shape_impls!(12);
