//! Conversions to and from the arrays of other crates, each behind its
//! feature: ndarray's (feature `ndarray`, module `ndarray`), nalgebra's
//! (feature `nalgebra`, module `nalgebra`), and serde's
//! `Serialize`/`Deserialize` (feature `serde`, module `serde`).

#[cfg(feature = "nalgebra")]
pub mod nalgebra;
#[cfg(feature = "ndarray")]
pub mod ndarray;
#[cfg(feature = "serde")]
pub mod serde;
