//! Conversions to and from the arrays of other crates, each behind its
//! feature: [`ndarray`](mod@ndarray) (feature `ndarray`) and
//! [`nalgebra`](mod@nalgebra) (feature `nalgebra`).

#[cfg(feature = "nalgebra")]
pub mod nalgebra;
#[cfg(feature = "ndarray")]
pub mod ndarray;
