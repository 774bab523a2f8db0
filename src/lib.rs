//! Tensors whose shapes are checked by the compiler.
//!
//! `shaped` resolves NumPy/PyTorch broadcasting with the trait solver: the
//! shape of `a + b` is computed from the shapes of `a` and `b` at compile
//! time, and shapes that cannot broadcast are a compile error naming the two
//! sizes. Where a size is only known at run time ([`Dyn`]) or the rank too
//! ([`DynRank`]), the same code checks at run time with PyTorch's wording.
//!
//! ```
//! use shaped::{broadcast_shapes, Broadcast, Shape};
//! use shaped::shape::Shape as _;
//!
//! // Static: the result type is computed by the compiler.
//! type Out = Broadcast<Shape![5, 1, 4, 1], Shape![3, 1, 1]>;
//! let _: Shape![5, 3, 4, 1] = Out::default();
//!
//! // Dynamic: the same rule at run time.
//! let err = broadcast_shapes(&[&[5, 2, 4, 1], &[3, 1, 1]]).unwrap_err();
//! assert_eq!(err.to_string(),
//!     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1");
//! ```
//!
//! Layers, each depending only on those above it: [`shape`] (dimensions,
//! shapes, broadcasting rules, errors).
#![warn(missing_docs)]

extern crate self as shaped;

pub(crate) mod backend;
pub mod device;
pub mod element;
pub mod iter;
pub mod ops;
pub mod shape;
pub mod tensor;

pub use shape::{
    broadcast_shapes, Broadcast, Broadcast3, BroadcastDim, BroadcastShape, Const, Dim,
    DimExpandsTo, Dyn, DynRank, ExpandsTo, FixedDim, FixedShape, One, ShapeError,
};
pub use shaped_macros::Shape;
/// Re-exported: static ranks and sizes of dims storage use these.
pub use generic_array;
/// Re-exported: a static shape's rank is a typenum number.
pub use typenum;
pub use ops::{try_where_cond, where_cond};
pub use ops::index::IndexElement;
pub use tensor::Tensor;
