//! The table naming every operation the GPU runs, with its scalar function
//! written in CUDA C: the GPU twin of the CPU tables in `ops/binary.rs`,
//! `ops/unary.rs` and `ops/ternary.rs`, with the same PyTorch semantics (see
//! `ops/scalar.rs`). Each tensor method in `ops/cuda/` looks its kernel up
//! here by its own name, and the kernel list that `tests/cuda_kernels.rs`
//! compiles is generated from this table, so every kernel a method can
//! launch has been compiled in CI.
//!
//! Expressions see the operands `a`, `b`, `c`, the scalar argument `s` (all
//! of type `T`, or `bool` where the table says so) and the helper functions
//! of the prelude in `source.rs` (`sh_wadd`, `sh_remainder`, ...).
//!
//! A separate table (rather than a CUDA column in the CPU macros) keeps the
//! CPU files, which another line of work owns, untouched; `tests/cuda_ops.rs`
//! compares every entry with its CPU twin on the same inputs.

/// Which element types an op accepts (as the CPU op's trait bound).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Every element type, `bool` included (`Element`).
    Any,
    /// Every type but `bool` (`Numeric`).
    Numeric,
    /// `f32`, `f64`, `i32`, `i64` (`Signed`).
    Signed,
    /// `f32`, `f64` (`Float`).
    Float,
}

impl Family {
    /// Whether the element type named `t` (`Element::NAME`) is in the family.
    pub fn admits(self, t: &str) -> bool {
        match self {
            Family::Any => true,
            Family::Numeric => t != "bool",
            Family::Signed => matches!(t, "float32" | "float64" | "int32" | "int64"),
            Family::Float => matches!(t, "float32" | "float64"),
        }
    }
}

/// One operation: name, operand count, family, result type and expression.
#[derive(Clone, Copy, Debug)]
pub struct OpDef {
    /// The method's name (`add`, `exp`, ...).
    pub name: &'static str,
    /// Number of tensor operands (1, 2 or 3).
    pub arity: usize,
    /// The element types it takes.
    pub family: Family,
    /// Whether the result is `bool` (comparisons, logical ops).
    pub bool_out: bool,
    /// Whether the first operand is a `bool` condition (`where`).
    pub bool_first: bool,
    /// The scalar function in CUDA C.
    pub expr: &'static str,
}

const fn op(name: &'static str, arity: usize, family: Family, expr: &'static str) -> OpDef {
    OpDef {
        name,
        arity,
        family,
        bool_out: false,
        bool_first: false,
        expr,
    }
}

const fn pred(name: &'static str, expr: &'static str) -> OpDef {
    OpDef {
        name,
        arity: 2,
        family: Family::Any,
        bool_out: true,
        bool_first: false,
        expr,
    }
}

use Family::{Any, Float, Numeric, Signed};

