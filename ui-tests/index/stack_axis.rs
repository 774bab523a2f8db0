// stack inserts a new axis at 0..=rank: 3 is out of range for 2-d tensors.
// Twin: pass/cat_stack_axis.rs.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 4]>::zeros();
    let _ = Tensor::stack::<3>(&[&a, &a]);
}
