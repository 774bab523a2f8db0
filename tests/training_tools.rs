//! The training toolkit against PyTorch (data/training/tools.json, made by
//! scripts/training_tools_reference.py): cross-entropy over `(B, T, V)`
//! logits with ignored targets and label smoothing (values and gradients,
//! three reductions), `clip_grad_norm`, the warm-up schedules through
//! `LrScheduler`, and the `Var` conveniences a training loop uses.

use shaped::autograd::Var;
use shaped::nn::{
    Adam, CrossEntropy, LrScheduler, Mean, NoReduction, Optimizer, Sum, clip_grad_norm,
    warmup_cosine, warmup_linear,
};
use shaped::{Const, DynRank, Shape, Tensor};

fn reference() -> serde_json::Value {
    serde_json::from_str(include_str!("../data/training/tools.json")).expect("tools.json")
}

fn floats(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect()
}

fn close(a: &[f64], b: &[f64], tol: f64, what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol * (1.0 + y.abs()),
            "{what}[{i}]: {x} vs PyTorch {y}"
        );
    }
}

type Logits = Shape![2, 3, 5];
type Targets = Shape![2, 3];

#[test]
fn cross_entropy_matches_pytorch() {
    let r = reference();
    let logits = Tensor::<f64, Logits>::from_vec(floats(&r["logits"]));
    let targets: Vec<i64> = r["targets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_i64().unwrap())
        .collect();
    let targets = Tensor::<i64, Targets>::from_vec(targets);
    for case in r["cross_entropy"].as_array().unwrap() {
        let eps = case["label_smoothing"].as_f64().unwrap();
        let x = Var::param(logits.clone());
        let options = CrossEntropy::new().label_smoothing(eps);
        // The result's type follows the reduction: `()` or the targets' shape.
        let (loss, grads) = match case["reduction"].as_str().unwrap() {
            "mean" => {
                let l: Var<f64, ()> = options.loss(&x, &targets);
                (vec![l.item()], l.backward())
            }
            "sum" => {
                let l = options.reduction(Sum).loss(&x, &targets);
                (vec![l.item()], l.backward())
            }
            _ => {
                let l: Var<f64, Targets> = options.reduction(NoReduction).loss(&x, &targets);
                (l.value().to_vec(), l.sum().backward())
            }
        };
        let what = format!("{} ε={eps}", case["reduction"]);
        close(&loss, &floats(&case["loss"]), 1e-12, &what);
        let g = grads.wrt(&x).unwrap().to_vec();
        close(&g, &floats(&case["grad"]), 1e-12, &format!("{what} grad"));
    }
}

#[test]
fn cross_entropy_errors_are_pytorchs() {
    let x = Var::param(Tensor::<f32, Shape![2, 3]>::zeros());
    let t = Tensor::<i64, Shape![2]>::from_vec(vec![0, 3]);
    let e = CrossEntropy::new().try_loss(&x, &t).unwrap_err();
    assert_eq!(e.to_string(), "Target 3 is out of bounds.");
    let t = Tensor::<i64, Shape![2]>::from_vec(vec![0, -100]);
    let e = CrossEntropy::new()
        .no_ignore_index()
        .try_loss(&x, &t)
        .unwrap_err();
    assert_eq!(e.to_string(), "Target -100 is out of bounds.");
    let e = CrossEntropy::new()
        .label_smoothing(1.5)
        .try_loss(&x, &Tensor::<i64, Shape![2]>::from_vec(vec![0, 1]))
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "label_smoothing must be between 0.0 and 1.0. Got: 1.5"
    );
    // Run-time sizes: the targets must be the logits' leading sizes.
    let xd = Var::param(Tensor::<f32, DynRank>::try_zeros(&[2, 3, 4]).unwrap());
    let td = Tensor::<i64, DynRank>::try_zeros(&[2, 2]).unwrap();
    let e = CrossEntropy::new().try_loss(&xd, &td).unwrap_err();
    assert_eq!(e.to_string(), "Expected target size [2, 3], got [2, 2]");
}

#[test]
fn cross_entropy_with_every_target_ignored_is_nan_as_in_pytorch() {
    let x = Var::param(Tensor::<f32, Shape![2, 3]>::zeros());
    let t = Tensor::<i64, Shape![2]>::from_vec(vec![-100, -100]);
    let l = CrossEntropy::new().loss(&x, &t);
    assert!(l.item().is_nan());
    // Summed, nothing is counted.
    assert_eq!(CrossEntropy::new().reduction(Sum).loss(&x, &t).item(), 0.0);
}

