//! Reading `tests/data/nn_cases.json` (PyTorch's values, written by
//! `tests/data/gen_nn_data.py`) and comparing with a tolerance.
#![allow(dead_code)]

use serde_json::Value;

/// The section `name` of the file.
pub fn section(name: &str) -> Value {
    let text = std::fs::read_to_string("tests/data/nn_cases.json").expect("nn_cases.json");
    let v: Value = serde_json::from_str(&text).expect("JSON");
    v[name].clone()
}

/// A tensor's flat elements.
pub fn floats(v: &Value) -> Vec<f64> {
    let d = v["data"].as_array().expect("data");
    d.iter().map(|x| x.as_f64().expect("number")).collect()
}

/// A tensor's sizes.
pub fn dims(v: &Value) -> Vec<usize> {
    let s = v["shape"].as_array().expect("shape");
    s.iter()
        .map(|d| d.as_u64().expect("size") as usize)
        .collect()
}

/// Every `got[i]` within `tol · (1 + |want[i]|)` of `want[i]`.
pub fn assert_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol * (1.0 + w.abs()),
            "{what}[{i}]: got {g}, PyTorch {w}"
        );
    }
}
