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
use shaped::element::{Float, Numeric};
use shaped::nn::{Adam, Linear, Mean, Optimizer, Parameters, Sgd, mse};
use shaped::{Const, Shape, Tensor};

#[derive(Parameters)]
struct Tiny<T: Float> {
    a: Linear<Const<3>, Const<4>, T>,
    b: Linear<Const<4>, Const<2>, T>,
}

/// The case's values as `T`.
fn values<T: Float>(v: &Value) -> Vec<T> {
    floats(v).into_iter().map(T::from_f64).collect()
}

fn linear<T: Float, const I: usize, const O: usize>(
    w: &Value,
    b: &Value,
) -> Linear<Const<I>, Const<O>, T> {
    Linear::from_tensors(
        Tensor::from_vec(values(w)),
        Some(Tensor::from_vec(values(b))),
    )
}

/// The model at the case's initial parameters.
fn tiny<T: Float>(init: &Value) -> Tiny<T> {
    Tiny {
        a: linear(&init[0], &init[1]),
        b: linear(&init[2], &init[3]),
    }
}

/// The Adam and AdamW cases' optimizers, on `T`.
fn adam<T: Float>(name: &str) -> Option<Adam<T>> {
    let t = T::from_f64;
    Some(match name {
        "adam" => Adam::new(t(0.01)),
        "adam_weight_decay" => Adam::new(t(0.02)).weight_decay(t(0.1)),
        "adam_betas" => Adam::new(t(0.01)).betas(t(0.5), t(0.9)).eps(t(1e-3)),
        "adamw" => Adam::adamw(t(0.01)),
        "adamw_decay" => Adam::adamw(t(0.05))
            .weight_decay(t(0.3))
            .betas(t(0.8), t(0.95)),
        _ => return None,
    })
}

/// One optimizer step on the model.
type Step = Box<dyn FnMut(&mut Tiny<f64>, &shaped::autograd::Gradients<f64>)>;

fn optimizer(name: &str) -> Step {
    fn boxed<O: Optimizer<f64> + 'static>(mut o: O) -> Step {
        Box::new(move |m, g| o.step(m, g))
    }
    if let Some(a) = adam::<f64>(name) {
        return boxed(a);
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
        other => panic!("unknown optimizer {other}"),
    }
}

/// Trains the case's model with `step` and checks, before every step,
/// the loss, and after it, every parameter against PyTorch's, within `tol`
/// (relative to the loss; to `1 + |value|` for the parameters).
fn follow<T: Float>(
    run: &Value,
    mut step: impl FnMut(&mut Tiny<T>, &shaped::autograd::Gradients<T>),
    tol: f64,
) {
    let name = run["name"].as_str().expect("name");
    let mut model = tiny::<T>(&run["initial"]);
    let x = Var::constant(Tensor::<T, Shape![5, 3]>::from_vec(values(&run["x"])));
    let y = Var::constant(Tensor::<T, Shape![5, 2]>::from_vec(values(&run["y"])));
    for (k, want) in run["steps"].as_array().expect("steps").iter().enumerate() {
        let at = format!("{name} ({}) step {k}", T::NAME);
        let loss = mse(&model.b.forward(&model.a.forward(&x).tanh()), &y, Mean);
        let got = Numeric::to_f64(loss.value().item());
        let expected = want["loss"].as_f64().expect("loss");
        assert!(
            (got - expected).abs() <= tol * expected.abs(),
            "{at}: loss {got} vs PyTorch {expected}"
        );
        let grads = loss.backward();
        drop(loss);
        step(&mut model, &grads);
        let params = model.params();
        let expected = want["params"].as_array().expect("params");
        assert_eq!(params.len(), expected.len());
        for (i, (p, e)) in params.iter().zip(expected).enumerate() {
            for (j, (g, w)) in p.value().to_vec().iter().zip(floats(e)).enumerate() {
                let g = Numeric::to_f64(*g);
                assert!(
                    (g - w).abs() <= tol * (1.0 + w.abs()),
                    "{at} param {i}[{j}]: {g} vs PyTorch {w}"
                );
            }
        }
    }
}

#[test]
fn trajectories_match_pytorch() {
    let data = section("optimizers");
    let runs = data.as_array().expect("optimizers");
    assert_eq!(runs.len(), 8);
    for run in runs {
        follow::<f64>(run, optimizer(run["name"].as_str().expect("name")), 1e-12);
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

/// Adam and AdamW on `f32` parameters (their update is compiled inside
/// shaped for `f32` on the CPU, apart from the generic one the `f64` runs
/// above take) follow PyTorch's `float64` trajectories to `f32` rounding.
#[test]
fn adam_on_f32_follows_pytorch() {
    let data = section("optimizers");
    let mut checked = 0;
    for run in data.as_array().expect("optimizers") {
        if let Some(mut opt) = adam::<f32>(run["name"].as_str().expect("name")) {
            follow::<f32>(run, |m, g| opt.step(m, g), 2e-5);
            checked += 1;
        }
    }
    assert_eq!(checked, 5);
}
