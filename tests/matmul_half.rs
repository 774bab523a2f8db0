//! `f16` and `bf16` matrix products against PyTorch's CPU results
//! (`tests/data/matmul_half_cases.json`, from `gen_matmul_half_data.py`):
//! `mm`, `matmul` and the fused products (`addmm`, `addmm_`, `baddbmm`,
//! `addbmm`, `addmv`, `addr`) with alpha, beta and a broadcast input, over
//! an inner dimension of 4096, where accumulating in the 16-bit type is
//! tens of units in the last place away from PyTorch, which accumulates in
//! `f32`. Each case runs with contiguous operands and again with the right
//! operand (and `addmm_`'s destination) read through a transposed view.

mod common;

use common::json_scalar::dims;
use common::json_tensor::num;
use common::{SplitMix, indices, pick};
use serde_json::Value;
use shaped::element::{Numeric, bf16, f16};
use shaped::{DynRank, Tensor};

/// A 16-bit float type and its number of stored significand bits.
trait Half: Numeric {
    const MANTISSA: i32;
    const MIN_EXP: i32;
}
impl Half for f16 {
    const MANTISSA: i32 = 10;
    const MIN_EXP: i32 = -14;
}
impl Half for bf16 {
    const MANTISSA: i32 = 7;
    const MIN_EXP: i32 = -126;
}

/// The spacing of `T`'s values at `x` (one unit in the last place).
fn ulp<T: Half>(x: f64) -> f64 {
    let e = if x == 0.0 {
        T::MIN_EXP
    } else {
        (x.abs().log2().floor() as i32).max(T::MIN_EXP)
    };
    2f64.powi(e - T::MANTISSA)
}

/// How far from PyTorch's value an element may be, in units in the last
/// place of that value. Both accumulate in `f32` and round once, so most
/// elements are equal; 1 allows for a different `f32` summation order
/// deciding a near tie. PyTorch's `addbmm` adds one batch entry at a time
/// (`addmm_` per entry) and so rounds once per entry (1 unit over 2
/// entries here), and its `addr` rounds after each multiply and add in the
/// 16-bit type (2 units seen), where `shaped` computes `beta * c + alpha *
/// (u v^T)` in `f32` and rounds once.
fn tolerance_ulps(op: &str) -> f64 {
    match op {
        "addr" => 2.0,
        _ => 1.0,
    }
}

/// The generator's operand: SplitMix64 from `salt`, each value `((x >> 56)
/// - 96) / 128`, row-major (exact in both types).
fn operand_values(n: usize, salt: u64) -> Vec<f64> {
    let mut rng = SplitMix(salt);
    (0..n)
        .map(|_| ((rng.next_u64() >> 56) as f64 - 96.0) / 128.0)
        .collect()
}

/// An argument of a case: its sizes and values.
struct Arg<T> {
    dims: Vec<usize>,
    vals: Vec<T>,
}

impl<T: Half> Arg<T> {
    fn new(v: &Value) -> Self {
        let dims = dims(v);
        let n = dims.iter().product();
        let vals = operand_values(n, v["salt"].as_u64().unwrap())
            .into_iter()
            .map(<T as Numeric>::from_f64)
            .collect();
        Arg { dims, vals }
    }

    fn contiguous(&self) -> Tensor<T, DynRank> {
        Tensor::try_from_vec(self.vals.clone(), &self.dims).unwrap()
    }

    /// The same values through a view whose last two axes are transposed
    /// in memory (contiguous for an argument of rank 1).
    fn transposed(&self) -> Tensor<T, DynRank> {
        let r = self.dims.len();
        if r < 2 {
            return self.contiguous();
        }
        let mut swapped = self.dims.clone();
        swapped.swap(r - 2, r - 1);
        let data: Vec<T> = indices(&swapped)
            .into_iter()
            .map(|mut idx| {
                idx.swap(r - 2, r - 1);
                pick(&self.vals, &self.dims, &idx)
            })
            .collect();
        let mut order: Vec<isize> = (0..r as isize).collect();
        order.swap(r - 2, r - 1);
        Tensor::<T, DynRank>::try_from_vec(data, &swapped)
            .unwrap()
            .permute::<DynRank>(&order)
            .unwrap()
    }
}

