// The method form: `a.add(&b)` with `a` on the CPU and `b` on the GPU.
// Twin: pass/same_device.rs.
use shaped::device::Cuda;
use shaped::{Shape, Tensor};

fn add(a: &Tensor<f32, Shape![2, 3]>, b: &Tensor<f32, Shape![2, 3], Cuda>) {
    let _ = a.add(b);
}

fn main() {
    let _ = add;
}
