//! Trains a 784-128-10 multilayer perceptron with plain SGD on generated
//! data: 4096 seeded Gaussian inputs labelled by a fixed random linear
//! teacher (the label is the argmax of `x · W_teacher`), in batches of 64.
//! The loss (cross-entropy, written as `-Σ one_hot ⊙ log_softmax(logits) /
//! B`) falls as it trains; the example prints it every 25 steps, with the
//! accuracy on a held-out batch.
//!
//! Every shape is static: `Var<f32, Shape![64, 784]>` times
//! `Var<f32, Shape![784, 128]>` is `Var<f32, Shape![64, 128]>`, the bias
//! `Shape![128]` broadcasts over the batch, and its gradient comes back as a
//! `Tensor<f32, Shape![128]>`.
//!
//! The dense layer is `Var::matmul`: `ops::matmul` for the value, and
//! `g · Wᵀ`, `xᵀ · g` for the gradients.
//!
//! Run with `cargo run --release --example mlp`.

use shaped::autograd::{Gradients, Var};
use shaped::shape::BroadcastShape;
use shaped::{Shape, Tensor};

const B: usize = 64;
const BATCHES: usize = 64;
const STEPS: usize = 1000;
const LR: f32 = 0.1;

type Batch = Tensor<f32, Shape![64, 784]>;

/// One SGD step for one parameter: `p - lr * dL/dp`, a new leaf.
fn sgd<S: BroadcastShape<S, Output = S>>(p: &Var<f32, S>, grads: &Gradients<f32>) -> Var<f32, S> {
    let g = grads.wrt(p).expect("every parameter is used by the loss");
    Var::param(p.value().sub(&g.map(|x| x * LR)))
}

/// Batch `k` of inputs and the teacher's one-hot labels.
fn batch(k: usize, teacher: &Var<f32, Shape![784, 10]>) -> (Batch, Tensor<f32, Shape![64, 10]>) {
    let x = Batch::randn(1_000 + k as u64);
    let logits = Var::constant(x.clone()).matmul(teacher);
    let labels = logits.value().argmax_dim::<1>().to_vec();
    let mut one_hot = vec![0.0f32; B * 10];
    for (i, &l) in labels.iter().enumerate() {
        one_hot[i * 10 + l as usize] = 1.0;
    }
    (x, Tensor::from_vec(one_hot))
}

/// Scaled normal initial weights.
fn init<S: shaped::shape::FixedShape>(seed: u64, scale: f32) -> Var<f32, S> {
    Var::param(Tensor::<f32, S>::randn(seed).map(move |x| x * scale))
}

fn main() {
    let teacher: Var<f32, Shape![784, 10]> = Var::constant(Tensor::randn(7));
    let mut w1: Var<f32, Shape![784, 128]> = init(1, (2.0f32 / 784.0).sqrt());
    let mut b1: Var<f32, Shape![128]> = Var::param(Tensor::zeros());
    let mut w2: Var<f32, Shape![128, 10]> = init(2, (1.0f32 / 128.0).sqrt());
    let mut b2: Var<f32, Shape![10]> = Var::param(Tensor::zeros());

    let data: Vec<_> = (0..BATCHES).map(|k| batch(k, &teacher)).collect();
    let held_out = batch(BATCHES, &teacher);
    let forward = |x: &Batch,
                   w1: &Var<f32, Shape![784, 128]>,
                   b1: &Var<f32, Shape![128]>,
                   w2: &Var<f32, Shape![128, 10]>,
                   b2: &Var<f32, Shape![10]>| {
        let hidden = Var::constant(x.clone()).matmul(w1).add(b1).relu();
        let logits: Var<f32, Shape![64, 10]> = hidden.matmul(w2).add(b2);
        logits
    };
    let accuracy = |logits: &Tensor<f32, Shape![64, 10]>, y: &Tensor<f32, Shape![64, 10]>| {
        let hits = logits
            .argmax_dim::<1>()
            .to_vec()
            .into_iter()
            .zip(y.argmax_dim::<1>().to_vec())
            .filter(|(a, b)| a == b)
            .count();
        100.0 * hits as f32 / B as f32
    };

    let start = std::time::Instant::now();
    let mut first = None;
    let mut last = 0.0;
    for step in 0..=STEPS {
        let (x, y) = &data[step % BATCHES];
        let logits = forward(x, &w1, &b1, &w2, &b2);
        let log_p = logits.log_softmax_dim::<1>();
        let loss = log_p
            .mul(&Var::constant(y.clone()))
            .sum()
            .mul_scalar(-1.0 / B as f32);

        let value = loss.value().item();
        first.get_or_insert(value);
        last = value;
        if step % 50 == 0 {
            let test = forward(&held_out.0, &w1, &b1, &w2, &b2);
            println!(
                "step {step:4}  loss {value:.4}  held-out accuracy {:5.1}%",
                accuracy(test.value(), &held_out.1)
            );
        }

        let grads = loss.backward();
        // The gradients have the parameters' own shapes.
        let _: Tensor<f32, Shape![128]> = grads.wrt(&b1).expect("b1 is used");
        w1 = sgd(&w1, &grads);
        b1 = sgd(&b1, &grads);
        w2 = sgd(&w2, &grads);
        b2 = sgd(&b2, &grads);
    }
    let first = first.expect("at least one step");
    println!(
        "loss fell from {first:.4} to {last:.4} in {STEPS} steps ({:.1} s)",
        start.elapsed().as_secs_f32()
    );
    assert!(last < 0.5 * first, "the loss should fall");
}
