// A 5x5 kernel over a 4x4 input without padding: no window fits. A
// build-time error (`cargo build`) naming the kernel and the padded size.
use shaped::autograd::Var;
use shaped::nn::Conv2d;
use shaped::{Const, Shape, Tensor};

fn main() {
    let conv: Conv2d<Const<8>, Const<8>, Const<5>> = Conv2d::new(0);
    let x = Var::constant(Tensor::<f32, Shape![2, 8, 4, 4]>::zeros());
    let _: Var<f32, Shape![2, 8, 1, 1]> = conv.forward(&x);
}
