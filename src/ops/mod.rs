//! Operations, each defined once for every device: its shape rule (type
//! level and run time) and a call into the [`Backend`](crate::backend::Backend).
//!
//! | file | operations |
//! |---|---|
//! | `map.rs` | `map`, `zip_map`, `zip_map3` and their in-place forms: the building blocks |
//! | `binary.rs` | two-operand math (every form: `op`, `try_op`, `op_out`, `op_`, `try_op_`; the forms table), comparisons, logical ops |
//! | `unary.rs` | one-operand math |
//! | `ternary.rs` | three-operand ops: `addcmul`, `addcdiv`, `lerp`, `where_cond`, `clamp` |
//! | `operators.rs` | `std::ops` impls: `+ - * / %`, unary `-`, `+=` ... |
//! | `table.rs` | the op table's public name: `backend/op/table.rs` defines every built-in pointwise op (Rust function, CUDA expression, CPU kernels) once, beside the op traits the backends read |
//! | `scalar.rs` | the scalar functions with PyTorch's semantics |
//! | `reduce/` | reductions with `keepdim`, `argmax`, `softmax`, `sum_to` (naming in its doc) |
//! | `operand.rs` | the compile error for a second operand of another element type ([`SameElement`]); one on another device fails [`SameDevice`] |
//! | `sort.rs` | `sort` (stable) and `topk` along the last axis, with `i64` positions |
//! | `multinomial.rs` | `multinomial`: seeded class draws from rows of weights, with or without replacement |
//! | `triangle.rs` | `tril`, `triu`: a triangle of the matrices in the last two axes |
//! | `index/` | indexing (`select`, `slice`, `index!`), joining (`cat`, `stack`, `split`), `gather` / `scatter`, `index_select`, masked ops |
//!
//! Naming: `op` panics with PyTorch's message on a run-time shape error,
//! `try_op` returns it; a trailing `_` (`add_`) writes in place.

mod binary;
pub mod conv;
pub mod index;
mod map;
pub mod matmul;
mod multinomial;
mod operand;
mod operators;
pub mod reduce;
pub mod scalar;
mod sort;
pub mod table;

pub(crate) use crate::backend::cpu::exec;
mod ternary;
pub(crate) mod triangle;
pub(crate) mod unary;

pub use crate::tensor::host;
pub use crate::tensor::pointwise;
pub use binary::{BinaryOpForms, binary_op_table};
pub use operand::{SameDevice, SameElement, SecondOperand, TensorParts};
pub use ternary::{try_where_cond, where_cond};
