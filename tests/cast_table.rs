//! The CUDA casts agree with the CPU's. Every pair of element types the
//! CUDA backend stores has a C expression (`backend::cuda_cast_expression`)
//! from which the `to_dtype` kernels are generated; this test compiles each
//! of them for the host (a C++ compiler stands in for NVRTC) and compares
//! it with the CPU's `to_dtype` on edge values: signed zeros, halves,
//! values past the target's range and past the 64-bit range, infinities,
//! NaN, integer MIN and MAX. The GPU run of the same kernels is
//! `tests/cuda_ops.rs`.

use std::fmt::Write as _;

use shaped::backend::{CUDA_CAST_HELPERS, cuda_cast_expression};
use shaped::element::{Element, Scalar};
use shaped::{DynRank, Tensor};

mod common;
use common::host_cxx::compile_and_run;

/// The element types the CUDA backend stores: `Element::NAME`, C type and
/// the `printf` conversion of a result of that type (after a widening
/// cast).
const TYPES: [(&str, &str, &str); 6] = [
    ("float32", "float", "%.17g\\n\", (double)"),
    ("float64", "double", "%.17g\\n\", (double)"),
    ("int32", "int", "%lld\\n\", (long long)"),
    ("int64", "long long", "%lld\\n\", (long long)"),
    ("uint8", "unsigned char", "%llu\\n\", (unsigned long long)"),
    ("bool", "bool", "%d\\n\", (int)"),
];

/// Sample values of type `ty`, as `f64` (each exactly representable in
/// `ty` and in `f64`).
fn samples(ty: &str) -> Vec<f64> {
    let floats = [
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -3.75,
        127.5,
        255.5,
        256.0,
        300.5,
        -300.5,
        65504.0,
        2147483648.0,
        -2147483904.0,
        1e10,
        -1e10,
        9.3e18,
        -9.3e18,
        1.9e19,
        1e30,
        -1e30,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    let ints = [0i64, 1, -1, 127, 128, 255, 256, -129, 300, -300];
    match ty {
        "float32" => floats.iter().map(|&x| x as f32 as f64).collect(),
        "float64" => floats.to_vec(),
        "int32" => ints
            .iter()
            .map(|&x| x as f64)
            .chain([i32::MIN as f64, i32::MAX as f64])
            .collect(),
        "int64" => ints
            .iter()
            .map(|&x| x as f64)
            .chain([(1i64 << 40) as f64, -(1i64 << 53) as f64, i64::MIN as f64])
            .collect(),
        "uint8" => vec![0.0, 1.0, 127.0, 128.0, 255.0],
        "bool" => vec![0.0, 1.0],
        _ => unreachable!(),
    }
}

/// A result in the form the C program prints it: floats as `f64`, integers
/// and bools as integers.
fn show(s: Scalar) -> String {
    match s {
        Scalar::Float(v) => format!("{v:e}"),
        Scalar::Int(v) => v.to_string(),
        Scalar::UInt(v) => v.to_string(),
        Scalar::Bool(b) => (b as i32).to_string(),
    }
}

/// The CPU's `to_dtype` from `F` to each CUDA type, on `xs`.
fn cpu_casts<F: Element>(xs: &[f64]) -> Vec<(&'static str, Vec<String>)> {
    let t = Tensor::<f64, DynRank>::try_from_vec(xs.to_vec(), &[xs.len()])
        .unwrap()
        .to_dtype::<F>();
    fn to<F: Element, U: Element>(t: &Tensor<F, DynRank>) -> Vec<String> {
        t.to_dtype::<U>()
            .to_vec()
            .into_iter()
            .map(|v| show(v.to_scalar()))
            .collect()
    }
    vec![
        ("float32", to::<F, f32>(&t)),
        ("float64", to::<F, f64>(&t)),
        ("int32", to::<F, i32>(&t)),
        ("int64", to::<F, i64>(&t)),
        ("uint8", to::<F, u8>(&t)),
        ("bool", to::<F, bool>(&t)),
    ]
}

fn cpu(from: &str, xs: &[f64]) -> Vec<(&'static str, Vec<String>)> {
    match from {
        "float32" => cpu_casts::<f32>(xs),
        "float64" => cpu_casts::<f64>(xs),
        "int32" => cpu_casts::<i32>(xs),
        "int64" => cpu_casts::<i64>(xs),
        "uint8" => cpu_casts::<u8>(xs),
        "bool" => cpu_casts::<bool>(xs),
        _ => unreachable!(),
    }
}

/// A C++ program with one function per pair: it reads `pair value` lines
/// and prints the cast of `value` (given as a double, converted to the
/// source type first).
fn program(pairs: &[(usize, usize)]) -> String {
    let mut src = String::from(
        "#include <cstdio>\n#include <cstdlib>\n#define __device__\n#define __forceinline__ inline\n",
    );
    src.push_str(CUDA_CAST_HELPERS);
    for (i, &(f, t)) in pairs.iter().enumerate() {
        let (from, cf, _) = TYPES[f];
        let (to, ct, fmt) = TYPES[t];
        writeln!(
            src,
            "namespace c{i} {{ typedef {cf} A0; typedef {ct} OUT;\n\
             static OUT cast(A0 a) {{ return {expr}; }}\n\
             static void run(double x) {{ printf(\"{fmt}cast((A0)x)); }} }}",
            expr = cuda_cast_expression(from, to),
        )
        .unwrap();
    }
    src.push_str("typedef void (*Run)(double);\nstatic const Run RUNS[] = {");
    for i in 0..pairs.len() {
        write!(src, "c{i}::run, ").unwrap();
    }
    src.push_str(
        "};\nint main() {\n  int i; char v[64];\n\
         while (scanf(\"%d %63s\", &i, v) == 2) RUNS[i](strtod(v, 0));\n  return 0;\n}\n",
    );
    src
}

/// Two printed results agree: integers as text, floats bit for bit (the
/// sign of zero included, NaN with NaN).
fn agree(rust: &str, c: &str) -> bool {
    match (rust.parse::<f64>(), c.parse::<f64>()) {
        (Ok(a), Ok(b)) if a.is_nan() || b.is_nan() => a.is_nan() && b.is_nan(),
        (Ok(a), Ok(b)) if rust.contains('e') => a.to_bits() == b.to_bits(),
        _ => rust == c,
    }
}

#[test]
fn cuda_casts_compiled_for_the_host_match_the_cpu() {
    let pairs: Vec<(usize, usize)> = (0..6)
        .flat_map(|f| (0..6).filter(move |&t| t != f).map(move |t| (f, t)))
        .collect();
    let mut input = String::new();
    let mut want = Vec::new();
    for (i, &(f, t)) in pairs.iter().enumerate() {
        let (from, to) = (TYPES[f].0, TYPES[t].0);
        let xs = samples(from);
        let rust = cpu(from, &xs)
            .into_iter()
            .find(|(u, _)| *u == to)
            .unwrap()
            .1;
        for (x, r) in xs.iter().zip(rust) {
            writeln!(input, "{i} {x:e}").unwrap();
            want.push((from, to, *x, r));
        }
    }
    let Some(got) = compile_and_run("cast-table", &program(&pairs), input) else {
        return;
    };
    assert_eq!(got.len(), want.len(), "one result per case");
    let wrong: Vec<String> = want
        .iter()
        .zip(&got)
        .filter(|((_, _, _, r), c)| !agree(r, c))
        .map(|((from, to, x, r), c)| format!("{from} {x:e} -> {to}: CPU {r}, CUDA C {c}"))
        .collect();
    assert!(
        wrong.is_empty(),
        "{} casts differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
