// A batched product of two different generic batch sizes: the batch cannot
// be proven to broadcast. Twin: pass/one_param.rs (`batched`).
use shaped::{Dim, Shape, Tensor};

fn batched<B: Dim, C: Dim>(x: &Tensor<f32, Shape![B, 2, 3]>, w: &Tensor<f32, Shape![C, 3, 4]>) {
    let _ = x.matmul(w);
}

fn main() {}
