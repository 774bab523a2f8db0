// A layer of 3 inputs applied to rows of 5 features.
use shaped::autograd::Var;
use shaped::nn::Linear;
use shaped::{Const, Shape, Tensor};

fn main() {
    let layer: Linear<Const<3>, Const<2>> = Linear::new(0);
    let x = Var::constant(Tensor::<f32, Shape![4, 5]>::zeros());
    let _ = layer.forward(&x);
}
