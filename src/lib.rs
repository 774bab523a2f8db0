//! Tensors whose shapes are checked by the compiler.
//!
//! `shaped` resolves NumPy/PyTorch broadcasting with the trait solver: the
//! shape of `a + b` is computed from the shapes of `a` and `b` at compile
//! time, and shapes that cannot broadcast are a compile error naming the two
//! sizes. Where a size is only known at run time ([`Dyn`]) or the rank too
//! ([`DynRank`]), the same code checks at run time with PyTorch's wording.
//!
//! ```
//! use shaped::{tensor, DynRank, Shape, Tensor};
//!
//! // Static: the result type is computed by the compiler.
//! let x = tensor![[1.0f32], [2.0], [3.0]];              // Shape![3, 1]
//! let y = Tensor::<f32, Shape![4]>::ones();
//! let z: Tensor<f32, Shape![3, 4]> = &x + &y;
//! assert_eq!(z.to_vec()[..4], [2., 2., 2., 2.]);
//!
//! // Dynamic: the same rule at run time, with PyTorch's message.
//! let a = Tensor::<f32, DynRank>::try_zeros(&[5, 2, 4, 1]).unwrap();
//! let b = Tensor::<f32, DynRank>::try_zeros(&[3, 1, 1]).unwrap();
//! assert_eq!(a.try_add(&b).unwrap_err().to_string(),
//!     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1");
//! ```
//!
//! `shaped` is for array code whose shapes you want checked and documented by
//! types, with PyTorch's semantics; it is not a graphics-math library of small
//! fixed matrices (use nalgebra or glam there).
//!
//! Layers, each depending only on those before it:
//! - [`shape`]: dimensions, shapes, broadcasting rules (type level and run
//!   time), shape errors. No tensors.
//! - [`tensor`](mod@tensor): `Tensor<T, S, D>`, constructors, views, printing.
//! - [`iter`]: the one iteration plan every elementwise kernel uses.
//! - [`ops`]: each operation once: its shape rule and its call into the
//!   backend. Naming: `op` panics on a run-time shape error, `try_op` returns
//!   it, `op_` works in place, `op_out` writes into a given tensor.
//! - [`linalg`]: batched linear algebra (`inv`, `solve`, `svd`, ...) with
//!   PyTorch's batching, on the CPU through faer.
//! - `backend`: the loops that touch memory (all of the crate's `unsafe`):
//!   `cpu`, and `cuda` (kernels generated as CUDA C, compiled by NVRTC,
//!   cuBLAS; feature `cuda`). Operations on CUDA tensors are in `ops::cuda`;
//!   [`device`] has the [`Cuda`](device::Cuda) device type, present in every
//!   build so that mixing devices is a compile error everywhere.
//! - [`autograd`]: reverse-mode gradients over the ops, each broadcast
//!   input's gradient summed back to its own shape.
//! - [`nn`]: training on top of autograd: losses, layers with their sizes in
//!   their types, parameters and optimizers.
#![warn(missing_docs)]

extern crate self as shaped;

pub mod autograd;
pub(crate) mod backend;
pub mod device;
pub mod element;
pub mod iter;
pub mod linalg;
pub mod nn;
pub mod ops;
pub mod shape;
pub mod tensor;

/// Re-exported: static ranks and sizes of dims storage use these.
pub use generic_array;
pub use ops::index::IndexElement;
pub use ops::{try_where_cond, where_cond};
pub use shape::{
    Broadcast, Broadcast3, BroadcastDim, BroadcastShape, Const, Dim, DimExpandsTo, Dyn, DynRank,
    ExpandsTo, FixedDim, FixedShape, One, ShapeError, broadcast_shapes,
};
pub use shaped_macros::Shape;
pub use shaped_macros::tensor;
pub use tensor::{Tensor, try_broadcast_tensors, try_broadcast_tensors3};
/// Re-exported: a static shape's rank is a typenum number.
pub use typenum;

/// The README's examples, compiled and run as doctests so that they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