/// The case's op on `args` (the added input first for the fused ones).
fn run<T: Half>(
    op: &str,
    args: &[Tensor<T, DynRank>],
    beta: T,
    alpha: T,
    dst: Option<Tensor<T, DynRank>>,
) -> Tensor<T, DynRank> {
    match op {
        "mm" => args[0].try_mm(&args[1]).map(Tensor::into_dyn),
        "matmul" => args[0].try_matmul(&args[1]),
        "addmm" => args[0]
            .try_addmm(&args[1], &args[2], beta, alpha)
            .map(Tensor::into_dyn),
        "addmm_" => {
            let mut c = dst.unwrap();
            c.try_addmm_(&args[1], &args[2], beta, alpha).unwrap();
            Ok(c)
        }
        "baddbmm" => args[0]
            .try_baddbmm(&args[1], &args[2], beta, alpha)
            .map(Tensor::into_dyn),
        "addbmm" => args[0]
            .try_addbmm(&args[1], &args[2], beta, alpha)
            .map(Tensor::into_dyn),
        "addmv" => args[0]
            .try_addmv(&args[1], &args[2], beta, alpha)
            .map(Tensor::into_dyn),
        "addr" => args[0]
            .try_addr(&args[1], &args[2], beta, alpha)
            .map(Tensor::into_dyn),
        _ => panic!("unknown op {op}"),
    }
    .unwrap()
}

/// A reference computed index by index in `T`'s own arithmetic (each
/// multiply and add rounded to `T`), as a kernel accumulating in the 16-bit
/// type would: the cases must tell it apart from PyTorch's values.
fn accumulated_in_t<T: Half>(
    op: &str,
    args: &[Arg<T>],
    out: &[usize],
    beta: T,
    alpha: T,
) -> Vec<T> {
    let fused = !matches!(op, "mm" | "matmul");
    let (a, b) = if fused {
        (&args[1], &args[2])
    } else {
        (&args[0], &args[1])
    };
    // Each operand as a batch of matrices: a vector is a column (`b` of
    // `addmv`) or, for `addr`, a column times a row.
    let as_matrix = |x: &Arg<T>, left: bool| -> (usize, usize, usize) {
        match (x.dims.len(), left) {
            (1, true) => (1, x.dims[0], 1),
            (1, false) if op == "addr" => (1, 1, x.dims[0]),
            (1, false) => (1, x.dims[0], 1),
            (2, _) => (1, x.dims[0], x.dims[1]),
            _ => (x.dims[0], x.dims[1], x.dims[2]),
        }
    };
    let (ba, m, k) = as_matrix(a, true);
    let (bb, _, n) = as_matrix(b, false);
    let batch = ba.max(bb);
    let products: Vec<Vec<T>> = (0..batch)
        .map(|e| {
            let (ea, eb) = (if ba == 1 { 0 } else { e }, if bb == 1 { 0 } else { e });
            let mut p = vec![T::zero(); m * n];
            for i in 0..m {
                for j in 0..n {
                    for q in 0..k {
                        let x = a.vals[ea * m * k + i * k + q] * b.vals[eb * k * n + q * n + j];
                        p[i * n + j] = p[i * n + j] + x;
                    }
                }
            }
            p
        })
        .collect();
    let flat: Vec<T> = if op == "addbmm" {
        (0..m * n)
            .map(|i| products.iter().fold(T::zero(), |s, p| s + p[i]))
            .collect()
    } else {
        products.concat()
    };
    if !fused {
        return flat;
    }
    let c = &args[0];
    indices(out)
        .iter()
        .zip(flat)
        .map(|(idx, p)| beta * pick(&c.vals, &c.dims, idx) + alpha * p)
        .collect()
}

