//! `mish`, the op added with one op-table entry (its derivative included)
//! and one method line, against PyTorch (`tests/data/mish_cases.json`,
//! made by `tests/data/gen_mish_data.py`): the eager tensor method, its
//! in-place form, the fused chain, and the gradients of the eager and the
//! fused variable, in `f64` and `f32`, on contiguous and strided inputs.

use serde_json::Value;
use shaped::autograd::Var;
use shaped::element::Float;
use shaped::{DynRank, Tensor};

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

/// `got` within `rel` of `want` (relative, or absolute below 1).
fn close<T: Float>(what: &str, got: &[T], want: &[f64], rel: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let g = g.to_f64();
        assert!(
            (g - w).abs() <= rel * w.abs().max(1.0),
            "{what}: element {i}: {g} vs PyTorch's {w}"
        );
    }
}

fn tensor<T: Float>(v: &[f64]) -> Tensor<T, DynRank> {
    Tensor::try_from_vec(v.iter().map(|&x| T::from_f64(x)).collect(), &[v.len()]).unwrap()
}

/// The same values as a strided view: every other element of a buffer
/// twice as long.
fn strided<T: Float>(v: &[f64]) -> Tensor<T, DynRank> {
    let spread: Vec<f64> = v.iter().flat_map(|&x| [x, f64::NAN]).collect();
    let t = tensor::<T>(&spread)
        .try_reshape::<DynRank>(&[v.len() as isize, 2])
        .unwrap();
    t.narrow::<DynRank>(1, 0, 1)
        .unwrap()
        .try_reshape::<DynRank>(&[v.len() as isize])
        .unwrap()
}

fn check<T: Float>(c: &Case, rel: f64) {
    let what = |s: &str| format!("{} {s}", c.dtype);
    for (layout, x) in [
        ("contiguous", tensor::<T>(&c.x)),
        ("strided", strided::<T>(&c.x)),
    ] {
        let what = |s: &str| what(&format!("{s}, {layout}"));
        close(&what("eager"), &x.mish().to_vec(), &c.mish, rel);
        close(
            &what("fused"),
            &x.lazy().mish().eval().to_vec(),
            &c.mish,
            rel,
        );
        let mut inplace = x.try_deep_copy().unwrap();
        inplace.mish_();
        close(&what("in place"), &inplace.to_vec(), &c.mish, rel);

        let g = Var::constant(tensor::<T>(&c.upstream));
        let v = Var::param(x.share());
        let eager = v.mish().mul(&g).sum().backward();
        close(
            &what("eager gradient"),
            &eager.wrt(&v).unwrap().to_vec(),
            &c.grad,
            rel,
        );
        let fused = (v.lazy().mish() * &g).eval_var().sum().backward();
        close(
            &what("fused gradient"),
            &fused.wrt(&v).unwrap().to_vec(),
            &c.grad,
            rel,
        );
    }
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
