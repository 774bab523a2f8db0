//! CUDA C for every kernel: one template per kind, instantiated per op and
//! element type. Pointwise ops come from the op table (`backend/op/table.rs`),
//! reductions from `reductions.rs`.
//!
//! - Elementwise (n-ary, broadcasting): one module per op and element type
//!   holds four kernels, chosen at launch (see `elementwise.rs`):
//!   `_s64` / `_s32` walk the iteration plan's coalesced sizes and
//!   per-operand strides (0 where broadcast) with 64- or 32-bit index math;
//!   `_l32` is the rank-1 case (one coalesced dimension, any strides, so
//!   contiguous and stride-0 operands); `_v32` additionally loads and stores
//!   16 bytes at a time when every non-broadcast operand is contiguous and
//!   aligned.
//! - Reductions: one module per reduction and element type, with a kernel
//!   reducing contiguous rows with warp shuffles (`_rows`), one reducing
//!   along a strided column (`_cols`, each thread one output) and the grid
//!   partial pass of a full reduction (`_partial`).
//! - Arg-reductions (`argmax`, `argmin`): values and `long long` indices,
//!   a block per contiguous row (`_rows`) or a thread per strided column
//!   (`_cols`).
//! - Index kernels, one module per element and index type: `_check` and
//!   `_fetch` (the first out-of-range index value, before anything is
//!   read or written), `_gather`, `_scatter`, `_scatter_add` (atomics).
//! - Casts (`to_dtype`), one module per pair of element types: the
//!   elementwise template with one input of the source type.
//! - Generators, one module per numeric type: `_arange`, and for floats
//!   `_uniform` / `_normal` (the CPU's SplitMix64 streams, element by
//!   element).
//!
//! The fixed parts of every template are CUDA C files under `kernels/`
//! (`elementwise.cu`, `reduce.cu`, ...), included as strings, so editors and
//! linters see them as C; each file's first comment names what the module's
//! head defines for it. The sources are plain strings at run time, so
//! `tests/cuda_kernels.rs` compiles every one of them with NVRTC on a
//! machine without a GPU, and `tests/op_table.rs` compiles the prelude and
//! every pointwise expression for the host.

use super::cast::{CAST_HELPERS, cast_expression};
use super::prelude::PRELUDE;
use super::reductions::{REDUCTIONS, ReduceDef};
use crate::backend::op::{Family, Mode, OpDef};

/// The largest rank (after coalescing) the strided kernels take; plans of
/// higher rank are materialised first.
pub const MAX_RANK: usize = 8;
/// The most operands (output included) of an elementwise kernel.
pub const MAX_OPERANDS: usize = 4;

pub(crate) use super::types::{TYPES, c_size, c_type};

/// The kernels of every elementwise and cast module, by variant suffix:
/// 64- and 32-bit strided, rank-1 linear, rank-1 vectorised, and
/// vectorised rows (rank 2 and up).
pub(crate) const ELEMENTWISE_VARIANTS: [&str; 5] = ["s64", "s32", "l32", "v32", "r32"];

/// The elementwise template: `OP` is the op's scalar function, `A0..A2` the
/// operand types, `OUT` the result type, `NIN` the operand count, `VEC` the
/// elements per 16-byte vector access.
const ELEMENTWISE: &str = include_str!("kernels/elementwise.cu");

/// Warp and block reductions of `T` by `sh_combine` (merges two
/// partials) and `sh_init` (the identity), for blocks of `blockDim.x` (a
/// multiple of 32) threads; shared memory holds one partial per warp. The
/// one copy, shared by [`REDUCE_KERNELS`] and the fused row reductions of
/// `fused_source.rs`.
pub(crate) const BLOCK_REDUCE: &str = include_str!("kernels/block_reduce.cu");

/// The reduction kernels over a contiguous buffer (after
/// [`BLOCK_REDUCE`]). Rows: one block per output, each output's `r` inputs
/// contiguous from `row * r`; columns: one thread per output; partials:
/// per-block results of one long row.
const REDUCE_KERNELS: &str = include_str!("kernels/reduce.cu");

/// The arg-reduction template: `BETTER(v, b)` says `v` beats `b`. Each
/// candidate is a value and its index along the reduced span; a NaN beats
/// everything, and among equal values (or NaNs) the lower index wins.
const ARG: &str = include_str!("kernels/arg_reduce.cu");

/// The generators: `arange` (`start + i * step`, in `double`), and for
/// floats the CPU's SplitMix64 streams, whose `k`-th draw depends only on
/// the seed and `k`, so every element is computed independently and equals
/// the CPU's `rand` / `randn` element.
const GENERATE: &str = include_str!("kernels/generate.cu");

/// The float generators (appended to [`GENERATE`] for `float`/`double`):
/// uniform in `[0, 1)` clamped below 1 after rounding, and Box-Muller over
/// two draws per element.
const GENERATE_FLOAT: &str = include_str!("kernels/generate_float.cu");

