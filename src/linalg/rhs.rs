//! The two-operand rules of the matrix functions ([`LstsqShape`],
//! [`SolveShape`]) stated on the shape of the right operand, for one short
//! compile error (`CrossRhs`, the same for `cross`, sits beside its rule in
//! `vector.rs`).
//!
//! `lstsq(a, b)` and `solve(a, b)` bound `SB: SolveRhs<SA>`
//! (...), return its `Output` and name it in a second, always true bound
//! (`SB::Output: Shape`). `SB` is inferred from the last argument, so
//! the compiler checks the rule once both shapes are known, when it
//! normalizes that projection at the call: a mismatch is one error with the
//! failing rule's message, and no quote of the function's bounds (a bound
//! on `SA` would be checked, and reported, as soon as `a` is, and again with
//! the bound quoted).
//!
//! ```
//! use shaped::{Shape, linalg::SolveRhs};
//! let _: <Shape![3, 2] as SolveRhs<Shape![3, 3]>>::Output = <Shape![3, 2]>::default();
//! ```

use super::{LstsqShape, SolveShape};
use crate::shape::Shape;

/// [`LstsqShape`] with `Self` the shape of `B` in `lstsq(A, B)` and `SA` of
/// `A`: `Output` is the shape of the solution.
///
/// ```
/// use shaped::{Shape, linalg::LstsqRhs};
/// let _: <Shape![5, 2] as LstsqRhs<Shape![5, 3]>>::Output = <Shape![3, 2]>::default();
/// ```
pub trait LstsqRhs<SA: Shape>: Shape {
    /// The shape of `X`.
    type Output: Shape;
}

/// Every pair with an [`LstsqShape`] rule.
impl<SA: LstsqShape<SB>, SB: Shape> LstsqRhs<SA> for SB {
    type Output = <SA as LstsqShape<SB>>::Output;
}

/// [`SolveShape`] with `Self` the shape of `B` in `solve(A, B)` and `SA` of
/// `A`: `Output` is the shape of the solution.
///
/// ```
/// use shaped::{Shape, linalg::SolveRhs};
/// let _: <Shape![4, 2] as SolveRhs<Shape![4, 4]>>::Output = <Shape![4, 2]>::default();
/// ```
pub trait SolveRhs<SA: Shape>: Shape {
    /// The shape of `X`.
    type Output: Shape;
}

/// Every pair with a [`SolveShape`] rule.
impl<SA: SolveShape<SB>, SB: Shape> SolveRhs<SA> for SB {
    type Output = <SA as super::SolveOutput<SB>>::Output;
}
