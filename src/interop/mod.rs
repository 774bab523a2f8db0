//! Conversions to and from the arrays of other crates, each behind its
//! feature: [`ndarray`](mod@ndarray) (feature `ndarray`),
//! [`nalgebra`](mod@nalgebra) (feature `nalgebra`), and serde's
//! `Serialize`/`Deserialize` (feature `serde`, module `serde`).

#[cfg(feature = "nalgebra")]
pub mod nalgebra;
#[cfg(feature = "ndarray")]
pub mod ndarray;
#[cfg(feature = "serde")]
pub mod serde;
