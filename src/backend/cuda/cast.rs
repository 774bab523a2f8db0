//! The CUDA C of the casts between element types (`to_dtype`), by
//! [`CastFrom`](crate::element::CastFrom)'s rules: one expression per pair
//! of element kinds and two helpers. Built without the `cuda` feature, so
//! that `tests/cast_table.rs` compiles every expression for the host and
//! checks it against the CPU's casts.

/// What kind of value an element type holds.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Float,
    Int,
    UInt,
    Bool,
}

fn kind(t: &str) -> Kind {
    match t {
        "float32" | "float64" => Kind::Float,
        "int32" | "int64" => Kind::Int,
        "uint8" => Kind::UInt,
        "bool" => Kind::Bool,
        _ => panic!("no CUDA type for {t}"),
    }
}

/// The helpers the expressions call: a double truncated toward zero and
/// saturated to the range of `long long` (NaN to 0) or of `unsigned long
/// long`, as Rust's `as` does.
pub const CAST_HELPERS: &str = include_str!("kernels/cast_helpers.cu");

/// The C expression converting `a` (of type `A0`, the element type named
/// `from`) to `OUT` (named `to`; names as `Element::NAME`): floats
/// truncate toward zero, saturate to the 64-bit range (NaN to 0), then wrap
/// into the target as integers do (a non-negative float to an unsigned
/// type saturates to the `u64` range first); integers wrap; to `bool` is
/// `a != 0` (NaN is true); `bool` is 0 or 1; float to float rounds to
/// nearest.
///
/// ```
/// use shaped::backend::cuda_cast_expression;
/// assert_eq!(cuda_cast_expression("float32", "bool"), "(a != (A0)0)");
/// assert_eq!(cuda_cast_expression("int64", "uint8"), "(OUT)(long long)a");
/// ```
///
/// # Panics
/// For a type the CUDA backend does not store.
pub fn cast_expression(from: &str, to: &str) -> &'static str {
    match (kind(from), kind(to)) {
        (_, Kind::Bool) => "(a != (A0)0)",
        (Kind::Bool, _) => "(OUT)(a ? 1 : 0)",
        (Kind::Float, Kind::Float) => "(OUT)a",
        (Kind::Float, Kind::Int) => "(OUT)sh_f2i64((double)a)",
        (Kind::Float, Kind::UInt) => {
            "((double)a >= 0.0 ? (OUT)sh_f2u64((double)a) : (OUT)sh_f2i64((double)a))"
        }
        (Kind::Int, _) => "(OUT)(long long)a",
        (Kind::UInt, _) => "(OUT)(unsigned long long)a",
    }
}
