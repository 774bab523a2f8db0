//! Backends: the loops that touch memory. They receive run-time layouts and
//! an [`iter::Plan`](crate::iter::Plan), never a shape type.
//!
//! | item | what |
//! |---|---|
//! | [`Layout`], [`Output`], [`Versioned`] | what a backend sees of a tensor (storage, sizes, strides, offset; no shape type), what it hands back (a new storage and its sizes), and a storage's write count (autograd's check) |
//! | [`Backend`] | the primitive set a device implements (pointwise ops, reductions, index kernels, host copies), all over layouts; the tensor API is written once over it, through typed fronts that erase the shape on the way down and check it on the way up (`shaped::ops::pointwise`, `shaped::ops::reduce::primitives`, `shaped::ops::host`) |
//! | [`Gemm`] | matrix products (strided-batched GEMM with `alpha`, the `addmm` family), over layouts, for the element types a device multiplies |
//! | [`Fill`] | new storages filled with a value or seeded samples, on the device of a given layout (the `*_like` constructors' primitives; the CPU and CUDA constructors call the same kernels) |
//! | `random.rs` | the crate's random stream (SplitMix64), which every device draws the same way |
//! | [`Linalg`] | the factorizations (LU, inverse, solves, determinants, Cholesky, QR, `eigh`, SVD) a device runs for `linalg` |
//! | [`op`] | what an operation is to a backend, and no backend code: a pointwise op's Rust function, CUDA expression and derivative in one type (the table's entries, one list that the CPU also reads to compile each op's `f32` loops in `cpu/table_f32.rs`), the scalar functions behind them (`shaped::ops::scalar`), the index element types and `scatter_reduce`'s reductions (`shaped::ops::index`) |
//! | [`fused`] | what a fused pointwise chain is to a backend: the erased expression (`fused/expr.rs`: op-table nodes over leaves as layouts, no shape types, no backend code), the gradient rules of its operations (`fused/grads.rs`), and the device traits that evaluate it ([`Fused`](fused::Fused)) and differentiate it ([`FusedGrad`](fused::FusedGrad)); each backend lowers it in its own files (`cpu/fused/{lower,adjoint}.rs`, `cuda/fused_{lower,adjoint}.rs`) |
//! | [`geometry`] | the layout of a batched matrix product |
//! | [`Windows`] | the windows of convolutions and poolings ([`Window`]), and a device's direct kernels for them |
//! | `cpu/` | the CPU loops, parallelised on a work-sharing pool, their `f32` instances for the table's ops compiled once in shaped (`compiled.rs`, `table_f32.rs`), and the CPU's storage (`storage.rs`) and lock order (`locks.rs`) |
//! | `cuda/` | the CUDA backend: kernels generated from the op table, NVRTC, cuBLAS (feature `cuda`); its C prelude is public as [`CUDA_PRELUDE`] and [`CUDA_CAST_HELPERS`] for tests that compile the table's expressions for the host |
//!
//! `cpu` and `cuda` hold every `unsafe` block of the crate; each states why
//! its pointer arithmetic stays in bounds.

pub(crate) mod cpu;
pub(crate) mod cuda;
// Only CUDA calls the compositions; the CPU checks them in its tests.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
mod composite;
mod fill;
pub mod fused;
pub mod geometry;
mod layout;
pub mod linalg;
pub mod op;
pub(crate) mod primitives;
pub(crate) mod random;
mod windows;

// The CUDA C that the kernels of the op table are compiled with, for tests
// that compile the table's expressions for the host.
pub use cuda::cast::{CAST_HELPERS as CUDA_CAST_HELPERS, cast_expression as cuda_cast_expression};
pub use cuda::prelude::PRELUDE as CUDA_PRELUDE;
pub use fill::{Distribution, Fill};
pub use layout::{Layout, Output, Versioned};
pub use linalg::Linalg;
pub use primitives::{Backend, Gemm};
pub use windows::{Window, Windows};
