#![doc = include_str!("../README.md")]
//!
//! # Map of the crate
//!
//! Layers, from the bottom up (the tensor type and the backend trait meet:
//! `Tensor<T, S, D>` is generic over a device `D`, whose primitives take
//! tensors):
//! - [`shape`]: dimensions, shapes, broadcasting rules (type level and run
//!   time), shape errors. No tensors.
//! - [`element`]: the element types (`f32`, `f64`, `f16`, `bf16`, `i8` ...
//!   `i64`, `u8` ... `u64`, `bool`) and the casts between them.
//! - [`tensor`](mod@tensor): `Tensor<T, S, D>`, constructors, views,
//!   element access, the std traits, printing.
//! - [`iter`]: the one iteration plan every elementwise kernel uses.
//! - [`backend`]: the primitive set every device implements
//!   ([`Backend`](backend::Backend), [`Gemm`](backend::Gemm)), over which
//!   `ops` is written once, and the loops that touch memory (all of the
//!   crate's `unsafe`): `cpu`, and `cuda` (kernels generated from the op
//!   table as CUDA C, compiled by NVRTC, cuBLAS; feature `cuda`).
//!   [`device`] has the [`Cuda`](device::Cuda) device type, present in every
//!   build so that mixing devices is a compile error everywhere.
//! - [`ops`]: each operation once, for every device: its shape rule and its
//!   call into the backend; the op table. Naming: `op` panics on a run-time
//!   shape error, `try_op` returns it, `op_` works in place, `op_out`
//!   writes into a given tensor.
//! - [`fuse`]: chains of op-table operations evaluated in one pass
//!   ([`Lazy`](fuse::Lazy)), with the eager ops' shapes and errors.
//! - `linalg` (feature `linalg`, on by default): batched linear algebra
//!   (`inv`, `solve`, `svd`, ...) with PyTorch's batching, on the CPU
//!   through faer.
//! - [`autograd`]: reverse-mode gradients over the ops, each broadcast
//!   input's gradient summed back to its own shape.
//! - `io` (features `npy`, `safetensors`): tensors in files.
//! - `interop` (features `ndarray`, `nalgebra`, `serde`): conversions to
//!   and from other crates' arrays, and serde.
//! - [`nn`]: training on top of autograd: losses, layers with their sizes in
//!   their types, parameters and optimizers.
//! - [`distributed`]: collectives on tensors and data-parallel training,
//!   over MPI (feature `mpi`) and NCCL (feature `nccl`).
#![warn(missing_docs)]

extern crate self as shaped;

pub mod autograd;
pub mod backend;
pub mod device;
pub mod distributed;
pub mod element;
pub mod fuse;
#[cfg(any(feature = "ndarray", feature = "nalgebra", feature = "serde"))]
pub mod interop;
#[cfg(any(feature = "npy", feature = "safetensors"))]
pub mod io;
pub mod iter;
#[cfg(feature = "linalg")]
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
    Broadcast, Broadcast3, BroadcastDim, BroadcastShape, BroadcastsAt, Const, Dim, DimExpandsTo,
    Dyn, DynRank, EqualDim, ExpandsTo, FixedDim, FixedShape, JoinDim, JoinShape, One, SameDim,
    ShapeError, broadcast_shapes,
};
pub use shaped_macros::Shape;
pub use shaped_macros::tensor;
pub use tensor::{Tensor, try_broadcast_tensors, try_broadcast_tensors3};
/// Re-exported: a static shape's rank is a typenum number.
pub use typenum;
