//! Operations, each defined once: its shape rule (type level and run time)
//! and a call into the backend through the iteration plan.

pub(crate) mod exec;
