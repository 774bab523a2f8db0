//! Trains a 2-64-64-1 multilayer perceptron by full-batch gradient descent
//! on the CPU or, with `--device cuda`, on the GPU: the same generic code,
//! `Var<f32, S, D>` recording and back-propagating on the device `D` that
//! holds the data (`D: GradDevice<f32>`). The task is a regression of
//! `sin(3 x₀) cos(2 x₁)` on 1,024 fixed points of `[-1, 1]²` with the
//! mean squared error; the loss is printed every 100 steps, and both
//! devices print the same losses (to rounding).
//!
//! ```text
//! cargo run --release --example mlp                                    # CPU
//! cargo run --release --example mlp --features cuda -- --device cuda   # GPU
//! ```
//!
//! `--device cuda` needs the `cuda` feature and a GPU; without either the
//! example says so and exits with status 1.

use shaped::ops::host;
use std::time::Instant;

use shaped::autograd::{GradDevice, Var};
use shaped::device::Cpu;
use shaped::shape::{FixedShape, Shape as Sizes};
use shaped::{Const, Shape, Tensor};

/// The number of training points.
const N: usize = 1024;
const STEPS: usize = 1000;
const LEARNING_RATE: f32 = 0.05;

type Points = (Const<N>, Const<2>);
type Targets = (Const<N>, shaped::One);

/// Moves host tensors to a device.
trait Place {
    type D: GradDevice<f32>;
    /// `t` on the device.
    fn place<S: Sizes>(&self, t: Tensor<f32, S>) -> Tensor<f32, S, Self::D>;
}

impl Place for Cpu {
    type D = Cpu;
    fn place<S: Sizes>(&self, t: Tensor<f32, S>) -> Tensor<f32, S> {
        t
    }
}

#[cfg(feature = "cuda")]
impl Place for shaped::device::CudaDevice {
    type D = shaped::device::Cuda;
    fn place<S: Sizes>(&self, t: Tensor<f32, S>) -> Tensor<f32, S, Self::D> {
        t.to_device(self).expect("a host-to-device copy")
    }
}

/// Deterministic values in `[lo, hi)`.
fn uniform(n: usize, seed: u64, lo: f32, hi: f32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            lo + ((s >> 40) as f32 / (1u64 << 24) as f32) * (hi - lo)
        })
        .collect()
}

/// The training points and their targets.
fn data() -> (Tensor<f32, Points>, Tensor<f32, Targets>) {
    let x = uniform(2 * N, 1, -1.0, 1.0);
    let y = x
        .chunks(2)
        .map(|p| (3.0 * p[0]).sin() * (2.0 * p[1]).cos())
        .collect();
    (Tensor::from_vec(x), Tensor::from_vec(y))
}

/// A weight matrix (uniform in `±1/√fan_in`, as PyTorch's `Linear`) or a
/// bias.
fn init<S: FixedShape>(fan_in: usize, seed: u64) -> Tensor<f32, S> {
    let n = S::static_sizes()
        .expect("a fixed shape")
        .as_ref()
        .iter()
        .product();
    let b = 1.0 / (fan_in as f32).sqrt();
    Tensor::from_vec(uniform(n, seed, -b, b))
}

/// The parameters of the perceptron on device `D`.
struct Mlp<D: GradDevice<f32>> {
    w1: Var<f32, Shape![2, 64], D>,
    b1: Var<f32, Shape![64], D>,
    w2: Var<f32, Shape![64, 64], D>,
    b2: Var<f32, Shape![64], D>,
    w3: Var<f32, Shape![64, 1], D>,
    b3: Var<f32, Shape![1], D>,
}

/// One gradient-descent step on `p`: `p - lr * grad`.
fn step<S: Sizes, D: GradDevice<f32>>(
    p: &Var<f32, S, D>,
    grads: &shaped::autograd::Gradients<f32, D>,
) -> Var<f32, S, D> {
    let g = grads.wrt(p).expect("every parameter reaches the loss");
    Var::param(
        p.value()
            .try_sub_alpha(&g, LEARNING_RATE)
            .expect("an update of the parameter's own sizes"),
    )
}

impl<D: GradDevice<f32>> Mlp<D> {
    fn new(on: &impl Place<D = D>) -> Self {
        Mlp {
            w1: Var::param(on.place(init(2, 10))),
            b1: Var::param(on.place(init(2, 11))),
            w2: Var::param(on.place(init(64, 12))),
            b2: Var::param(on.place(init(64, 13))),
            w3: Var::param(on.place(init(64, 14))),
            b3: Var::param(on.place(init(64, 15))),
        }
    }

    /// Predictions `(N, 1)` for points `(N, 2)`.
    fn forward(&self, x: &Var<f32, Points, D>) -> Var<f32, Targets, D> {
        let h = x.matmul(&self.w1).add(&self.b1).tanh();
        let h = h.matmul(&self.w2).add(&self.b2).tanh();
        h.matmul(&self.w3).add(&self.b3)
    }

    /// The parameters after one step down the gradients `g`.
    fn updated(&self, g: &shaped::autograd::Gradients<f32, D>) -> Self {
        Mlp {
            w1: step(&self.w1, g),
            b1: step(&self.b1, g),
            w2: step(&self.w2, g),
            b2: step(&self.b2, g),
            w3: step(&self.w3, g),
            b3: step(&self.b3, g),
        }
    }
}

/// Trains on the device `on` places tensors on, printing the loss.
fn train<P: Place>(on: &P, name: &str) {
    let (x, y) = data();
    let (x, y) = (Var::constant(on.place(x)), Var::constant(on.place(y)));
    let mut mlp = Mlp::new(on);
    let start = Instant::now();
    for i in 0..=STEPS {
        let loss = mlp.forward(&x).sub(&y).square().mean();
        if i % 100 == 0 {
            let v = host::to_host(loss.value()).expect("a device-to-host copy");
            println!("{name} step {i:4}: loss {:.6}", v[0]);
        }
        if i < STEPS {
            mlp = mlp.updated(&loss.backward());
        }
    }
    println!(
        "{name}: {STEPS} steps in {:.2} s",
        start.elapsed().as_secs_f64()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let device = match args.iter().position(|a| a == "--device") {
        Some(i) => args.get(i + 1).map(String::as_str).unwrap_or(""),
        None => "cpu",
    };
    match device {
        "cpu" => train(&Cpu, "cpu"),
        "cuda" => train_cuda(),
        other => {
            eprintln!("unknown device {other:?}: use --device cpu or --device cuda");
            std::process::exit(2);
        }
    }
}

#[cfg(feature = "cuda")]
fn train_cuda() {
    match shaped::device::Cuda::device(0) {
        Ok(dev) => train(&dev, "cuda"),
        Err(e) => {
            eprintln!("--device cuda: no CUDA device is available here ({e})");
            std::process::exit(1);
        }
    }
}

#[cfg(not(feature = "cuda"))]
fn train_cuda() {
    eprintln!(
        "--device cuda: this example was built without the `cuda` feature; \
         run it with `cargo run --release --example mlp --features cuda -- --device cuda`"
    );
    std::process::exit(1);
}
