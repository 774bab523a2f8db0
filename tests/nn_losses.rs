//! `nn`'s losses against PyTorch (`tests/data/nn_cases.json`, written by
//! `tests/data/gen_nn_data.py`): values and input gradients for every
//! reduction, including logits of ±300; and the same gradients against
//! central finite differences.

mod nn_support;

use nn_support::{assert_close, dims, floats, section};
use serde_json::Value;
use shaped::autograd::Var;
use shaped::nn::{
    Mean, NoReduction, Reduction, Sum, binary_cross_entropy_with_logits, cross_entropy,
    cross_entropy_probs, mse, nll,
};
use shaped::shape::Shape;
use shaped::{Dyn, Tensor};

type X = Var<f64, (Dyn, Dyn)>;

fn cases() -> Vec<Value> {
    section("losses").as_array().expect("losses").clone()
}

/// The loss's values and `d(Σ loss · upstream)/d input` at `x`.
fn finish<S: Shape>(out: Var<f64, S>, x: &X, upstream: &[f64]) -> (Vec<f64>, Vec<f64>) {
    let seed = Tensor::<f64, S>::try_from_vec(upstream.to_vec(), out.dims()).expect("seed");
    let grads = out.try_backward_with(&seed).expect("backward");
    (out.value().to_vec(), grads.wrt(x).expect("used").to_vec())
}

fn with_reduction<R>(case: &Value, x: &X, r: R) -> (Vec<f64>, Vec<f64>)
where
    R: Reduction<(Dyn, Dyn)> + Reduction<(Dyn,)>,
{
    let t = &case["target"];
    let up = floats(&case["upstream"]);
    let float_target =
        || Tensor::<f64, (Dyn, Dyn)>::try_from_vec(floats(t), &dims(t)).expect("target");
    let index_target = || {
        let data = t["data"].as_array().expect("data");
        let data = data.iter().map(|i| i.as_i64().expect("index")).collect();
        Tensor::<i64, (Dyn,)>::try_from_vec(data, &dims(t)).expect("target")
    };
    match case["loss"].as_str().expect("name") {
        "mse" => finish(mse(x, &Var::constant(float_target()), r), x, &up),
        "nll" => finish(nll(x, &index_target(), r), x, &up),
        "cross_entropy" => finish(cross_entropy(x, &index_target(), r), x, &up),
        "cross_entropy_probs" => finish(cross_entropy_probs(x, &float_target(), r), x, &up),
        "bce_with_logits" => finish(
            binary_cross_entropy_with_logits(x, &float_target(), r),
            x,
            &up,
        ),
        other => panic!("unknown loss {other}"),
    }
}

fn run(case: &Value, input: Vec<f64>) -> (Vec<f64>, Vec<f64>) {
    let x = Var::param(
        Tensor::<f64, (Dyn, Dyn)>::try_from_vec(input, &dims(&case["input"])).expect("input"),
    );
    match case["reduction"].as_str().expect("reduction") {
        "none" => with_reduction(case, &x, NoReduction),
        "mean" => with_reduction(case, &x, Mean),
        "sum" => with_reduction(case, &x, Sum),
        other => panic!("unknown reduction {other}"),
    }
}

#[test]
fn losses_match_pytorch() {
    let cases = cases();
    assert_eq!(cases.len(), 15);
    for case in &cases {
        let name = format!("{} reduction={}", case["loss"], case["reduction"]);
        let (out, grad) = run(case, floats(&case["input"]));
        assert_close(
            &format!("{name} value"),
            &out,
            &floats(&case["output"]),
            1e-12,
        );
        assert_close(
            &format!("{name} grad"),
            &grad,
            &floats(&case["grad"]),
            1e-12,
        );
        assert!(out.iter().all(|v| v.is_finite()), "{name}: {out:?}");
    }
}

#[test]
fn loss_gradients_match_finite_differences() {
    let h = 1e-6;
    for case in &cases() {
        let name = format!("{} reduction={}", case["loss"], case["reduction"]);
        let x = floats(&case["input"]);
        let up = floats(&case["upstream"]);
        let f = |x: Vec<f64>| -> f64 {
            let (out, _) = run(case, x);
            out.iter().zip(&up).map(|(o, u)| o * u).sum()
        };
        let (_, grad) = run(case, x.clone());
        for i in 0..x.len() {
            let (mut plus, mut minus) = (x.clone(), x.clone());
            plus[i] += h;
            minus[i] -= h;
            let numeric = (f(plus) - f(minus)) / (2.0 * h);
            assert!(
                (numeric - grad[i]).abs() <= 1e-6 * (1.0 + numeric.abs()),
                "{name}: d/dx[{i}] autograd {} vs finite difference {numeric}",
                grad[i]
            );
        }
    }
}

#[test]
#[should_panic(expected = "Target 3 is out of bounds.")]
fn a_target_outside_the_classes_is_named() {
    let x = Var::param(Tensor::<f32, (Dyn, Dyn)>::try_zeros(&[2, 3]).expect("zeros"));
    let t = Tensor::<i64, (Dyn,)>::try_from_vec(vec![0, 3], &[2]).expect("target");
    let _ = cross_entropy(&x, &t, Mean);
}

#[test]
fn losses_are_typed_by_their_reduction() {
    use shaped::Shape;
    let x = Var::param(Tensor::<f32, Shape![4, 3]>::zeros());
    let t = Tensor::<i64, Shape![4]>::from_vec(vec![0, 1, 2, 0]);
    let per_row: Var<f32, Shape![4]> = cross_entropy(&x, &t, NoReduction);
    let mean: Var<f32, ()> = cross_entropy(&x, &t, Mean);
    assert_eq!(per_row.dims(), &[4]);
    assert!((mean.value().item() - 3f32.ln()).abs() < 1e-6);
}
