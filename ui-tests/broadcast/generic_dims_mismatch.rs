// Inside a generic function: whatever the batch size B, a (B, 3) tensor does
// not broadcast with a (4,) tensor. Twin: pass/generic_dims_match.rs.
use shaped::{Dim, Shape, Tensor};

fn add_bias<B: Dim>(x: &Tensor<f32, Shape![B, 3]>, bias: &Tensor<f32, Shape![4]>) {
    let _ = x + bias;
}

fn main() {}
