// A depthwise convolution over 32 channels (MobileNet's first block)
// applied to the 16 channels a stem convolution gives.
use shaped::autograd::Var;
use shaped::nn::{Conv2d, DepthwiseConv2d};
use shaped::{Const, Shape, Tensor};

fn main() {
    let stem: Conv2d<Const<3>, Const<16>, Const<3>, 2, 1> = Conv2d::new(0);
    let dw: DepthwiseConv2d<Const<32>, Const<3>, 1, 1> = DepthwiseConv2d::new(1);
    let x = Var::constant(Tensor::<f32, Shape![8, 3, 32, 32]>::zeros());
    let h: Var<f32, Shape![8, 16, 16, 16]> = stem.forward(&x);
    let _: Var<f32, Shape![8, 32, 16, 16]> = dw.forward(&h);
}
