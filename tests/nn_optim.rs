//! `nn`'s optimizers against PyTorch trajectories (`tests/data/nn_cases.json`,
//! written by `tests/data/gen_nn_data.py`): a Linear(3, 4) -> tanh ->
//! Linear(4, 2) model trained 6 steps on an MSE loss by SGD (plain,
//! momentum with dampening and weight decay, Nesterov), Adam (defaults,
//! weight decay, other betas and eps) and AdamW; after every step the loss
//! and every parameter match PyTorch's.

mod nn_support;

use nn_support::{floats, section};
use serde_json::Value;
use shaped::autograd::Var;
use shaped::nn::{Adam, Linear, Mean, Optimizer, Parameters, Sgd, mse};
use shaped::{Const, Shape, Tensor};

#[derive(Parameters)]
struct Tiny {
    a: Linear<Const<3>, Const<4>, f64>,
    b: Linear<Const<4>, Const<2>, f64>,
}

fn linear<const I: usize, const O: usize>(w: &Value, b: &Value) -> Linear<Const<I>, Const<O>, f64> {
    Linear::from_tensors(
        Tensor::from_vec(floats(w)),
        Some(Tensor::from_vec(floats(b))),
    )
}

/// One optimizer step on the model.
type Step = Box<dyn FnMut(&mut Tiny, &shaped::autograd::Gradients<f64>)>;

fn optimizer(name: &str) -> Step {
    fn boxed<O: Optimizer<f64> + 'static>(mut o: O) -> Step {
        Box::new(move |m, g| o.step(m, g))
    }
    match name {
        "sgd" => boxed(Sgd::new(0.1)),
        "sgd_momentum" => boxed(
            Sgd::new(0.1)
                .momentum(0.9)
                .dampening(0.2)
                .weight_decay(0.05),
        ),
        "sgd_nesterov" => boxed(Sgd::new(0.05).momentum(0.8).nesterov().weight_decay(0.01)),
        "adam" => boxed(Adam::new(0.01)),
        "adam_weight_decay" => boxed(Adam::new(0.02).weight_decay(0.1)),
        "adam_betas" => boxed(Adam::new(0.01).betas(0.5, 0.9).eps(1e-3)),
        "adamw" => boxed(Adam::adamw(0.01)),
        "adamw_decay" => boxed(Adam::adamw(0.05).weight_decay(0.3).betas(0.8, 0.95)),
        other => panic!("unknown optimizer {other}"),
    }
}

/// Every parameter's values against PyTorch's, within `tol` relative to
/// `1 + |value|`.
fn assert_params(at: &str, params: &[Vec<f64>], expected: &Value, tol: f64) {
    let expected = expected.as_array().expect("params");
    assert_eq!(params.len(), expected.len());
    for (i, (p, e)) in params.iter().zip(expected).enumerate() {
        for (j, (g, w)) in p.iter().zip(floats(e)).enumerate() {
            assert!(
                (g - w).abs() <= tol * (1.0 + w.abs()),
                "{at} param {i}[{j}]: {g} vs PyTorch {w}"
            );
        }
    }
}

#[test]
fn trajectories_match_pytorch() {
    let data = section("optimizers");
    let runs = data.as_array().expect("optimizers");
    assert_eq!(runs.len(), 8);
    for run in runs {
        let name = run["name"].as_str().expect("name");
        let init = &run["initial"];
        let mut model = Tiny {
            a: linear(&init[0], &init[1]),
            b: linear(&init[2], &init[3]),
        };
        let x = Var::constant(Tensor::<f64, Shape![5, 3]>::from_vec(floats(&run["x"])));
        let y = Var::constant(Tensor::<f64, Shape![5, 2]>::from_vec(floats(&run["y"])));
        let mut step = optimizer(name);
        for (k, want) in run["steps"].as_array().expect("steps").iter().enumerate() {
            let loss = mse(&model.b.forward(&model.a.forward(&x).tanh()), &y, Mean);
            let got = loss.value().item();
            let expected = want["loss"].as_f64().expect("loss");
            assert!(
                (got - expected).abs() <= 1e-12 * expected.abs(),
                "{name} step {k}: loss {got} vs PyTorch {expected}"
            );
            let grads = loss.backward();
            drop(loss);
            step(&mut model, &grads);
            let params: Vec<Vec<f64>> = model.params().iter().map(|p| p.value().to_vec()).collect();
            assert_params(&format!("{name} step {k}"), &params, &want["params"], 1e-12);
        }
    }
}

