// cat along axis 2 of 2-d tensors. Twin: pass/cat_stack_axis.rs.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 4]>::zeros();
    let _ = Tensor::cat::<2>(&[&a, &a]);
}