/// The index template (`T` the elements, `I` the index type): each
/// kernel walks the index's sizes row-major through a `ShLayout` whose
/// operands are 0: the written tensor, 1: the index, 2: the read tensor
/// (the indexed operand with stride 0 along `dim`, so that its position
/// is `p + v * step` for index value `v`).
const INDEX: &str = include_str!("kernels/index.cu");

/// `scatter_add` (numeric element types): atomic adds, integers wrapping
/// (`long long` through `unsigned long long`, `unsigned char` by a
/// compare-and-swap on its aligned 32-bit word).
const INDEX_ADD: &str = include_str!("kernels/index_add.cu");

/// The other combining scatters of `scatter_reduce` (numeric element
/// types): `prod`, `amax`, `amin`, each a compare-and-swap loop on the
/// element's bit pattern (on its aligned 32-bit word for `unsigned char`),
/// so repeated indices combine every contribution, in an unspecified order.
/// Integer products wrap; a NaN wins `amax` and `amin`, as the CPU's.
const INDEX_COMBINE: &str = include_str!("kernels/index_combine.cu");

/// The index types of the index kernels.
pub(crate) const INDEX_TYPES: &[&str] = &["int32", "int64"];

/// One kernel module's source.
#[derive(Clone, Debug)]
pub struct KernelSource {
    /// The module's name; its kernels are `name` plus a variant suffix.
    pub name: String,
    /// The CUDA C source.
    pub source: String,
    /// The kernels the module defines.
    pub kernels: Vec<String>,
}

/// A module named `name`: the prelude, `head` (typedefs and the op's
/// functions), then `template` with its kernels named `name_variant`.
fn module(name: String, head: &str, template: &str, variants: &[&str]) -> KernelSource {
    KernelSource {
        source: format!("{PRELUDE}{head}{}", template.replace("KNAME", &name)),
        kernels: variants.iter().map(|v| format!("{name}_{v}")).collect(),
        name,
    }
}

/// The module name of elementwise op `op` on element type `t`.
pub(crate) fn elementwise_name(op: &OpDef, t: &str) -> String {
    format!("sh_{}{}_{}", op.name, op.mode.suffix(), c_type(t).1)
}

/// The module name of reduction `r` on element type `t`.
pub(crate) fn reduce_name(r: &ReduceDef, t: &str) -> String {
    format!("sh_red_{}_{}", r.name, c_type(t).1)
}

/// The source of elementwise op `op` on element type `t` (the type named by
/// `Element::NAME`).
pub(crate) fn elementwise_source(op: &OpDef, t: &str) -> KernelSource {
    let (ct, _) = c_type(t);
    let name = elementwise_name(op, t);
    let a0 = if op.bool_first { "bool" } else { ct };
    let out = if op.bool_out { "bool" } else { ct };
    let widest = [a0, ct, out].into_iter().map(c_size).max().unwrap_or(1);
    let vec = 16 / widest;
    let head = format!(
        "typedef {ct} T;\ntypedef {a0} A0;\ntypedef {ct} A1;\ntypedef {ct} A2;\ntypedef {out} OUT;\n\
         #define NIN {nin}\n#define VEC {vec}\n\
         __device__ __forceinline__ OUT sh_expr(A0 a, A1 b, A2 c, T s) {{ return (OUT)({expr}); }}\n\
         __device__ __forceinline__ OUT sh_op(A0 a, A1 b, A2 c, T s) {{ return sh_expr({args}); }}\n",
        nin = op.inputs(),
        expr = op.cuda,
        args = match op.mode {
            Mode::Tensors => "a, b, c, s",
            Mode::ScalarRhs => "a, (A1)s, c, s",
            Mode::ScalarLhs => "(A0)s, (A1)a, c, s",
        },
    );
    module(name, &head, ELEMENTWISE, &ELEMENTWISE_VARIANTS)
}

/// The module name of the cast from element type `from` to `to`.
pub(crate) fn cast_name(from: &str, to: &str) -> String {
    format!("sh_cast_{}_{}", c_type(from).1, c_type(to).1)
}

/// The source of the cast from element type `from` to `to` (names as
/// `Element::NAME`): the elementwise template with one input of type
/// `from` and results of type `to`, in its four variants.
pub(crate) fn cast_source(from: &str, to: &str) -> KernelSource {
    let (cf, _) = c_type(from);
    let (ct, _) = c_type(to);
    let size = |t: &str| match t {
        "float64" | "int64" => 8,
        "float32" | "int32" => 4,
        _ => 1,
    };
    let vec = 16 / size(from).max(size(to));
    let head = format!(
        "typedef {ct} T;\ntypedef {cf} A0;\ntypedef {ct} A1;\ntypedef {ct} A2;\ntypedef {ct} OUT;\n\
         #define NIN 1\n#define VEC {vec}\n{CAST_HELPERS}\
         __device__ __forceinline__ OUT sh_op(A0 a, A1 b, A2 c, T s) {{ return {expr}; }}\n",
        expr = cast_expression(from, to),
    );
    module(
        cast_name(from, to),
        &head,
        ELEMENTWISE,
        &ELEMENTWISE_VARIANTS,
    )
}