/// Every elementwise operation of the CUDA backend.
pub const OPS: &[OpDef] = &[
    // Copies (contiguous(), to_cpu of views, broadcast materialisation).
    op("copy", 1, Any, "a"),
    // Binary (ops/binary.rs).
    op("add", 2, Numeric, "sh_wadd(a, b)"),
    op("sub", 2, Numeric, "sh_wsub(a, b)"),
    op("mul", 2, Numeric, "sh_wmul(a, b)"),
    op("div", 2, Float, "a / b"),
    op("div_trunc", 2, Numeric, "sh_div_trunc(a, b)"),
    op("div_floor", 2, Numeric, "sh_div_floor(a, b)"),
    op("fmod", 2, Numeric, "sh_fmod(a, b)"),
    op("remainder", 2, Numeric, "sh_remainder(a, b)"),
    op("pow", 2, Numeric, "sh_pow(a, b)"),
    op("atan2", 2, Float, "atan2(a, b)"),
    op("maximum", 2, Numeric, "sh_maximum(a, b)"),
    op("minimum", 2, Numeric, "sh_minimum(a, b)"),
    op("add_alpha", 2, Numeric, "sh_wadd(a, sh_wmul(s, b))"),
    op("sub_alpha", 2, Numeric, "sh_wsub(a, sh_wmul(s, b))"),
    pred("eq", "a == b"),
    pred("ne", "a != b"),
    pred("lt", "a < b"),
    pred("le", "a <= b"),
    pred("gt", "a > b"),
    pred("ge", "a >= b"),
    pred("logical_and", "(a != (T)0) && (b != (T)0)"),
    pred("logical_or", "(a != (T)0) || (b != (T)0)"),
    pred("logical_xor", "(a != (T)0) != (b != (T)0)"),
    // Unary (ops/unary.rs).
    op("neg", 1, Signed, "sh_wsub((T)0, a)"),
    op("abs", 1, Signed, "(a < (T)0 ? sh_wsub((T)0, a) : a)"),
    op(
        "sign",
        1,
        Numeric,
        "(a > (T)0 ? (T)1 : (a < (T)0 ? (T)-1 : (T)0))",
    ),
    op("square", 1, Numeric, "sh_wmul(a, a)"),
    op("relu", 1, Numeric, "(a < (T)0 ? (T)0 : a)"),
    op("exp", 1, Float, "exp(a)"),
    op("log", 1, Float, "log(a)"),
    op("log1p", 1, Float, "log1p(a)"),
    op("expm1", 1, Float, "expm1(a)"),
    op("sqrt", 1, Float, "sqrt(a)"),
    op("rsqrt", 1, Float, "(T)1 / sqrt(a)"),
    op("sin", 1, Float, "sin(a)"),
    op("cos", 1, Float, "cos(a)"),
    op("tan", 1, Float, "tan(a)"),
    op("tanh", 1, Float, "tanh(a)"),
    op("sigmoid", 1, Float, "(T)1 / ((T)1 + exp(-a))"),
    op(
        "gelu",
        1,
        Float,
        "a * (T)0.5 * ((T)1 + erf(a * (T)0.70710678118654752440))",
    ),
    op("silu", 1, Float, "a * ((T)1 / ((T)1 + exp(-a)))"),
    op("floor", 1, Float, "floor(a)"),
    op("ceil", 1, Float, "ceil(a)"),
    op("round", 1, Float, "rint(a)"),
    op("trunc", 1, Float, "trunc(a)"),
    op("reciprocal", 1, Float, "(T)1 / a"),
    // Ternary (ops/ternary.rs).
    op(
        "addcmul",
        3,
        Numeric,
        "sh_wadd(a, sh_wmul(s, sh_wmul(b, c)))",
    ),
    op("addcdiv", 3, Float, "a + s * (b / c)"),
    op("lerp", 3, Float, "sh_lerp(a, b, c)"),
    op("lerp_scalar", 2, Float, "sh_lerp(a, b, s)"),
    op("clamp", 3, Numeric, "sh_clamp(a, b, c)"),
    OpDef {
        name: "where",
        arity: 3,
        family: Any,
        bool_out: false,
        bool_first: true,
        expr: "(a ? b : c)",
    },
];

/// The table entry named `name`.
///
/// # Panics
/// When no op has that name (a bug in `shaped`).
pub fn find(name: &str) -> &'static OpDef {
    OPS.iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("no CUDA op named {name}"))
}

/// The reductions: name, family, identity, combining expression of the
/// accumulators `x` and `y`, and whether the result is scaled by `1 / n`.
#[derive(Clone, Copy, Debug)]
pub struct ReduceDef {
    /// The method's name.
    pub name: &'static str,
    /// The element types it takes.
    pub family: Family,
    /// The identity element, in CUDA C (`T` is the element type).
    pub init: &'static str,
    /// Combines two partial results `x` and `y`.
    pub combine: &'static str,
    /// Whether the result is divided by the number of reduced elements.
    pub mean: bool,
}

/// Every reduction of the CUDA backend.
pub const REDUCTIONS: &[ReduceDef] = &[
    ReduceDef {
        name: "sum",
        family: Numeric,
        init: "(T)0",
        combine: "sh_wadd(x, y)",
        mean: false,
    },
    ReduceDef {
        name: "prod",
        family: Numeric,
        init: "(T)1",
        combine: "sh_wmul(x, y)",
        mean: false,
    },
    ReduceDef {
        name: "mean",
        family: Float,
        init: "(T)0",
        combine: "x + y",
        mean: true,
    },
    ReduceDef {
        name: "max",
        family: Numeric,
        init: "sh_lowest<T>()",
        combine: "sh_maximum(x, y)",
        mean: false,
    },
    ReduceDef {
        name: "min",
        family: Numeric,
        init: "sh_highest<T>()",
        combine: "sh_minimum(x, y)",
        mean: false,
    },
];

/// The reduction named `name`.
///
/// # Panics
/// When none has that name (a bug in `shaped`).
pub fn find_reduction(name: &str) -> &'static ReduceDef {
    REDUCTIONS
        .iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("no CUDA reduction named {name}"))
}
