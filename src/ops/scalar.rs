//! The scalar functions behind the pointwise operations, with PyTorch's
//! semantics where they differ from Rust's operators: `fmod` takes the
//! dividend's sign, `remainder` the divisor's, floor division rounds toward
//! negative infinity, `maximum`/`minimum` propagate NaN, `round` rounds half
//! to even.
//!
//! ```
//! use shaped::ops::scalar::{fmod, remainder};
//! assert_eq!(fmod(-3.0f64, 2.0), -1.0);
//! assert_eq!(remainder(-3.0f64, 2.0), 1.0);
//! assert_eq!(remainder(-3i32, 2), 1);
//! ```

pub use crate::backend::op::scalar::*;