#[test]
fn a_parameter_without_gradient_is_left_alone() {
    let mut ps = vec![
        Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.])),
        Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![3., 4.])),
    ];
    let grads = ps[1].sum().backward();
    let mut opt = Adam::new(0.5);
    opt.step(&mut ps, &grads);
    assert_eq!(ps[0].value().to_vec(), vec![1., 2.]);
    // Adam's first step moves by lr against the gradient's sign.
    let moved = ps[1].value().to_vec();
    assert!((moved[0] - 2.5).abs() < 1e-7 && (moved[1] - 3.5).abs() < 1e-7);
}

/// The model of [`Tiny`] on `f32`.
#[derive(Parameters)]
struct TinyF32 {
    a: Linear<Const<3>, Const<4>>,
    b: Linear<Const<4>, Const<2>>,
}

fn linear_f32<const I: usize, const O: usize>(w: &Value, b: &Value) -> Linear<Const<I>, Const<O>> {
    let f = |v: &Value| floats(v).into_iter().map(|x| x as f32).collect();
    Linear::from_tensors(Tensor::from_vec(f(w)), Some(Tensor::from_vec(f(b))))
}

/// Adam and AdamW on `f32` parameters (their update is compiled inside
/// shaped for `f32` on the CPU, apart from the generic one the `f64` runs
/// above take) follow PyTorch's `float64` trajectories to `f32` rounding.
#[test]
fn adam_on_f32_follows_pytorch() {
    let data = section("optimizers");
    let mut checked = 0;
    for run in data.as_array().expect("optimizers") {
        let name = run["name"].as_str().expect("name");
        let mut opt = match name {
            "adam" => Adam::new(0.01f32),
            "adam_weight_decay" => Adam::new(0.02).weight_decay(0.1),
            "adam_betas" => Adam::new(0.01).betas(0.5, 0.9).eps(1e-3),
            "adamw" => Adam::adamw(0.01),
            "adamw_decay" => Adam::adamw(0.05).weight_decay(0.3).betas(0.8, 0.95),
            _ => continue,
        };
        let init = &run["initial"];
        let mut model = TinyF32 {
            a: linear_f32(&init[0], &init[1]),
            b: linear_f32(&init[2], &init[3]),
        };
        let f = |v: &Value| {
            floats(v)
                .into_iter()
                .map(|x| x as f32)
                .collect::<Vec<f32>>()
        };
        let x = Var::constant(Tensor::<f32, Shape![5, 3]>::from_vec(f(&run["x"])));
        let y = Var::constant(Tensor::<f32, Shape![5, 2]>::from_vec(f(&run["y"])));
        for (k, want) in run["steps"].as_array().expect("steps").iter().enumerate() {
            let loss = mse(&model.b.forward(&model.a.forward(&x).tanh()), &y, Mean);
            let grads = loss.backward();
            drop(loss);
            opt.step(&mut model, &grads);
            let params: Vec<Vec<f64>> = (model.params().iter())
                .map(|p| p.value().to_vec().into_iter().map(f64::from).collect())
                .collect();
            assert_params(
                &format!("{name} (f32) step {k}"),
                &params,
                &want["params"],
                2e-5,
            );
        }
        checked += 1;
    }
    assert_eq!(checked, 5);
}
