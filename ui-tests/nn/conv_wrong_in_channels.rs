// A convolution of 1 input channel applied to an RGB batch (3 channels).
use shaped::autograd::Var;
use shaped::nn::Conv2d;
use shaped::{Const, One, Shape, Tensor};

fn main() {
    let conv: Conv2d<One, Const<16>, Const<3>, 1, 1> = Conv2d::new(0);
    let x = Var::constant(Tensor::<f32, Shape![8, 3, 32, 32]>::zeros());
    let _: Var<f32, Shape![8, 16, 32, 32]> = conv.forward(&x);
}
