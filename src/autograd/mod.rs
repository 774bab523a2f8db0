//! Reverse-mode automatic differentiation whose gradients come back in each
//! input's own shape.
//!
//! ```
//! use shaped::autograd::Var;
//! use shaped::{Shape, Tensor};
//! // A = [1, 2, 3], B = [1.], C = A + B; C.sum().backward().
//! let a = Var::param(Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]));
//! let b = Var::param(Tensor::<f32, Shape![1]>::from_vec(vec![1.]));
//! let grads = a.add(&b).sum().backward();
//! let ga: Tensor<f32, Shape![3]> = grads.wrt(&a).unwrap();
//! let gb: Tensor<f32, Shape![1]> = grads.wrt(&b).unwrap();
//! assert_eq!(ga.to_vec(), vec![1., 1., 1.]);
//! assert_eq!(gb.to_vec(), vec![3.]);
//! ```
//!
//! # Design
//! **A `Var` wrapper, not a flag on `Tensor`.** [`Var<T, S>`](Var) holds a
//! [`Tensor<T, S>`](crate::Tensor) and, when it needs a gradient, an
//! `Arc` to its node in the graph. Keeping the graph out of `Tensor` leaves
//! the ops layer untouched (no op file knows about gradients), keeps
//! `Tensor` a plain value that is `Clone` without graph bookkeeping, and
//! makes "needs a gradient" visible in the types a function takes. A value
//! computed only from constants has no node: its operation is the tensor
//! operation alone, with no closure built and nothing saved.
//!
//! **Typed front, erased core.** Each `Var` method computes its value with
//! the typed tensor operation (so the result type is the same as for
//! tensors, e.g. `Broadcast<S, S2>`), then records a node whose backward
//! function works on [`DynRank`](crate::DynRank) tensors and is generic over
//! the element type and the device only. The engine checks that every gradient has exactly
//! the sizes of the value it belongs to, and [`Gradients::wrt`] returns the
//! gradient of a `Var<T, S>` as a `Tensor<T, S>`: for an input that was
//! broadcast, the only way to that type is through `sum_to`, which every
//! broadcasting rule applies (seeds 003 and 004).
//!
//! **Any device.** `Var<T, S, D>` takes the device of its value (`D`
//! defaults to [`Cpu`](crate::device::Cpu)); a `Var<f32, S, Cuda>` records
//! and back-propagates on the GPU, and its gradients stay there. The rules
//! written for every [`GradDevice`] use no closures: each derivative is an
//! op-table entry (`tanh_backward`, `div_backward_other`, ...) run by
//! [`Backend`](crate::backend::Backend) primitives, masks are table
//! comparisons and `where`, and the reductions and `sum_to` are the
//! backend's. That is every rule: the pointwise ops (`add` ... `atan2`,
//! the unary table ops, `addcmul`, `addcdiv`, `lerp`, `clamp`,
//! `clamp_tensor`, `where_cond`, `mul_scalar`, `add_scalar`), the
//! reductions (`sum`, `mean`, `prod`, `max`, `min`, `var`, `std`, `norm`,
//! `logsumexp`, all dims, `_dim`, `_dim_keepdim`, `_dims`), `softmax` and
//! `log_softmax`, `sum_to`, the views, the matmul family, the index ops
//! (`index.rs`), the logistic loss, fused chains, and the linear algebra
//! ([`linalg`], whose backward passes are batched factorizations, solves
//! and products on the device; `eig`'s runs on the host, as its forward
//! pass does).
//!
//! ```
//! use shaped::autograd::{GradDevice, Var};
//! use shaped::ops::host;
//! use shaped::{Shape, Tensor};
//! // Written once; `D` may be `Cpu` or `Cuda`.
//! fn grad_of_square_sum<D: GradDevice<f32>>(x: Tensor<f32, Shape![3], D>) -> Vec<f32> {
//!     let x = Var::param(x);
//!     let g = x.square().sum().backward().wrt(&x).unwrap();
//!     host::to_host(&g).unwrap()
//! }
//! let x = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
//! assert_eq!(grad_of_square_sum(x), vec![2., 4., 6.]);
//! ```
//!
//! **The graph.** Nodes are numbered in creation order, so a node is always
//! newer than its inputs; the backward pass visits the nodes reachable from
//! the loss newest first (a reverse topological order), accumulates the
//! gradients of a value used several times, and frees each gradient once
//! passed on. Gradients are returned in a [`Gradients`] map rather than
//! stored in the parameters, so a backward pass has no side effects. A
//! backward rule returns a `Result`: one that cannot form its gradient (the
//! zeros of an expanded input's sizes, too large to allocate, say) returns
//! its error, the pass stops, and [`Var::try_backward`] returns it;
//! `backward` panics with it at the caller's line.
//!
//! **No materialised broadcasts.** The gradient of `sum` is the upstream
//! gradient expanded (stride 0), and the gradient of a broadcast input is
//! `sum_to` of the upstream gradient, reduced by the iteration plan with the
//! broadcast dimensions at stride 0: the backward pass of `(4096, 4096) +
//! (4096,)` never builds a 4096×4096 copy of the bias (see
//! `tests/autograd_memory.rs`).
//!
//! | file | gradients of |
//! |---|---|
//! | `graph.rs` | (the nodes and the engine) |
//! | `device.rs` | (`GradDevice`; scalars, zeros, `reshape`, `sum_to` on any device) |
//! | `var.rs` | (`Var`, `Gradients`, `backward`) |
//! | `pointwise.rs` | `add` ... `atan2`, `addcmul`, `addcdiv`, `lerp`, `clamp`, `where_cond` |
//! | `unary.rs` | `neg` ... `reciprocal`; rounding and `sign` (zero) |
//! | `views.rs` | `expand`, `broadcast_to`, `broadcast_in_dim`, `permute`, `transpose`, `unsqueeze`, `squeeze`, `reshape`, `narrow` |
//! | `reduce.rs` | `sum` ... `logsumexp`, `softmax`, `log_softmax`, `sum_to` |
//! | `index.rs` | `gather`, `index_select`, `take_along_dim`, `masked_fill`, `cat`, `select`, `slice`, `slice_step` |
//! | `linalg.rs` | `inv`, `det`, `solve`, `cholesky`, `solve_triangular`, `matrix_power`, `matrix_exp`, `cross`, `vector_norm_dims` (device formulas); `linalg/decomp.rs` the decompositions' |
//! | `matmul.rs` | `matmul` (NumPy's rules, batch broadcasting), `mm` |
//! | `norm.rs` | batch normalisation's training pass (one recorded operation) |
//! | `conv.rs` | `conv1d`, `conv2d`, `max_pool2d`, `avg_pool2d`, `adaptive_avg_pool2d` (im2col ↔ col2im) |
//! | `operators.rs` | `+ - * /` and unary `-` |
//! | `logistic.rs` | the logistic loss on logits (`binary_cross_entropy_with_logits`) |
//! | `no_grad.rs` | (`no_grad`: a scope that records nothing) |
//!
//! **Matmul.** [`Var::matmul`] computes its value with
//! [`Tensor::try_matmul`](crate::Tensor::try_matmul) (result type
//! `Matmul<S, S2>`) and records `g · bᵀ` and `aᵀ · g`, computed on the
//! operands promoted to matrices (a 1-D left operand a row, a 1-D right one
//! a column) at the broadcast batch, then summed with `sum_to` to each
//! operand's promoted sizes and reshaped back to its own.

mod conv;
mod device;
mod fused;
mod graph;
mod index;
#[cfg(feature = "linalg")]
pub mod linalg;
mod logistic;
mod matmul;
mod no_grad;
mod norm;
mod operators;
mod pointwise;
mod reduce;
mod unary;
mod var;
mod views;

pub use device::GradDevice;
pub(crate) use device::scalar_like;
pub use fused::{Adjoint, FusedBackward, VarLeaf};
pub use no_grad::{NoGradGuard, no_grad};
pub use pointwise::where_cond;
pub use var::{Gradients, Var};
