//! Matrix products: `matmul` with NumPy's batch broadcasting, the BLAS
//! family (`mm`, `mv`, `bmm`, `dot`, `outer`) and the products with an
//! addend (`addmm`, `addmv`, `addr`, `baddbmm`, `addbmm`: PyTorch's "fused"
//! BLAS forms, not lazy fusion), as PyTorch defines them.
//!
//! | file | what |
//! |---|---|
//! | `shape.rs` | the rules at the type level: result types and compile errors |
//! | `call_rule.rs` | each batched product's and `addmm`-family product's whole rule as one bound, for one short error |
//! | `rules.rs` | the same rules at run time, with PyTorch's messages |
//! | `products.rs` | `matmul`, `mm`, `mv`, `bmm`, `dot`, `outer` |
//! | `addmm.rs` | `addmm`, `addmv`, `addr`, `baddbmm`, `addbmm` and their in-place forms |
//! | `amx.rs` | the switch for `f32` products on AMX tiles |
//!
//! Static sizes are checked by the compiler: the contracted sizes must be
//! equal ([`ContractsWith`]), `matmul`'s batch dimensions broadcast
//! ([`BroadcastDim`](crate::BroadcastDim)), and the result type is exact.
//! `Dyn` sizes and [`DynRank`](crate::DynRank) operands are checked at run
//! time. Naming: `op` panics with PyTorch's message on a run-time shape
//! error, `try_op` returns it; a trailing `_` (`addmm_`) writes into the
//! input, which keeps its shape.
//!
//! Only `matmul` broadcasts its operands; the `addmm` family broadcasts only
//! its added input, to the shape of the product.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<f32, Shape![2, 5, 7]>::ones();
//! let b = Tensor::<f32, Shape![5, 2, 7, 3]>::ones();
//! let c: Tensor<f32, Shape![5, 2, 5, 3]> = a.matmul(&b);
//! assert!(c.to_vec().iter().all(|&x| x == 7.0));
//! ```
//!
//! # Design
//! The front is thin: each method states its rule in its signature, then
//! erases the shapes and calls a `rules.rs` function (run-time sizes in, a
//! batched product out) and the device's [`Gemm`](crate::backend::Gemm)
//! (on the CPU `backend/cpu/matmul.rs`), generic over the element type only.
//! Every product, whatever its ranks and promotions, becomes one problem for
//! one backend kernel: a batch of `m x k` by `k x n` products with a stride
//! per batch dimension (0 where broadcast), so expanded, transposed and
//! sliced operands are read where they lie, never copied.

mod addmm;
mod amx;
mod call_rule;
mod products;
pub(crate) mod rules;
mod shape;

pub use amx::{amx_active, set_amx};
pub use call_rule::{ProductRule, product_op};
pub use shape::{
    AddendDim, AddendShape, BatchBroadcastsAt, BatchShape, ContractsWith, FitsProduct, Matmul,
    MatmulShape, MatrixShape, MmWith, SameBatch, VectorShape,
};
#[doc(hidden)]
pub use shape::{AddendPair, MatmulPair};
