//! `ShapeError`: every way a run-time shape check can fail, worded as
//! PyTorch words it.
//!
//! ```
//! use shaped::broadcast_shapes;
//!
//! let err = broadcast_shapes(&[&[5, 2, 4, 1], &[3, 1, 1]]).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 1"
//! );
//! ```

use core::fmt;

/// A shape check that failed at run time.
///
/// `Display` gives PyTorch's message where PyTorch has one for the same
/// failure, so that errors read the same in both libraries.
///
/// ```
/// use shaped::ShapeError;
/// let e = ShapeError::Mismatch { a: 2, b: 3, dim: 1 };
/// assert!(e.to_string().starts_with("The size of tensor a (2)"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ShapeError {
    /// Two sizes that are neither equal nor 1 meet at dimension `dim` of the
    /// broadcast result.
    Mismatch {
        /// Size in the first shape.
        a: usize,
        /// Size in the second shape.
        b: usize,
        /// Index of the dimension in the broadcast result.
        dim: usize,
    },
    /// `expand` / `broadcast_to`: a tensor of size `existing` cannot be
    /// expanded to size `expanded` at dimension `dim` of the target. (In-place
    /// operations report [`ShapeError::Mismatch`] or
    /// [`ShapeError::OutputShape`] instead, as current PyTorch does.)
    Expand {
        /// The target size.
        expanded: usize,
        /// The size of the tensor being expanded.
        existing: usize,
        /// Index of the dimension in the target shape.
        dim: usize,
        /// The whole target shape, as given (`expand` keeps its -1s).
        target: Vec<isize>,
        /// The whole shape of the tensor being expanded.
        tensor: Vec<usize>,
    },
    /// In place: the operands broadcast, but not to the output's shape.
    OutputShape {
        /// The output's shape.
        output: Vec<usize>,
        /// The shape the operands broadcast to.
        broadcast: Vec<usize>,
    },
    /// A dynamic shape does not have the rank a static shape needs.
    Rank {
        /// The static rank.
        expected: usize,
        /// The shape found.
        found: Vec<usize>,
    },
    /// A dynamic shape has the wrong size where a static shape fixes it.
    StaticSize {
        /// Index of the dimension.
        dim: usize,
        /// The static size.
        expected: usize,
        /// The shape found.
        found: Vec<usize>,
    },
    /// A buffer or a view has the wrong number of elements for a shape.
    Numel {
        /// The shape asked for.
        shape: Vec<usize>,
        /// The number of elements there are.
        numel: usize,
    },
    /// A dimension index is out of range for a tensor's rank.
    DimOutOfRange {
        /// The index given (negative counts from the end).
        dim: isize,
        /// The tensor's rank.
        rank: usize,
    },
    /// Any other invalid argument; the message says which and why.
    Invalid(String),
    /// The number of elements of a shape exceeds `isize::MAX` (PyTorch's
    /// limit: its sizes and element counts are `int64_t`).
    TooLarge {
        /// The shape.
        shape: Vec<usize>,
    },
}

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShapeError::Mismatch { a, b, dim } => write!(
                f,
                "The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension {dim}"
            ),
            ShapeError::Expand {
                expanded,
                existing,
                dim,
                target,
                tensor,
            } => write!(
                f,
                "The expanded size of the tensor ({expanded}) must match the existing size ({existing}) at non-singleton dimension {dim}.  Target sizes: {target:?}.  Tensor sizes: {tensor:?}"
            ),
            ShapeError::OutputShape { output, broadcast } => write!(
                f,
                "output with shape {output:?} doesn't match the broadcast shape {broadcast:?}"
            ),
            ShapeError::Rank { expected, found } => write!(
                f,
                "expected a tensor with {expected} dimensions, but got one of shape {found:?} ({} dimensions)",
                found.len()
            ),
            ShapeError::StaticSize {
                dim,
                expected,
                found,
            } => write!(
                f,
                "expected size {expected} at dimension {dim}, but got shape {found:?}"
            ),
            ShapeError::Numel { shape, numel } => {
                write!(f, "shape '{shape:?}' is invalid for input of size {numel}")
            }
            ShapeError::DimOutOfRange { dim, rank } => {
                let (lo, hi) = if *rank == 0 {
                    (-1, 0)
                } else {
                    (-(*rank as isize), *rank as isize - 1)
                };
                write!(
                    f,
                    "Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})"
                )
            }
            ShapeError::Invalid(msg) => f.write_str(msg),
            ShapeError::TooLarge { .. } => f.write_str("numel: integer multiplication overflow"),
        }
    }
}

impl std::error::Error for ShapeError {}

/// `Result::unwrap` for the panicking forms (`op` beside `try_op`): panics
/// with the error's message, reported at the caller's line. A closure passed
/// to `unwrap_or_else` that panics cannot carry `#[track_caller]`, so its
/// panic would point inside the library; this method can.
pub(crate) trait OrPanic<T> {
    /// The value, or a panic with the error's `Display` text.
    #[track_caller]
    fn or_panic(self) -> T;
}

impl<T, E: fmt::Display> OrPanic<T> for Result<T, E> {
    #[track_caller]
    fn or_panic(self) -> T {
        match self {
            Ok(v) => v,
            Err(e) => panic!("{e}"),
        }
    }
}
