//! The one iteration plan shared by every elementwise and reduction kernel,
//! like PyTorch's TensorIterator: broadcast shape, each operand's
//! strides in it (0 where broadcast), dimensions reordered and coalesced, and
//! inner loops handed out for threads.
//!
//! Device-neutral: nothing here touches memory or has a shape type
//! parameter; the CPU backend walks [`Plan::segments`] over ranges it runs
//! in parallel, and a GPU backend can read the same coalesced sizes and
//! strides.
//!
//! ```
//! use shaped::iter::{broadcast_strides, Plan};
//! let out = [4, 4];
//! let b = broadcast_strides(&[4], &[1], &out);
//! let plan = Plan::new(&out, [(&[4, 1][..], 0), (&b[..], 0)]);
//! let mut visited = 0;
//! plan.segments(0, plan.numel(), |_, _, len| visited += len);
//! assert_eq!(visited, 16);
//! ```

mod plan;

pub use plan::{Plan, broadcast_strides, contiguous_strides};
