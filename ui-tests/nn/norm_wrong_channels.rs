// A batch norm over 16 channels applied to 8-channel feature maps.
use shaped::autograd::Var;
use shaped::nn::BatchNorm2d;
use shaped::{Const, Shape, Tensor};

fn main() {
    let bn: BatchNorm2d<Const<16>> = BatchNorm2d::new();
    let x = Var::constant(Tensor::<f32, Shape![4, 8, 7, 7]>::zeros());
    let _ = bn.forward(&x);
}