/// The source of reduction `r` on element type `t`.
pub(crate) fn reduce_source(r: &ReduceDef, t: &str) -> KernelSource {
    let (ct, _) = c_type(t);
    let name = reduce_name(r, t);
    let template = format!("{BLOCK_REDUCE}{REDUCE_KERNELS}");
    module(
        name,
        &reduce_head(r, ct),
        &template,
        &["rows", "cols", "partial"],
    )
}

/// `T` (the C type `ct`) and reduction `r`'s identity `sh_init`, its
/// `sh_combine` and `sh_finish` (the mean's scaling by `1 / n`).
pub(crate) fn reduce_head(r: &ReduceDef, ct: &str) -> String {
    let finish = if r.mean {
        "return (T)(x * scale);"
    } else {
        "return x;"
    };
    format!(
        "typedef {ct} T;\n\
         __device__ __forceinline__ T sh_init() {{ return {init}; }}\n\
         __device__ __forceinline__ T sh_combine(T x, T y) {{ return {combine}; }}\n\
         __device__ __forceinline__ T sh_finish(T x, double scale) {{ {finish} }}\n",
        init = r.init,
        combine = r.combine,
    )
}

/// The source of `argmax` (`max`) or `argmin` on element type `t`.
pub(crate) fn arg_source(max: bool, t: &str) -> KernelSource {
    let (ct, short) = c_type(t);
    let name = format!("sh_arg{}_{short}", if max { "max" } else { "min" });
    let head = format!(
        "typedef {ct} T;\n#define BETTER(v, b) ((v) {cmp} (b))\n",
        cmp = if max { ">" } else { "<" }
    );
    module(name, &head, ARG, &["rows", "cols"])
}

/// The source of the generators on element type `t` (numeric): `arange`,
/// and for floats `uniform` and `normal`.
pub(crate) fn generate_source(t: &str) -> KernelSource {
    let (ct, short) = c_type(t);
    let name = format!("sh_gen_{short}");
    let float = Family::Float.admits(t);
    let mut body = GENERATE.to_string();
    if float {
        body.push_str(GENERATE_FLOAT);
    }
    let variants: &[&str] = if float {
        &["arange", "uniform", "normal"]
    } else {
        &["arange"]
    };
    module(name, &format!("typedef {ct} T;\n"), &body, variants)
}

/// The source of the index kernels on element type `t` with indices of
/// type `i` (`int32` or `int64`): `check`, `fetch`, `gather`, `scatter`,
/// and for numeric types `scatter_add`.
pub(crate) fn index_source(t: &str, i: &str) -> KernelSource {
    let (ct, short) = c_type(t);
    let (it, ishort) = c_type(i);
    let name = format!("sh_idx{ishort}_{short}");
    let numeric = Family::Numeric.admits(t);
    let mut body = INDEX.to_string();
    let mut variants = vec!["check", "fetch", "gather", "scatter"];
    if numeric {
        body.push_str(INDEX_ADD);
        body.push_str(INDEX_COMBINE);
        variants.extend([
            "scatter_add",
            "scatter_prod",
            "scatter_amax",
            "scatter_amin",
        ]);
    }
    module(
        name,
        &format!("typedef {ct} T;\ntypedef {it} I;\n"),
        &body,
        &variants,
    )
}

/// Every kernel module the backend can generate for the pointwise ops
/// `ops` (each in every mode it has, for each element type its family
/// admits), the reductions, the arg-reductions, the generators, the index
/// kernels and the casts between element types.
pub fn kernel_sources(ops: &[OpDef]) -> Vec<KernelSource> {
    let mut out = Vec::new();
    for (t, _, _) in TYPES {
        for op in ops.iter().filter(|o| o.family.admits(t)) {
            out.push(elementwise_source(op, t));
            if op.has_scalar_forms() {
                for mode in [Mode::ScalarRhs, Mode::ScalarLhs] {
                    out.push(elementwise_source(&OpDef { mode, ..*op }, t));
                }
            }
        }
        for r in REDUCTIONS.iter().filter(|r| r.family.admits(t)) {
            out.push(reduce_source(r, t));
        }
        if Family::Numeric.admits(t) {
            out.push(arg_source(true, t));
            out.push(arg_source(false, t));
            out.push(generate_source(t));
        }
        for i in INDEX_TYPES {
            out.push(index_source(t, i));
        }
        for (to, _, _) in TYPES.iter().filter(|(to, _, _)| to != t) {
            out.push(cast_source(t, to));
        }
    }
    out
}
