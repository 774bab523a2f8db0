// `sum_to` needs a target that broadcasts to the tensor's shape: (5,) does
// not broadcast to (2, 3).
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![2, 3]>::zeros();
    let _: Tensor<f32, Shape![5]> = t.sum_to();
}
