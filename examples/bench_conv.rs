//! Timing harness for convolutions, run side by side with PyTorch (CPU,
//! oneDNN) by `benches/compare_conv.py`: a ResNet-18 basic block (two 3x3
//! convolutions of 64 channels with batch norm and ReLU, and the
//! residual, at 56x56, batch 8), forward alone (under `no_grad`) and
//! forward + backward; and a depthwise 3x3 convolution (64 channels,
//! groups 64, same sizes), forward and forward + backward. Prints
//! `name<TAB>median nanoseconds` per case.
//!
//! `cargo run --release --example bench_conv [REPS] [CASE]`

use std::time::Instant;

use shaped::autograd::{Var, no_grad};
use shaped::nn::{BatchNorm2d, Conv2d};
use shaped::ops::conv::Conv2dOptions;
use shaped::{Const, Shape, Tensor};

type C64 = Const<64>;
type Maps = Shape![8, 64, 56, 56];

struct Block {
    conv1: Conv2d<C64, C64, Const<3>, 1, 1>,
    bn1: BatchNorm2d<C64>,
    conv2: Conv2d<C64, C64, Const<3>, 1, 1>,
    bn2: BatchNorm2d<C64>,
}

impl Block {
    fn forward(&self, x: &Var<f32, Maps>) -> Var<f32, Maps> {
        let h: Var<f32, Maps> = self.conv1.forward(x);
        let h: Var<f32, Maps> = self.conv2.forward(&self.bn1.forward(&h).relu());
        self.bn2.forward(&h).add(x).relu()
    }
}

fn median(reps: usize, mut f: impl FnMut()) -> f64 {
    f();
    f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed().as_nanos() as f64
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2]
}

fn main() {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(10);
    // An optional second argument runs only the cases whose names hold it
    // (for a profiler).
    let only = std::env::args().nth(2).unwrap_or_default();
    let run = |name: &str| name.contains(only.as_str());
    let block = Block {
        conv1: Conv2d::new(0).without_bias(),
        bn1: BatchNorm2d::new(),
        conv2: Conv2d::new(1).without_bias(),
        bn2: BatchNorm2d::new(),
    };
    let x = Var::param(Tensor::<f32, Maps>::randn(2));
    if run("block_forward") {
        let ns = median(reps, || {
            let _g = no_grad();
            std::hint::black_box(block.forward(&x));
        });
        println!("block_forward\t{ns}");
    }
    if run("block_train") {
        let ns = median(reps, || {
            let g = block.forward(&x).sum().backward();
            std::hint::black_box(g);
        });
        println!("block_train\t{ns}");
    }

    let w = Var::param(Tensor::<f32, Shape![64, 1, 3, 3]>::randn(3));
    let opts = Conv2dOptions::new().padding(1).groups(64);
    if run("depthwise_forward") {
        let ns = median(reps, || {
            let _g = no_grad();
            let y: Var<f32, Maps> = x.conv2d(&w, None, &opts);
            std::hint::black_box(y);
        });
        println!("depthwise_forward\t{ns}");
    }
    if run("depthwise_train") {
        let ns = median(reps, || {
            let y: Var<f32, Maps> = x.conv2d(&w, None, &opts);
            std::hint::black_box(y.sum().backward());
        });
        println!("depthwise_train\t{ns}");
    }
}
