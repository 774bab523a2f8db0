// The literal is 2x3; the binding says 3x2.
use shaped::{tensor, Shape, Tensor};

fn main() {
    let _t: Tensor<f64, Shape![3, 2]> = tensor![[1., 2., 3.], [4., 5., 6.]];
}
