//! The gradient rules of a fused chain's operations with more than one
//! operand, written once and read by both backends' lowerings of the
//! backward pass (`backend/cpu/fused/adjoint.rs` over blocks,
//! `backend/cuda/fused_adjoint.rs` as C). The one-operand ops' rules are
//! the op table's own derivatives ([`Derivative`](crate::backend::op::Derivative));
//! `where`'s is its branch (the condition takes no gradient).
//!
//! Each rule is given in Rust and in C: in the C form, `{g}` is the
//! upstream adjoint, `{x}`, `{y}`, `{z}` the operands' values and `{T}`
//! the element type.
//!
//! ```
//! use shaped::backend::fused::BinaryRule;
//! use shaped::ops::table::Div;
//! // d(x / y)/dy = -g x / y^2
//! assert_eq!(<Div as BinaryRule<f64>>::db(1.0, 3.0, 2.0), -0.75);
//! assert_eq!(<Div as BinaryRule<f64>>::C[1], "(-{g} * {x} / ({y} * {y}))");
//! ```

use crate::backend::op::{Map2, Map3, table};
use crate::element::Float;

/// The adjoints of a two-operand op's operands, from the upstream adjoint
/// `g` and the operands' values `x`, `y`.
pub trait BinaryRule<T: Float>: Map2<T, Out = T> {
    /// The left operand's adjoint.
    fn da(g: T, x: T, y: T) -> T;
    /// The right operand's adjoint.
    fn db(g: T, x: T, y: T) -> T;
    /// The two adjoints as C.
    const C: [&'static str; 2];
}

/// The factors of the upstream adjoint for each operand of a
/// three-operand op (`clamp`, `lerp`), from the operands' values.
pub trait TernaryRule<T: Float>: Map3<T, T> {
    /// The factor for the first operand.
    fn d0(x: T, y: T, z: T) -> T;
    /// The factor for the second operand.
    fn d1(x: T, y: T, z: T) -> T;
    /// The factor for the third operand.
    fn d2(x: T, y: T, z: T) -> T;
    /// The three factors as C.
    const C: [&'static str; 3];
}

/// Writes the [`BinaryRule`] of each op.
macro_rules! binary_rules {
    ($($Op:ident: |$g:ident, $x:ident, $y:ident| $da:expr, $db:expr; $ca:literal, $cb:literal;)*) => {$(
        impl<T: Float> BinaryRule<T> for table::$Op
        where
            table::$Op: Map2<T, Out = T>,
        {
            #[inline(always)]
            fn da($g: T, $x: T, $y: T) -> T {
                let _ = (&$g, &$x, &$y);
                $da
            }
            #[inline(always)]
            fn db($g: T, $x: T, $y: T) -> T {
                let _ = (&$g, &$x, &$y);
                $db
            }
            const C: [&'static str; 2] = [$ca, $cb];
        }
    )*};
}

binary_rules! {
    Add: |g, x, y| g, g; "{g}", "{g}";
    Sub: |g, x, y| g, -g; "{g}", "(-{g})";
    Mul: |g, x, y| g * y, g * x; "({g} * {y})", "({g} * {x})";
    Div: |g, x, y| g / y, -g * x / (y * y); "({g} / {y})", "(-{g} * {x} / ({y} * {y}))";
}

/// 1 or 0.
#[inline(always)]
fn indicator<T: Float>(c: bool) -> T {
    if c { T::one() } else { T::zero() }
}

/// Writes the [`TernaryRule`] of each op.
macro_rules! ternary_rules {
    ($($Op:ident: |$x:ident, $y:ident, $z:ident| $d0:expr, $d1:expr, $d2:expr; $c0:literal, $c1:literal, $c2:literal;)*) => {$(
        impl<T: Float> TernaryRule<T> for table::$Op
        where
            table::$Op: Map3<T, T>,
        {
            #[inline(always)]
            fn d0($x: T, $y: T, $z: T) -> T {
                let _ = (&$x, &$y, &$z);
                $d0
            }
            #[inline(always)]
            fn d1($x: T, $y: T, $z: T) -> T {
                let _ = (&$x, &$y, &$z);
                $d1
            }
            #[inline(always)]
            fn d2($x: T, $y: T, $z: T) -> T {
                let _ = (&$x, &$y, &$z);
                $d2
            }
            const C: [&'static str; 3] = [$c0, $c1, $c2];
        }
    )*};
}

ternary_rules! {
    // PyTorch's `clamp_backward_min_max`: x where lo <= x <= hi, lo where
    // x < lo < hi, hi where x > hi or hi < lo (the result is then hi).
    Clamp: |x, lo, hi| indicator::<T>(x >= lo && x <= hi), indicator::<T>(x < lo && lo < hi), indicator::<T>(x > hi || hi < lo);
        "(({x} >= {y} && {x} <= {z}) ? ({T})1 : ({T})0)",
        "(({x} < {y} && {y} < {z}) ? ({T})1 : ({T})0)",
        "(({x} > {z} || {z} < {y}) ? ({T})1 : ({T})0)";
    Lerp: |a, e, w| T::one() - w, w, e - a; "(({T})1 - {z})", "{z}", "({y} - {x})";
}
