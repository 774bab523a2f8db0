//! The reductions the CUDA backend runs, each with its identity and its
//! combining expression in CUDA C (`all` and `any` reduce the `bool`
//! result of comparing with zero) (the pointwise operations are the op
//! table of `backend/op/table.rs`; the reductions move to the backend trait with
//! the rest of the primitive set).

use crate::backend::op::Family;
use Family::{Bool, Float, Numeric};

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
    ReduceDef {
        name: "all",
        family: Bool,
        init: "true",
        combine: "x && y",
        mean: false,
    },
    ReduceDef {
        name: "any",
        family: Bool,
        init: "false",
        combine: "x || y",
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
