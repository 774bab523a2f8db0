// A stride-2 3x3 convolution of 28x28 gives 13x13, not the 14x14 the
// result type states. A build-time error with the formula's values.
use shaped::autograd::Var;
use shaped::nn::Conv2d;
use shaped::{Const, One, Shape, Tensor};

fn main() {
    let conv: Conv2d<One, Const<8>, Const<3>, 2> = Conv2d::new(0);
    let x = Var::constant(Tensor::<f32, Shape![4, 1, 28, 28]>::zeros());
    let _: Var<f32, Shape![4, 8, 14, 14]> = conv.forward(&x);
}
