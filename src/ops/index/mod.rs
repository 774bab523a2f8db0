//! Indexing, joining and masked operations, with PyTorch's shape rules
//! (the broadcasting notes' "Indexing, Slicing, Joining, Mutating Ops" and
//! "Uncategorized tensor functions", as current PyTorch settled them).
//!
//! | file | operations | broadcasting |
//! |---|---|---|
//! | `slice.rs` | `select`, `slice`, [`index!`](crate::index) / [`try_index!`](crate::try_index) (views) | none |
//! | `join.rs` | `cat`, `cat_with`, `stack` | none: sizes must match away from the axis |
//! | `split.rs` | `split`, `split_with_sizes`, `chunk` (views) | none |
//! | `gather.rs` | `gather`, `scatter(_)`, `scatter_value(_)`, `scatter_add(_)`, `take_along_dim` (const, run-time or no axis) | `take_along_dim` only |
//! | `scatter_reduce.rs` | `scatter_reduce(_)`: `sum`, `prod`, `mean`, `amax`, `amin`, `include_self` | none |
//! | `select.rs` | `index_select`, `index_add(_)`, `index_copy(_)` | none |
//! | `masked.rs` | `masked_fill(_)` (a number or a 0-d tensor), `masked_scatter(_)`, `masked_select`, `nonzero` | mask with `self` |
//!
//! # Axes: const or run time
//! Where the axis changes the result's *type* (`select`, `slice`, `cat`,
//! `stack`, `split`, `index_select`, `take_along_dim`) it is a const generic
//! `K`, and the result type is computed: an integer index removes the axis
//! ([`RemoveAxis`](crate::shape::RemoveAxis)), a range or a join makes its
//! size `Dyn` ([`SetAxis`](crate::shape::SetAxis)); state a static size
//! afterwards with [`Tensor::try_into_shape`](crate::Tensor::try_into_shape).
//! Where the axis only says where to read or write (`gather`, the scatter
//! family, `index_add_`, `index_copy_`) it is a run-time `dim: isize`, and
//! negative values count from the end, as in PyTorch.
//!
//! # Broadcasting, as current PyTorch does it
//! - `gather` and `scatter` do **not** broadcast the index (the wiki left it
//!   open; current PyTorch settled on none: `index.dim() == self.dim()` and
//!   `index.size(d) <= self.size(d)` for `d != dim`, and for scatter
//!   `index.size(d) <= src.size(d)` for every `d`).
//! - `take_along_dim` broadcasts `self` and the indices against each other
//!   everywhere except along `dim` (NumPy's `take_along_axis` rule).
//! - `cat`, `stack`, `index_select`, `index_add_`, `index_copy_`: no
//!   broadcasting.
//! - `masked_fill_` broadcasts the mask to `self`'s shape, which never
//!   changes ([`ExpandsTo`](crate::ExpandsTo)); `masked_fill` and
//!   `masked_select` broadcast `self` and the mask together.
//!
//! # Index values
//! Index tensors hold `i64` or `i32` ([`IndexElement`]; anything else does not
//! compile). An index out of range is an error that names the index, the
//! dimension and its size (`index 5 is out of bounds for dimension 0 with
//! size 3`), found before any element is written. As in PyTorch, negative
//! values count from the end for integer indexing (`select`, `index!`), and
//! are out of range in index *tensors*.
//!
//! # Gradients
//! Each operation is built so that its backward is another operation here:
//! `gather` ↔ `scatter_add` (into zeros of `self`'s shape), `index_select` ↔
//! `index_add_`, `take_along_dim` ↔ `scatter_add` on the broadcast shape then
//! a sum back to `self`'s shape, `cat` ↔ `split_with_sizes`, `select` and
//! `slice` ↔ a copy into the same view of zeros, `masked_fill` ↔
//! `masked_fill` of the gradient with 0, `masked_select` ↔ the same positions
//! written back into zeros.
//!
//! ```
//! use shaped::{index, Shape, Tensor};
//! let t = Tensor::<i64, Shape![3, 4]>::from_vec((0..12).collect());
//! let row: Tensor<i64, Shape![4]> = index!(t, -1);
//! assert_eq!(row.to_vec(), vec![8, 9, 10, 11]);
//! let idx = Tensor::<i64, Shape![2]>::from_vec(vec![3, 0]);
//! let cols: Tensor<i64, Shape![3, 2]> = t.index_select::<1, _>(&idx);
//! assert_eq!(cols.to_vec(), vec![3, 0, 7, 4, 11, 8]);
//! ```

use crate::tensor::pointwise;

mod gather;
mod join;
mod masked;
mod scatter_reduce;
mod select;
mod slice;
mod split;

pub use crate::backend::op::index::{IndexElement, IndexInt, ScatterReduce};
pub use slice::{AxisIndex, AxisRange, Stepped};
#[doc(hidden)]
pub use slice::{IndexEntry, index_entry};

pub(crate) use crate::backend::primitives::out_of_bounds;

impl<T: crate::element::Element, S: crate::shape::Shape, D: crate::backend::Backend<T>>
    crate::Tensor<T, S, D>
{
    /// A deep copy of `self` changed by the in-place `op`: the body of the
    /// out-of-place `try_` forms (`try_scatter`, `try_index_add`, ...).
    fn try_on_copy(
        &self,
        op: impl FnOnce(&mut Self) -> Result<(), D::Error>,
    ) -> Result<Self, D::Error> {
        let mut out = pointwise::copy(self)?;
        op(&mut out)?;
        Ok(out)
    }
}

/// `e` with `prefix` before PyTorch's "index .. is out of bounds .."
/// message when it is one (`index_copy_` words its index errors so), on
/// either device's error type; any other error unchanged.
pub(crate) fn prefix_index_error<E>(e: E, prefix: &str) -> E
where
    E: std::error::Error + From<crate::shape::ShapeError> + 'static,
{
    use crate::backend::cuda::CudaError;
    use crate::shape::ShapeError;
    let any: &dyn std::any::Any = &e;
    let shape = any.downcast_ref::<ShapeError>().or_else(|| {
        any.downcast_ref::<CudaError>().and_then(|c| match c {
            CudaError::Shape(s) => Some(s),
            _ => None,
        })
    });
    match shape {
        Some(ShapeError::Invalid(m)) if m.starts_with("index ") && m.contains("out of bounds") => {
            E::from(ShapeError::Invalid(format!("{prefix}{m}")))
        }
        _ => e,
    }
}
