//! Elements compared with reference values read from JSON fixtures.

use serde_json::Value;
use shaped::element::Scalar;

/// Whether the widened element `got` is the JSON value `want` (floats
/// exactly, the sign of zero included).
pub fn same(got: Scalar, want: &Value) -> bool {
    match got {
        Scalar::Bool(b) => want.as_bool() == Some(b),
        Scalar::Int(i) => want.as_i64() == Some(i),
        Scalar::UInt(u) => want.as_u64() == Some(u),
        Scalar::Float(f) => {
            let w = want.as_f64().unwrap();
            f == w && f.is_sign_negative() == w.is_sign_negative()
        }
    }
}

/// The sizes in a fixture's `"shape"` field.
pub fn dims(want: &Value) -> Vec<usize> {
    want["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d.as_u64().unwrap() as usize)
        .collect()
}
