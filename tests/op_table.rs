//! The op table's two sides agree. Every entry of `ops::table::POINTWISE`
//! has a Rust function and a CUDA expression; this test compiles every
//! expression for the host with the CUDA prelude (a C++ compiler stands in
//! for NVRTC: the prelude's helpers are plain templates) and compares it
//! with the Rust function on sample values of every element type the
//! entry's family admits, edge values included (signed zeros, infinities,
//! NaN, integer MIN and MAX, `MIN / -1`). The GPU run of the same kernels
//! is `tests/cuda_ops.rs`.
//!
//! Inputs an operation refuses before any kernel runs (an integer divisor
//! of 0, a negative integer exponent) are not sampled: both devices check
//! them on the host first.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use shaped::backend::CUDA_PRELUDE;
use shaped::backend::op::OpDef;

mod common;
use common::host_cxx::compile_and_run;
use shaped::ops::table::{POINTWISE, reference};

/// The element types the CUDA backend stores: `Element::NAME` and C type.
const TYPES: [(&str, &str); 6] = [
    ("float32", "float"),
    ("float64", "double"),
    ("int32", "int"),
    ("int64", "long long"),
    ("uint8", "unsigned char"),
    ("bool", "bool"),
];

/// Sample values of type `ty`, each exactly representable in it.
fn samples(ty: &str) -> Vec<f64> {
    match ty {
        "float32" | "float64" => vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            -0.5,
            2.5,
            -2.5,
            3.0,
            -7.0,
            0.125,
            100.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ],
        "int32" => vec![
            0.0,
            1.0,
            -1.0,
            2.0,
            -2.0,
            3.0,
            -7.0,
            100.0,
            i32::MIN as f64,
            i32::MAX as f64,
        ],
        "int64" => vec![
            0.0,
            1.0,
            -1.0,
            2.0,
            -2.0,
            3.0,
            -7.0,
            100.0,
            i64::MIN as f64,
            (1i64 << 53) as f64,
        ],
        "uint8" => vec![0.0, 1.0, 2.0, 3.0, 7.0, 100.0, 200.0, 255.0],
        "bool" => vec![0.0, 1.0],
        _ => unreachable!("{ty}"),
    }
}

/// Values of the scalar parameter `s` for ops that read it.
fn scalars(ty: &str) -> Vec<f64> {
    match ty {
        "float32" | "float64" => vec![2.0, -0.5, 0.75],
        "uint8" => vec![2.0, 255.0],
        _ => vec![2.0, -3.0],
    }
}

/// Whether the op refuses these operands on the host before a kernel runs.
fn refused(def: &OpDef, ty: &str, args: &[f64; 4]) -> bool {
    let int = !ty.starts_with("float");
    let divides = matches!(
        def.name,
        "quot" | "div_trunc" | "div_floor" | "fmod" | "remainder"
    );
    int && ((divides && args[1] == 0.0) || (def.name == "pow" && args[1] < 0.0))
}

/// Every operand combination sampled for `def` on `ty`.
fn cases(def: &OpDef, ty: &str) -> Vec<[f64; 4]> {
    let v = samples(ty);
    let first = if def.bool_first {
        vec![0.0, 1.0]
    } else {
        v.clone()
    };
    let ss = if def.uses_scalar {
        scalars(ty)
    } else {
        vec![0.0]
    };
    let mut out = Vec::new();
    for &s in &ss {
        match def.arity {
            1 => out.extend(first.iter().map(|&a| [a, 0.0, 0.0, s])),
            2 => {
                for &a in &first {
                    out.extend(v.iter().map(|&b| [a, b, 0.0, s]));
                }
            }
            3 => {
                // Every pair for (a, b) and (b, c), a spread of the rest.
                for (i, &a) in first.iter().enumerate() {
                    for (j, &b) in v.iter().enumerate() {
                        out.push([a, b, v[(i + 2 * j) % v.len()], s]);
                        out.push([first[(i + j) % first.len()], a.min(b), b, s]);
                    }
                }
            }
            n => unreachable!("arity {n}"),
        }
    }
    out.retain(|args| !refused(def, ty, args));
    out
}

