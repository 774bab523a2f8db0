//! `DynRank`: a shape whose rank, like its sizes, is known only at run time.
//!
//! Mixing it with a static shape gives `DynRank`; every check happens at run
//! time with PyTorch's wording.
//!
//! ```
//! use shaped::{Broadcast, DynRank, Shape};
//! let _: Broadcast<DynRank, Shape![3, 4]> = DynRank;
//! ```

/// A shape of dynamic rank: the sizes live in a small vector at run time.
///
/// ```
/// use shaped::shape::{DynRank, Shape};
/// assert_eq!(DynRank::RANK, None);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DynRank;
