// A CPU tensor and a CUDA tensor cannot be combined: the device is part of
// the type. Move one first (`to_device` / `to_cpu`). Twin: pass/same_device.rs.
use shaped::device::Cuda;
use shaped::{Shape, Tensor};

fn add(a: &Tensor<f32, Shape![2, 3]>, b: &Tensor<f32, Shape![2, 3], Cuda>) {
    let _ = a + b;
}

fn main() {
    let _ = add;
}