/// The host C++ program: the prelude, one function per op and type, and a
/// `main` that evaluates `name type a b c s` lines from standard input.
fn program(entries: &[(&OpDef, &str, &str)]) -> String {
    let mut src = String::from(
        "#include <cmath>\n#include <cstdio>\n#include <cstring>\n#include <cstdlib>\n\
         using namespace std;\n\
         #define __device__\n#define __forceinline__ inline\n#define __align__(n) alignas(n)\n\
         static inline float __int_as_float(int x) { float f; memcpy(&f, &x, 4); return f; }\n\
         static inline double __longlong_as_double(long long x) { double d; memcpy(&d, &x, 8); return d; }\n",
    );
    src.push_str(CUDA_PRELUDE);
    for (i, (def, _, ct)) in entries.iter().enumerate() {
        let a0 = if def.bool_first { "bool" } else { ct };
        let out = if def.bool_out { "bool" } else { ct };
        writeln!(
            src,
            "namespace op{i} {{ typedef {ct} T; typedef {a0} A0; typedef {ct} A1; typedef {ct} A2; typedef {out} OUT;\n\
             static OUT sh_expr(A0 a, A1 b, A2 c, T s) {{ (void)a; (void)b; (void)c; (void)s; return (OUT)({expr}); }}\n\
             static double run(double a, double b, double c, double s) {{ return (double)sh_expr((A0)a, (A1)b, (A2)c, (T)s); }} }}",
            expr = def.cuda
        )
        .unwrap();
    }
    src.push_str("struct Entry { const char* name; const char* ty; double (*f)(double, double, double, double); };\n");
    src.push_str("static const Entry ENTRIES[] = {\n");
    for (i, (def, ty, _)) in entries.iter().enumerate() {
        writeln!(src, "  {{\"{}\", \"{ty}\", op{i}::run}},", def.name).unwrap();
    }
    src.push_str(
        "};\n\
         int main() {\n\
           char name[64], ty[16], sa[64], sb[64], sc[64], ss[64];\n\
           while (scanf(\"%63s %15s %63s %63s %63s %63s\", name, ty, sa, sb, sc, ss) == 6) {\n\
             const Entry* e = 0;\n\
             for (size_t i = 0; i < sizeof(ENTRIES) / sizeof(ENTRIES[0]); ++i)\n\
               if (!strcmp(ENTRIES[i].name, name) && !strcmp(ENTRIES[i].ty, ty)) e = &ENTRIES[i];\n\
             if (!e) { printf(\"missing\\n\"); continue; }\n\
             printf(\"%.17g\\n\", e->f(strtod(sa, 0), strtod(sb, 0), strtod(sc, 0), strtod(ss, 0)));\n\
           }\n\
           return 0;\n\
         }\n",
    );
    src
}

fn parse(s: &str) -> f64 {
    if s.contains("nan") {
        f64::NAN
    } else {
        s.parse().unwrap_or_else(|_| panic!("not a number: {s}"))
    }
}

/// Ops whose Rust side calls a different implementation of a special
/// function than the host's C library (`erf` comes from the `libm` crate;
/// `exp` and `tanh` in `f32` are the crate's branch-free ones, within 2
/// ulp of musl's, `tests/erf.rs`; `sin`, `cos`, `tan`, `atan2` and `pow`
/// in `f32` compute in `f64` and round once, `tests/trig.rs`, where the
/// host's `tanf` and `atan2f` were seen 1 ulp from the exact value): these
/// may differ in the last places.
const LIBM_DIFFERS: &[&str] = &[
    "sin",
    "cos",
    "tan",
    "atan2",
    "pow",
    "sin_backward",
    "cos_backward",
    "pow_backward_self",
    "pow_backward_exponent",
    "gelu",
    "gelu_backward",
    "exp",
    "tanh",
    "sigmoid",
    "silu",
    "silu_backward",
];

