//! `softplus`, added with one op-table entry (its derivative included)
//! and one method line, against naive `f64` loops written from PyTorch's
//! definition (`torch.nn.functional.softplus` with `beta = 1`, `threshold
//! = 20`: `ln(1 + e^x)`, and `x` itself where `x > 20`; its gradient
//! `σ(x)`, and 1 where `x > 20`): the eager tensor method, its in-place
//! form, the fused chain, and the gradients of the eager and the fused
//! variable, in `f64` and `f32`, on contiguous and strided inputs.

use shaped::element::Float;

mod common;
use common::unary_op::{self, UnaryOp};

fn softplus<T: Float>() -> UnaryOp<T> {
    UnaryOp {
        eager: |x| x.softplus(),
        fused: |x| x.lazy().softplus().eval(),
        in_place: |x| {
            x.softplus_();
        },
        var: |v| v.softplus(),
        fused_var: |v, g| (v.lazy().softplus() * g).eval_var(),
    }
}

/// Inputs across the range: far below zero (where `e^x` underflows),
/// around zero, either side of the threshold, and far above it.
const X: [f64; 14] = [
    -800.0, -40.0, -20.5, -3.25, -1.0, -1e-8, 0.0, 0.75, 2.0, 12.5, 19.75, 20.0, 20.25, 95.0,
];

fn reference(x: &[f64]) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let upstream: Vec<f64> = (0..x.len()).map(|i| 0.5 + 0.25 * i as f64).collect();
    let value = x
        .iter()
        .map(|&x| if x > 20.0 { x } else { x.exp().ln_1p() })
        .collect();
    let grad = x
        .iter()
        .zip(&upstream)
        .map(|(&x, &g)| if x > 20.0 { g } else { g / (1.0 + (-x).exp()) })
        .collect();
    (upstream, value, grad)
}

#[test]
fn softplus_and_its_gradient_match_naive_loops() {
    let (upstream, value, grad) = reference(&X);
    unary_op::check(
        "float64",
        &softplus::<f64>(),
        &X,
        &upstream,
        &value,
        &grad,
        1e-13,
    );
    // The `f32` inputs as `f32` holds them, the reference in `f64`.
    let x32: Vec<f64> = X.iter().map(|&x| x as f32 as f64).collect();
    let (upstream, value, grad) = reference(&x32);
    unary_op::check(
        "float32",
        &softplus::<f32>(),
        &x32,
        &upstream,
        &value,
        &grad,
        2e-6,
    );
}
