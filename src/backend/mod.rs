//! Backends: the loops that touch memory. They receive run-time layouts and
//! an [`iter::Plan`](crate::iter::Plan), never a shape type.
//!
//! `cpu` and `cuda` hold every `unsafe` block of the crate; each states why
//! its pointer arithmetic stays in bounds.

pub(crate) mod cpu;
pub(crate) mod cuda;
