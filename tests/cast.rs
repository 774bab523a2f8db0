//! `to_dtype` between every pair of element types, against PyTorch's
//! `.to(dtype)` on the CPU (tests/data/cast_cases.json, written by
//! tests/data/gen_cast_data.py), and shaped's documented rule where
//! PyTorch's result is platform-defined (NaN, inf, out of range).

use serde_json::Value;
use shaped::element::{Element, Scalar, bf16, f16};
use shaped::{DynRank, Shape, Tensor};

/// A JSON number (or "inf"/"-inf") as the widened value of an element.
fn expected(v: &Value) -> Scalar {
    match v {
        Value::Bool(b) => Scalar::Bool(*b),
        Value::String(s) if s == "inf" => Scalar::Float(f64::INFINITY),
        Value::String(s) if s == "-inf" => Scalar::Float(f64::NEG_INFINITY),
        Value::Number(n) if n.is_f64() => Scalar::Float(n.as_f64().unwrap()),
        Value::Number(n) if n.is_u64() => Scalar::UInt(n.as_u64().unwrap()),
        Value::Number(n) => Scalar::Int(n.as_i64().unwrap()),
        _ => panic!("unexpected JSON value {v}"),
    }
}

/// Whether the widened `actual` of a `T` is the widened `want` (JSON writes
/// a non-negative signed integer as unsigned, and integral floats as floats).
fn same(actual: Scalar, want: Scalar) -> bool {
    match (actual, want) {
        (Scalar::Float(a), Scalar::Float(b)) => {
            a == b && a.is_sign_negative() == b.is_sign_negative()
        }
        (Scalar::Int(a), Scalar::UInt(b)) => u64::try_from(a) == Ok(b),
        (a, b) => a == b,
    }
}

/// The input tensor of a case: each JSON value is exactly representable in
/// `T` (the generator rounded the inputs to the source type).
fn input<T: Element>(values: &[Value]) -> Tensor<T, DynRank> {
    let data: Vec<T> = values.iter().map(|v| T::from_scalar(expected(v))).collect();
    for (x, v) in data.iter().zip(values) {
        assert!(
            same(x.to_scalar(), expected(v)),
            "input {v} is not exact in {}",
            T::NAME
        );
    }
    data.into_iter().collect()
}

fn check<T: Element, U: Element>(case: &Value) {
    let values = case["input"].as_array().unwrap();
    let want = case["output"].as_array().unwrap();
    let x = input::<T>(values);
    let y = x.to_dtype::<U>();
    assert_eq!(y.dims(), x.dims());
    for ((got, w), v) in y.to_vec().iter().zip(want).zip(values) {
        assert!(
            same(got.to_scalar(), expected(w)),
            "{} -> {}: {v} gave {got}, PyTorch {w}",
            T::NAME,
            U::NAME
        );
    }
}

macro_rules! dispatch_to {
    ($from:ty, $case:expr, $($t:ty),*) => {{
        let to = $case["to"].as_str().unwrap();
        $( if to == <$t as Element>::NAME { return check::<$from, $t>($case); } )*
        panic!("unknown dtype {to}");
    }};
}

macro_rules! dispatch {
    ($case:expr, $($t:ty),*) => {{
        let from = $case["from"].as_str().unwrap();
        $( if from == <$t as Element>::NAME {
            dispatch_to!($t, $case, bool, u8, u16, u32, u64, i8, i16, i32, i64, f16, bf16, f32, f64);
        } )*
        panic!("unknown dtype {from}");
    }};
}

fn run_case(case: &Value) {
    dispatch!(
        case, bool, u8, u16, u32, u64, i8, i16, i32, i64, f16, bf16, f32, f64
    )
}

#[test]
fn every_pair_matches_pytorch() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/cast_cases.json");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let cases = json["cases"].as_array().unwrap();
    assert_eq!(cases.len(), 13 * 13);
    for case in cases {
        run_case(case);
    }
}

#[test]
fn nan_inf_and_out_of_range_follow_the_documented_rule() {
    // Truncate toward zero into i64 (saturating, NaN -> 0), then wrap.
    let x =
        Tensor::<f64, Shape![5]>::from([f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e10, -1e19]);
    assert_eq!(
        x.to_dtype::<i64>().to_vec(),
        vec![0, i64::MAX, i64::MIN, 10_000_000_000, i64::MIN]
    );
    assert_eq!(
        x.to_dtype::<i32>().to_vec(),
        vec![0, -1, 0, 1_410_065_408, 0]
    );
    assert_eq!(
        x.to_dtype::<u64>().to_vec(),
        vec![0, u64::MAX, 1 << 63, 10_000_000_000, 1 << 63]
    );
    assert_eq!(x.to_dtype::<bool>().to_vec(), vec![true; 5]);
    let h = x.to_dtype::<f16>().to_vec();
    assert!(
        h[0].is_nan()
            && h[1] == f16::INFINITY
            && h[2] == f16::NEG_INFINITY
            && h[3] == f16::INFINITY
    );
}

#[test]
fn views_cast_in_logical_order() {
    let t = Tensor::<i32, Shape![2, 3]>::from([[1, 2, 3], [4, 5, 6]]);
    let c = t.transpose::<0, 1>().to_dtype::<f32>();
    assert_eq!(c.dims(), &[3, 2]);
    assert_eq!(c.to_vec(), vec![1., 4., 2., 5., 3., 6.]);
}
