//! Fused pointwise chains: one pass over memory, shapes checked by the
//! compiler.
//!
//! `relu(a * b + c)` evaluated eagerly makes three passes over memory and
//! two temporaries. Built from [`Tensor::lazy`](crate::Tensor::lazy), the
//! same chain is a [`Lazy`] expression, a tree of op-table operations
//! (`backend/op/table.rs`) whose type carries its shape; evaluating it runs the
//! whole tree in one pass: on the CPU over blocks of the iteration plan
//! that stay in L1 (`backend/cpu/fused.rs`), on CUDA as one kernel
//! generated for the expression and cached (`backend/cuda/fused.rs`).
//! The nodes here know no backend: each backend lowers the expression's
//! erased form itself (`backend/cpu/fused/lower.rs`,
//! `backend/cuda/fused_lower.rs`).
//!
//! - Shapes: each operation's shape is the eager operation's
//!   (`Broadcast<A, B>`), so a static mismatch is a compile error where
//!   the expression is built, and a run-time one (`Dyn`, `DynRank`) is the
//!   eager operation's error, returned by [`Lazy::try_eval`].
//! - Operands: [`Lazy`] expressions, `&Tensor`s and scalars
//!   ([`IntoLazy`]); comparisons give `bool` expressions, and
//!   [`Lazy::select`] is `where`.
//! - Ends: [`Lazy::eval`] (a new tensor), [`Lazy::eval_into`] (PyTorch's
//!   `out=`), and reductions evaluated in the same pass ([`Lazy::sum`],
//!   [`Lazy::sum_dim`]).
//! - Compiled once per chain of operations: the backends evaluate the
//!   expression's erased form ([`Node::erased`](crate::backend::fused::Node::erased):
//!   tensor leaves as their layouts, [`ErasedLeaf`], no shape type),
//!   so the same chain over tensors of different static shapes shares one
//!   evaluator (and on CUDA one generated kernel); the static shapes are
//!   checked where the expression is built, the run-time sizes when it is
//!   evaluated.
//!
//! The eager operations stay for everything else (user closures, index
//! ops, matrix products); a fused expression is an optimisation of a chain
//! of pointwise ops, not a second API.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., -2., 3., -4., 5., -6.]);
//! let b = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
//! let c = Tensor::<f32, Shape![2, 1]>::from_vec(vec![0.5, 1.0]);
//! let r: Tensor<f32, Shape![2, 3]> = (a.lazy() * &b + &c).relu().eval();
//! assert_eq!(r.to_vec(), [1.5, 0., 9.5, 0., 11., 0.]);
//! ```
//!
//! A static broadcast mismatch does not compile:
//!
//! ```compile_fail
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<f32, Shape![2, 3]>::ones();
//! let b = Tensor::<f32, Shape![4]>::ones();
//! let _ = (a.lazy() * &b).eval();
//! ```

#[cfg(test)]
mod cpu_eval_tests;
mod lazy;
mod nodes;
mod reduce;

pub use lazy::{IntoLazy, Lazy, lazy};
pub use nodes::{Binary, ErasedLeaf, ErasedScalar, Leaf, Scalar, Ternary, Unary};