#[test]
fn clip_grad_norm_matches_pytorch() {
    let r = &reference()["clip"];
    struct Two {
        a: Var<f64, Shape![3, 4]>,
        b: Var<f64, Shape![5]>,
    }
    impl shaped::nn::Parameters<f64> for Two {
        fn visit_params(&self, f: &mut dyn FnMut(&Var<f64, DynRank>)) {
            f(&self.a.into_dyn());
            f(&self.b.into_dyn());
        }
    }
    let m = Two {
        a: Var::param(Tensor::from_vec(floats(&r["a"]))),
        b: Var::param(Tensor::from_vec(floats(&r["b"]))),
    };
    let loss = &m.a.square().sum() + &m.b.square().mul(&m.b).sum();
    let mut grads = loss.backward();
    let total = clip_grad_norm(&m, &mut grads, r["max_norm"].as_f64().unwrap());
    close(
        &[total],
        &[r["total_norm"].as_f64().unwrap()],
        1e-12,
        "norm",
    );
    close(
        &grads.wrt(&m.a).unwrap().to_vec(),
        &floats(&r["grad_a"]),
        1e-12,
        "a",
    );
    close(
        &grads.wrt(&m.b).unwrap().to_vec(),
        &floats(&r["grad_b"]),
        1e-12,
        "b",
    );
}

#[test]
fn warmup_schedules_match_transformers() {
    let r = &reference()["schedules"];
    for (name, f) in [
        (
            "cosine",
            Box::new(warmup_cosine(3, 12)) as Box<dyn Fn(usize) -> f64>,
        ),
        ("linear", Box::new(warmup_linear(3, 12))),
    ] {
        let s = &r[name];
        let mut opt = Adam::<f64>::adamw(s["base_lr"].as_f64().unwrap());
        let mut sched = LrScheduler::new(&mut opt, f);
        let mut lrs = Vec::new();
        for _ in 0..14 {
            lrs.push(opt.lr());
            sched.step(&mut opt);
        }
        close(&lrs, &floats(&s["lrs"]), 1e-15, name);
    }
}

#[test]
fn set_lr_keeps_the_moments() {
    // Two AdamW runs: one at 1e-2 throughout, one set from 1e-3 to 1e-2
    // after its first step. The second steps differ only through the rate:
    // the moments carried over are the same.
    let run = |first: f64| {
        let w = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., -2.]));
        let mut opt = Adam::adamw(first);
        for lr in [first, 1e-2] {
            opt.set_lr(lr);
            let grads = w.square().sum().backward();
            opt.step(&mut w.clone(), &grads);
        }
        w.value().to_vec()
    };
    let (a, b) = (run(1e-2), run(1e-3));
    // The first step moves each weight by about lr against its sign.
    let expected_gap = 1e-2 - 1e-3;
    assert!(((b[0] - a[0]) - expected_gap).abs() < 2e-4, "{a:?} {b:?}");
}

#[test]
fn var_scalar_operators_and_item() {
    let x = Var::param(Tensor::<f32, Shape![2]>::from_vec(vec![1., 4.]));
    let y = &(&(&(2.0 * &x) / 4.0) - 1.0) + 0.5;
    assert_eq!(y.value().to_vec(), vec![0., 1.5]);
    let z = 1.0 / &x;
    assert_eq!(z.value().to_vec(), vec![1., 0.25]);
    let l = (&(1.0 - &z) * 0.125).sum();
    assert_eq!(l.item(), 0.125 * 0.75);
    let g = l.backward().wrt(&x).unwrap().to_vec();
    // d/dx (1 - 1/x) / 8 = 1 / (8 x²)
    assert_eq!(g, vec![0.125, 0.125 / 16.]);
    let d: Var<f32, DynRank> = x.into_dyn();
    let back: Var<f32, (Const<2>,)> = d.try_into_shape().unwrap();
    assert_eq!(back.value().to_vec(), vec![1., 4.]);
}

#[test]
fn gradients_accumulate_over_micro_batches() {
    // The gradient of a mean over four samples equals the sum of the
    // gradients of two half-batches' means, each scaled by one half.
    let w = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![0.5, -1., 2.]));
    let x = Tensor::<f64, Shape![4, 3]>::from_vec((0..12).map(|i| i as f64 / 7.).collect());
    let loss = |rows: Tensor<f64, DynRank>| {
        let rows: Var<f64, (shaped::Dyn, Const<3>)> = Var::constant(rows.try_into_shape().unwrap());
        rows.mul(&w).sum_dim::<1>().square().mean()
    };
    let full = loss(x.clone().into_dyn())
        .backward()
        .wrt(&w)
        .unwrap()
        .to_vec();
    let xd = x.into_dyn();
    let halves: Vec<Tensor<f64, DynRank>> = (0..2)
        .map(|h| xd.narrow::<DynRank>(0, 2 * h, 2).unwrap().contiguous())
        .collect();
    let mut acc = (&loss(halves[0].clone()) * 0.5).backward();
    acc.try_accumulate((&loss(halves[1].clone()) * 0.5).backward())
        .unwrap();
    close(&acc.wrt(&w).unwrap().to_vec(), &full, 1e-14, "accumulated");
    let _ = Mean;
}
