//! Trains a small convolutional network on scikit-learn's 8x8 handwritten
//! digits (1,797 images, BSD-3-Clause; `data/digits/*.npy`, 1,437 for
//! training and 360 held out; see `examples/digits.rs`), with
//! `shaped::nn`: two 3x3 convolutions with batch norm, ReLU and 2x2 max
//! pooling, then a linear classifier; cross-entropy, Adam. It prints the
//! loss and the held-out accuracy after each epoch.
//!
//! Every activation's shape is in its type: `(B, 1, 8, 8)` →
//! `(B, 16, 8, 8)` → `(B, 16, 4, 4)` → `(B, 32, 4, 4)` → `(B, 32, 2, 2)` →
//! `(B, 128)` → `(B, 10)`, for any batch dimension `B`. The channel counts
//! are checked at `cargo check`; the spatial sizes each layer states are
//! checked against the convolution's arithmetic when the program is built
//! (a `Conv2d<_, _, Const<3>, 1, 0>` here would stop the build: `8x8` in,
//! `6x6` out).
//!
//! Run with `cargo run --release --example cnn_digits`.

#[path = "common/digits_data.rs"]
mod digits_data;

use digits_data::{images_and_labels, shuffled};
use shaped::autograd::{Var, no_grad};
use shaped::nn::{
    Adam, BatchNorm2d, Conv2d, Linear, Mean, Optimizer, Parameters, accuracy, cross_entropy,
};
use shaped::ops::conv::Pool2dOptions;
use shaped::{Const, Dim, Dyn, One, Shape, Tensor};

type Side = Const<8>;
type Classes = Const<10>;
/// A mini-batch of images `(B, 1, 8, 8)`, its size known at run time.
type Images = Var<f32, (Dyn, One, Side, Side)>;
/// Their labels.
type Labels = Tensor<i64, (Dyn,)>;

const BATCH: usize = 64;
const EPOCHS: usize = 20;

#[derive(Parameters)]
struct Cnn {
    conv1: Conv2d<One, Const<16>, Const<3>, 1, 1>,
    bn1: BatchNorm2d<Const<16>>,
    conv2: Conv2d<Const<16>, Const<32>, Const<3>, 1, 1>,
    bn2: BatchNorm2d<Const<32>>,
    out: Linear<Const<128>, Classes>,
}

impl Cnn {
    fn new(seed: u64) -> Self {
        Cnn {
            conv1: Conv2d::new(seed),
            bn1: BatchNorm2d::new(),
            conv2: Conv2d::new(seed + 1),
            bn2: BatchNorm2d::new(),
            out: Linear::new(seed + 2),
        }
    }

    /// Training mode (batch statistics) or evaluation (running ones).
    fn train(&mut self, on: bool) {
        if on {
            self.bn1.train();
            self.bn2.train();
        } else {
            self.bn1.eval();
            self.bn2.eval();
        }
    }

    /// Logits `(B, 10)` for images `(B, 1, 8, 8)`, any batch dimension `B`.
    fn forward<B: Dim>(&self, x: &Var<f32, (B, One, Side, Side)>) -> Var<f32, (B, Classes)> {
        let pool = Pool2dOptions::new(2);
        let h: Var<f32, (B, Const<16>, Side, Side)> = self.conv1.forward(x);
        let h: Var<f32, (B, Const<16>, Const<4>, Const<4>)> =
            self.bn1.forward(&h).relu().max_pool2d(&pool);
        let h: Var<f32, (B, Const<32>, Const<4>, Const<4>)> = self.conv2.forward(&h);
        let h: Var<f32, (B, Const<32>, Const<2>, Const<2>)> =
            self.bn2.forward(&h).relu().max_pool2d(&pool);
        let flat: Var<f32, (B, Const<128>)> = h
            .try_reshape(&[h.dims()[0] as isize, 128])
            .expect("32 x 2 x 2 features an image");
        self.out.forward(&flat)
    }
}

/// The mini-batch of rows `rows`: images `(Dyn, 1, 8, 8)` and labels.
fn batch(x: &[f32], y: &[i64], rows: &[usize]) -> (Images, Labels) {
    let xb = rows
        .iter()
        .flat_map(|&r| x[r * 64..(r + 1) * 64].iter().copied())
        .collect();
    let yb = rows.iter().map(|&r| y[r]).collect();
    let xb = Tensor::try_from_vec(xb, &[rows.len(), 1, 8, 8]).expect("64 pixels an image");
    (
        Var::constant(xb),
        Tensor::try_from_vec(yb, &[rows.len()]).expect("a label an image"),
    )
}

fn main() {
    let (train_x, train_y) = images_and_labels("train");
    let (test_x, test_y) = images_and_labels("test");
    let test_x = Var::constant(Tensor::<f32, Shape![360, 1, 8, 8]>::from_vec(test_x));
    let test_y = Tensor::<i64, Shape![360]>::from_vec(test_y);

    let mut model = Cnn::new(0);
    let mut opt = Adam::new(3e-3);
    println!("{} parameters", model.num_params());
    let start = std::time::Instant::now();
    let mut seed = 0x2545_F491_4F6C_DD1D_u64;
    let mut held_out = 0.0;
    for epoch in 1..=EPOCHS {
        model.train(true);
        let order = shuffled(train_y.len(), &mut seed);
        let (mut total, mut seen) = (0.0, 0);
        // Whole batches only: batch norm needs more than one image.
        for rows in order.chunks_exact(BATCH) {
            let (x, y) = batch(&train_x, &train_y, rows);
            let loss = cross_entropy(&model.forward(&x), &y, Mean);
            total += f64::from(loss.value().item()) * rows.len() as f64;
            seen += rows.len();
            let grads = loss.backward();
            drop(loss);
            opt.step(&mut model, &grads);
        }
        model.train(false);
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
    assert!(held_out >= 0.98, "held-out accuracy below 98%");
}
