//! `f64` tensors read from JSON fixtures (`{"shape": [..], "data": [..]}`)
//! and compared with a relative tolerance.

use serde_json::Value;
use shaped::{DynRank, Tensor};

use super::json_scalar::dims;

/// A number, or one of the strings "inf", "-inf", "nan" (JSON has none).
pub fn num(x: &Value) -> f64 {
    match x.as_str() {
        Some(s) => s.parse().unwrap(),
        None => x.as_f64().unwrap(),
    }
}

/// The fixture's tensor.
pub fn tensor(v: &Value) -> Tensor<f64, DynRank> {
    let data: Vec<f64> = v["data"].as_array().unwrap().iter().map(num).collect();
    Tensor::try_from_vec(data, &dims(v)).unwrap()
}

/// `got` has the fixture's sizes and, element by element, its values within
/// `tol` relative (equal infinities too); `reference` names the fixture's
/// source in the failure message.
#[track_caller]
pub fn assert_close(got: &Tensor<f64, DynRank>, want: &Value, tol: f64, reference: &str) {
    let want = tensor(want);
    assert_eq!(got.dims(), want.dims());
    for (i, (x, y)) in got.to_vec().iter().zip(want.to_vec()).enumerate() {
        assert!(
            (x - y).abs() <= tol * (1.0 + y.abs()) || (x.is_infinite() && *x == y),
            "at {i}: {x} vs {reference}'s {y}"
        );
    }
}
