//! Reductions: `sum`, `mean`, `prod`, `max`/`min` (values, indices),
//! `argmax`/`argmin`, `var`/`std`, `norm`, `logsumexp`, `all`/`any`, over
//! every dimension, one, or several, with or without `keepdim`; `softmax`
//! and `log_softmax` along a dimension; and `sum_to` / `sum_to_size`, the
//! reduction that undoes broadcasting.
//!
//! # Naming
//! For a reduction `op`:
//!
//! | form | reduces | result shape |
//! |---|---|---|
//! | `t.op()` | every element | `Shape![]` (0-d), as `torch.op(t)` |
//! | `t.op_dim::<K>()` | axis `K` | `S` without axis `K` ([`RemoveAxis::Output`](crate::shape::RemoveAxis)) |
//! | `t.op_dim_keepdim::<K>()` | axis `K` | `S` with axis `K` of size 1 ([`RemoveAxis::KeepDim`](crate::shape::RemoveAxis)) |
//! | `t.try_op_dims(&[..], keepdim)` | run-time dims, negative from the end | [`DynRank`](crate::DynRank) |
//! | `t.op_dims(&[..], keepdim)` | the same, panicking on error | `DynRank` |
//!
//! For static shapes the compile-time axis `K` is checked by the compiler:
//! an axis out of range is a type error ("axis 3 is out of range for a
//! tensor of shape ..."). For [`DynRank`](crate::DynRank) tensors `K` is
//! checked at run time with PyTorch's message.
//!
//! **Several static axes** are reduced by chaining, highest axis first so
//! that the lower axis keeps its index: `t.sum_dim::<2>().sum_dim::<0>()`.
//! Chaining is exact for `sum`, `prod`, `max`, `min`, `all`, `any`,
//! `logsumexp` and (for equal group sizes) `mean`; `var`, `std` and `norm`
//! do not compose that way, so reduce them over several axes at once with
//! `try_op_dims(&[0, 2], keepdim)`.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let t = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]);
//! assert_eq!(t.sum().item(), 21.0);
//! let rows: Tensor<f32, Shape![2]> = t.sum_dim::<1>();
//! assert_eq!(rows.to_vec(), vec![6., 15.]);
//! let cols: Tensor<f32, Shape![1, 3]> = t.sum_dim_keepdim::<0>();
//! assert_eq!(cols.to_vec(), vec![5., 7., 9.]);
//! assert_eq!(t.try_sum_dims(&[-1], false).unwrap().to_vec(), vec![6., 15.]);
//! ```
//!
//! # Design
//! Every method is written once over the device and calls one backend
//! primitive ([`Backend::reduce`](crate::backend::Backend::reduce),
//! `statistic`, `truth`, `arg_extreme`, `softmax`). On the CPU every
//! reduction is one `Reducer` (its accumulator, in `backend/cpu/reducers.rs`)
//! driven by the loops of `backend/cpu/reduce.rs` over the shared iteration
//! plan: the plan gives the output stride 0 on the reduced dimensions, which
//! sorts them innermost; then either each output folds its runs (reduced
//! dimension contiguous) or tiles of outputs accumulate whole rows (a kept
//! dimension contiguous). The typed methods only turn an axis into a mask
//! of reduced dimensions and the result's sizes into its shape type, so the
//! loops are compiled once per element type and reduction, not per shape.
//!
//! Sums are pairwise (blocks of 2048 with 32 accumulators, then a binary
//! tree, and partial results of separate runs or threads combined as a
//! binary counter), so 10^7 copies of `0.1f32` sum to within 1e-4 of the
//! exact value, where a plain `f32` loop drifts by percents.
//!
//! On CUDA, `sum`/`mean`/`prod`/`max`/`min` and `all`/`any` are one
//! reduction kernel each; `var`/`std` (two passes, in the element type),
//! the norms, `logsumexp` and `softmax` are compositions of reduction and
//! op-table kernels; `argmax`/`argmin` and `max`/`min` with indices run
//! their own kernel (a block per row, or a thread per strided column).

pub(crate) mod axes;
mod indices;
mod methods;
mod softmax;
mod sum_to;

pub(crate) use crate::backend::cpu::reducers;
pub use crate::tensor::reduction as primitives;
pub(crate) use sum_to::sum_to_dims;

pub(crate) use axes::{
    Mask, all as all_mask, from_axis as axis_mask, from_dims as dims_mask, reduced_count,
    result_dims,
};

use crate::shape::ShapeError;

/// PyTorch's error for a reduction with no identity over no elements.
pub(crate) fn check_nonempty(
    name: Option<&str>,
    dims: &[usize],
    mask: &[bool],
    all: bool,
) -> Result<(), ShapeError> {
    let Some(name) = name else { return Ok(()) };
    if all && dims.contains(&0) {
        // PyTorch's `argmax`/`argmin` stop after the first sentence.
        let hint = if name.starts_with("arg") {
            ""
        } else {
            " Specify the reduction dim with the 'dim' argument."
        };
        return Err(ShapeError::Invalid(format!(
            "{name}(): Expected reduction dim to be specified for input.numel() == 0.{hint}"
        )));
    }
    match dims.iter().zip(mask).position(|(&d, &m)| m && d == 0) {
        Some(k) => Err(ShapeError::Invalid(format!(
            "{name}(): Expected reduction dim {k} to have non-zero size."
        ))),
        None => Ok(()),
    }
}