/// The number of elements of `got` more than `tol` units in the last place
/// away from `want`.
fn off_by_more<T: Half>(got: &[T], want: &[f64], tol: f64) -> usize {
    got.iter()
        .zip(want)
        .filter(|&(g, &w)| (Numeric::to_f64(*g) - w).abs() > tol * ulp::<T>(w))
        .count()
}

fn check_cases<T: Half>(name: &str) {
    let file: Value = serde_json::from_str(include_str!("data/matmul_half_cases.json")).unwrap();
    let k = file["k"].as_u64().unwrap() as usize;
    let mut seen = 0;
    for case in file["cases"].as_array().unwrap() {
        if case["dtype"] != name {
            continue;
        }
        seen += 1;
        let op = case["op"].as_str().unwrap();
        let scalar = |key: &str| {
            case[key]
                .as_f64()
                .map_or(T::one(), <T as Numeric>::from_f64)
        };
        let (beta, alpha) = (scalar("beta"), scalar("alpha"));
        let args: Vec<Arg<T>> = case["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(Arg::new)
            .collect();
        let out = dims(&case["out"]);
        let want: Vec<f64> = case["out"]["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(num)
            .collect();
        let tol = tolerance_ulps(op);
        let last = args.len() - 1;
        for transposed in [false, true] {
            let tensors: Vec<Tensor<T, DynRank>> = args
                .iter()
                .enumerate()
                .map(|(i, a)| {
                    if transposed && i == last {
                        a.transposed()
                    } else {
                        a.contiguous()
                    }
                })
                .collect();
            let dst = (op == "addmm_").then(|| {
                if transposed {
                    args[0].transposed()
                } else {
                    args[0].contiguous()
                }
            });
            let got = run(op, &tensors, beta, alpha, dst);
            assert_eq!(got.dims(), out.as_slice(), "{name} {op}");
            let bad = off_by_more(&got.to_vec(), &want, tol);
            assert_eq!(
                bad, 0,
                "{name} {op} (transposed: {transposed}): {bad} elements off"
            );
        }
        // The data tells f32 accumulation from 16-bit accumulation: the
        // latter is outside the tolerance somewhere in every case with the
        // long inner dimension.
        if args.iter().any(|a| a.dims.contains(&k)) {
            let low = accumulated_in_t(op, &args, &out, beta, alpha);
            assert!(
                off_by_more(&low, &want, tol) > 0,
                "{name} {op}: accumulating in {name} would pass too"
            );
        }
    }
    assert_eq!(seen, 9, "{name}: cases in the fixture");
}

#[test]
fn f16_products_match_pytorch() {
    check_cases::<f16>("f16");
}

#[test]
fn bf16_products_match_pytorch() {
    check_cases::<bf16>("bf16");
}

#[test]
fn beta_zero_ignores_the_destination() {
    // PyTorch: with beta = 0 the input is not read, NaN included; the
    // product is then the widened one (checked against PyTorch above).
    let (m, k, n) = (3, 512, 4);
    let a = Arg::<f16> {
        dims: vec![m, k],
        vals: operand_values(m * k, 40)
            .into_iter()
            .map(f16::from_f64)
            .collect(),
    };
    let b = Arg::<f16> {
        dims: vec![k, n],
        vals: operand_values(k * n, 41)
            .into_iter()
            .map(f16::from_f64)
            .collect(),
    };
    let want = a.contiguous().try_mm(&b.contiguous()).unwrap().to_vec();
    let mut c = Tensor::<f16, DynRank>::try_full(&[n, m], f16::NAN)
        .unwrap()
        .permute::<DynRank>(&[1, 0])
        .unwrap();
    c.try_addmm_(&a.contiguous(), &b.transposed(), f16::ZERO, f16::ONE)
        .unwrap();
    assert_eq!(c.to_vec(), want);
    let nan = Tensor::<f16, DynRank>::try_full(&[1, n], f16::NAN).unwrap();
    let fresh = nan
        .try_addmm(&a.contiguous(), &b.contiguous(), f16::ZERO, f16::ONE)
        .unwrap();
    assert_eq!(fresh.to_vec(), want);
}
