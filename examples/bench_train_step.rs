//! Timing harness for one training step of a 784-256-10 MLP (ReLU) at batch
//! 256: forward, cross-entropy, backward, Adam update. Run side by side with
//! PyTorch (CPU) by `benches/compare_train_step.py`, which does the same step
//! in `torch` in the same session. Prints `train_step<TAB>median
//! nanoseconds per step`.
//!
//! `cargo run --release --example bench_train_step`

use std::time::Instant;

use shaped::autograd::Var;
use shaped::nn::{Adam, Linear, Mean, Optimizer, Parameters, cross_entropy};
use shaped::{Const, Shape, Tensor};

const WARM_UP: usize = 10;
const REPS: usize = 50;

#[derive(Parameters)]
struct Mlp {
    hidden: Linear<Const<784>, Const<256>>,
    out: Linear<Const<256>, Const<10>>,
}

fn main() {
    let mut model = Mlp {
        hidden: Linear::new(0),
        out: Linear::new(1),
    };
    let mut opt = Adam::new(1e-3);
    let x = Var::constant(Tensor::<f32, Shape![256, 784]>::rand(2));
    let labels: Vec<i64> = (0..256).map(|i| (i * 7 % 10) as i64).collect();
    let y = Tensor::<i64, Shape![256]>::from_vec(labels);
    let mut step = || {
        let logits = model.out.forward(&model.hidden.forward(&x).relu());
        let loss = cross_entropy(&logits, &y, Mean);
        let grads = loss.backward();
        drop(loss);
        opt.step(&mut model, &grads);
    };
    for _ in 0..WARM_UP {
        step();
    }
    let mut t: Vec<f64> = (0..REPS)
        .map(|_| {
            let start = Instant::now();
            step();
            start.elapsed().as_nanos() as f64
        })
        .collect();
    t.sort_by(f64::total_cmp);
    println!("train_step\t{}", t[REPS / 2]);
}
