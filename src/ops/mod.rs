//! Operations, each defined once: its shape rule (type level and run time)
//! and a call into the backend through the iteration plan.
//!
//! | file | operations |
//! |---|---|
//! | `map.rs` | `map`, `zip_map`, `zip_map3` and their in-place forms: the building blocks |
//! | `binary.rs` | two-operand math (every form: `op`, `try_op`, `op_out`, `op_`, `try_op_`; the op table), comparisons, logical ops |
//! | `unary.rs` | one-operand math |
//! | `ternary.rs` | three-operand ops: `addcmul`, `addcdiv`, `lerp`, `where_cond`, `clamp` |
//! | `operators.rs` | `std::ops` impls: `+ - * / %`, unary `-`, `+=` ... |
//! | `scalar.rs` | the scalar functions with PyTorch's semantics |
//! | `locks.rs` | the one order in which operations take storage guards |
//! | `reduce/` | reductions with `keepdim`, `argmax`, `softmax`, `sum_to` (naming in its doc) |
//! | `cuda/` | the same operations on CUDA tensors (feature `cuda`) |
//! | `devices.rs` | the compile error for operators between devices ([`SameDevice`](crate::device::SameDevice)) |
//! | `index/` | indexing (`select`, `slice`, `index!`), joining (`cat`, `stack`, `split`), `gather` / `scatter`, `index_select`, masked ops |
//!
//! Naming: `op` panics with PyTorch's message on a run-time shape error,
//! `try_op` returns it; a trailing `_` (`add_`) writes in place.

mod binary;
#[cfg(feature = "cuda")]
pub mod cuda;
pub(crate) mod devices;
pub(crate) mod exec;
pub mod index;
pub(crate) mod locks;
mod map;
pub mod matmul;
mod operators;
pub mod reduce;
pub mod scalar;
mod ternary;
mod unary;

pub use binary::{BinaryOpForms, binary_op_table};
pub use ternary::{try_where_cond, where_cond};