/// Ops composed of several special functions (`mish` is
/// `x tanh(log1p(exp(x)))`, `softplus` `log1p(exp(x))`, and
/// `softplus_backward`'s Rust side is `g σ(x)` where its C is
/// `g / (1 + exp(-x))`): in `f32` each function's last-place error on
/// either side carries through, and `mish_backward`'s sum
/// `t + x σ(x) (1 - t²)` cancels for negative `x`, so the two sides may
/// differ by a few units in the last place of the result.
const COMPOSED: &[&str] = &["mish", "mish_backward", "softplus", "softplus_backward"];

/// Whether two results of op `name` on `ty` agree: bit for bit (the sign of
/// zero included, NaN with NaN), within two units in the last place for
/// the ops of [`LIBM_DIFFERS`], or eight for those of [`COMPOSED`].
fn agree(name: &str, ty: &str, rust: f64, cuda: f64) -> bool {
    if rust.is_nan() || cuda.is_nan() {
        return rust.is_nan() && cuda.is_nan();
    }
    if rust == cuda && rust.is_sign_negative() == cuda.is_sign_negative() {
        return true;
    }
    let eps = if ty == "float32" {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    };
    let ulps = if COMPOSED.contains(&name) {
        8.0
    } else if LIBM_DIFFERS.contains(&name) {
        2.0
    } else {
        return false;
    };
    (rust - cuda).abs() <= ulps * eps * rust.abs()
}

#[test]
fn every_entry_has_both_sides_for_exactly_its_family() {
    let mut names = BTreeMap::new();
    for def in POINTWISE {
        assert!(names.insert(def.name, ()).is_none(), "{} twice", def.name);
        assert!(!def.cuda.trim().is_empty(), "{} has no CUDA side", def.name);
        for (ty, _) in TYPES {
            let has_rust = reference(def.name, ty, [1.0, 1.0, 1.0, 1.0]).is_some();
            assert_eq!(
                has_rust,
                def.family.admits(ty),
                "{}: the Rust side and the family disagree on {ty}",
                def.name
            );
        }
    }
    assert!(names.len() >= 50, "the table lost entries: {}", names.len());
}

#[test]
fn cuda_expressions_compiled_for_the_host_match_the_rust_functions() {
    let mut entries = Vec::new();
    for def in POINTWISE {
        for (ty, ct) in TYPES {
            if def.family.admits(ty) {
                entries.push((def, ty, ct));
            }
        }
    }
    let mut input = String::new();
    let mut want = Vec::new();
    for (def, ty, _) in &entries {
        for args in cases(def, ty) {
            let rust = reference(def.name, ty, args).expect("admitted type");
            writeln!(
                input,
                "{} {ty} {:e} {:e} {:e} {:e}",
                def.name, args[0], args[1], args[2], args[3]
            )
            .unwrap();
            want.push((def.name, *ty, args, rust));
        }
    }
    let Some(got) = compile_and_run("op-table", &program(&entries), input) else {
        return;
    };
    assert_eq!(got.len(), want.len(), "one result per case");

    let mut wrong = Vec::new();
    for ((name, ty, args, rust), line) in want.iter().zip(&got) {
        assert_ne!(line, "missing", "{name} {ty} was not generated");
        let cuda = parse(line);
        if !agree(name, ty, *rust, cuda) {
            wrong.push(format!(
                "{name}<{ty}>{args:?}: Rust {rust:e}, CUDA {cuda:e}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} cases disagree:\n{}",
        wrong.len(),
        want.len(),
        wrong
            .iter()
            .take(40)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
    println!(
        "{} cases over {} op/type pairs agree",
        want.len(),
        entries.len()
    );
}
