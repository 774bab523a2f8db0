//! Trains a 64-128-10 multilayer perceptron on scikit-learn's 8x8
//! handwritten digits (1,797 images, BSD-3-Clause; converted once by
//! `scripts/digits_to_npy.py` into `data/digits/*.npy`, 1,437 for training
//! and 360 held out), with `shaped::nn`: two `Linear` layers, cross-entropy
//! on class indices, Adam. It prints the loss and the held-out accuracy
//! after each epoch; the held-out images are never trained on.
//!
//! The model's forward pass is generic over the batch dimension `B` (no
//! extra bounds: the layer sizes are concrete, and the compiler resolves
//! the products and bias broadcasts for any `B`): it trains on `(Dyn, 64)`
//! mini-batches (the last one of each epoch is shorter) and evaluates the
//! whole held-out set as one static `Shape![360, 64]` batch, under
//! `no_grad`.
//!
//! Run with `cargo run --release --example digits`.

#[path = "common/digits_data.rs"]
mod digits_data;

use digits_data::{images_and_labels, shuffled};
use shaped::autograd::{Var, no_grad};
use shaped::nn::{Adam, Linear, Mean, Optimizer, Parameters, accuracy, cross_entropy};
use shaped::{Const, Dim, Dyn, Shape, Tensor};

type Pixels = Const<64>;
type Hidden = Const<128>;
type Classes = Const<10>;
/// A mini-batch of images, its size known at run time.
type Images = Var<f32, (Dyn, Pixels)>;
/// Their labels.
type Labels = Tensor<i64, (Dyn,)>;

const BATCH: usize = 64;
const EPOCHS: usize = 30;

#[derive(Parameters)]
struct Mlp {
    hidden: Linear<Pixels, Hidden>,
    out: Linear<Hidden, Classes>,
}

impl Mlp {
    fn new(seed: u64) -> Self {
        Mlp {
            hidden: Linear::new(seed),
            out: Linear::new(seed + 1),
        }
    }

    /// Logits `(B, 10)` for images `(B, 64)`, any batch dimension `B`.
    fn forward<B: Dim>(&self, x: &Var<f32, (B, Pixels)>) -> Var<f32, (B, Classes)> {
        self.out.forward(&self.hidden.forward(x).relu())
    }
}

/// The mini-batch of rows `rows`: images `(Dyn, 64)` and labels `(Dyn,)`.
fn batch(x: &[f32], y: &[i64], rows: &[usize]) -> (Images, Labels) {
    let xb = rows
        .iter()
        .flat_map(|&r| x[r * 64..(r + 1) * 64].iter().copied())
        .collect();
    let yb = rows.iter().map(|&r| y[r]).collect();
    let xb = Tensor::try_from_vec(xb, &[rows.len(), 64]).expect("64 pixels a row");
    (
        Var::constant(xb),
        Tensor::try_from_vec(yb, &[rows.len()]).expect("a label a row"),
    )
}

fn main() {
    let (train_x, train_y) = images_and_labels("train");
    let (test_x, test_y) = images_and_labels("test");
    let test_x = Var::constant(Tensor::<f32, Shape![360, 64]>::from_vec(test_x));
    let test_y = Tensor::<i64, Shape![360]>::from_vec(test_y);

    let mut model = Mlp::new(0);
    let mut opt = Adam::new(1e-2);
    println!("{} parameters", model.num_params());
    let start = std::time::Instant::now();
    let mut seed = 0x2545_F491_4F6C_DD1D_u64;
    let mut held_out = 0.0;
    for epoch in 1..=EPOCHS {
        let order = shuffled(train_y.len(), &mut seed);
        let (mut total, mut seen) = (0.0, 0);
        for rows in order.chunks(BATCH) {
            let (x, y) = batch(&train_x, &train_y, rows);
            let loss = cross_entropy(&model.forward(&x), &y, Mean);
            total += f64::from(loss.value().item()) * rows.len() as f64;
            seen += rows.len();
            let grads = loss.backward();
            drop(loss);
            opt.step(&mut model, &grads);
        }
        let logits = {
            let _eval = no_grad();
            model.forward(&test_x)
        };
        held_out = accuracy(logits.value(), &test_y);
        println!(
            "epoch {epoch:2}  train loss {:.4}  held-out accuracy {:5.1}%",
            total / seen as f64,
            100.0 * held_out
        );
    }
    println!(
        "trained {EPOCHS} epochs in {:.2} s; held-out accuracy {:.1}%",
        start.elapsed().as_secs_f32(),
        100.0 * held_out
    );
    assert!(held_out >= 0.95, "held-out accuracy below 95%");
}
