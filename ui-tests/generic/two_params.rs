// Two different generic batch sizes cannot be proven equal: a compile error
// that says so and how to check at run time. Twin: pass/one_param.rs.
use shaped::{Dim, Shape, Tensor};

fn add<B: Dim, C: Dim>(x: &Tensor<f32, Shape![B, 3]>, y: &Tensor<f32, Shape![C, 3]>) {
    let _ = x + y;
}

fn main() {}
