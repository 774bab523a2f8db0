// A stride-2 3x3 transposed convolution with padding 1 turns 7x7 into
// 13x13, not the 14x14 the result type states (that needs output padding
// 1, or a 4x4 kernel). A build-time error with the formula's values.
use shaped::autograd::Var;
use shaped::nn::ConvTranspose2d;
use shaped::{Const, Shape, Tensor};

fn main() {
    let up: ConvTranspose2d<Const<8>, Const<4>, Const<3>, 2, 1> = ConvTranspose2d::new(0);
    let x = Var::constant(Tensor::<f32, Shape![2, 8, 7, 7]>::zeros());
    let _: Var<f32, Shape![2, 4, 14, 14]> = up.forward(&x);
}
