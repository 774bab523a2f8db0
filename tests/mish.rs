//! `mish`, the op added with one op-table entry (its derivative included)
//! and one method line, against PyTorch (`tests/data/mish_cases.json`,
//! made by `tests/data/gen_mish_data.py`): the eager tensor method, its
//! in-place form, the fused chain, and the gradients of the eager and the
//! fused variable, in `f64` and `f32`, on contiguous and strided inputs.

use serde_json::Value;
use shaped::element::Float;

mod common;
use common::unary_op::{self, UnaryOp};

struct Case {
    dtype: String,
    x: Vec<f64>,
    upstream: Vec<f64>,
    mish: Vec<f64>,
    grad: Vec<f64>,
}

fn cases() -> Vec<Case> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/mish_cases.json");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let floats = |v: &Value| -> Vec<f64> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            dtype: c["dtype"].as_str().unwrap().to_string(),
            x: floats(&c["x"]),
            upstream: floats(&c["upstream"]),
            mish: floats(&c["mish"]),
            grad: floats(&c["grad"]),
        })
        .collect()
}

fn mish<T: Float>() -> UnaryOp<T> {
    UnaryOp {
        eager: |x| x.mish(),
        fused: |x| x.lazy().mish().eval(),
        in_place: |x| {
            x.mish_();
        },
        var: |v| v.mish(),
        fused_var: |v, g| (v.lazy().mish() * g).eval_var(),
    }
}

fn check<T: Float>(c: &Case, rel: f64) {
    unary_op::check(
        &c.dtype,
        &mish::<T>(),
        &c.x,
        &c.upstream,
        &c.mish,
        &c.grad,
        rel,
    );
}

#[test]
fn mish_and_its_gradient_match_pytorch() {
    let cases = cases();
    assert_eq!(cases.len(), 2);
    for c in &cases {
        match c.dtype.as_str() {
            "float64" => check::<f64>(c, 1e-13),
            "float32" => check::<f32>(c, 2e-6),
            other => panic!("unexpected dtype {other}"),
        }
    }
}
