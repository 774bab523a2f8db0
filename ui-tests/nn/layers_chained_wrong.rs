// Two layers whose widths do not chain: 8 outputs into 6 inputs.
use shaped::autograd::Var;
use shaped::nn::Linear;
use shaped::{Const, Shape, Tensor};

fn main() {
    let a: Linear<Const<4>, Const<8>> = Linear::new(0);
    let b: Linear<Const<6>, Const<2>> = Linear::new(1);
    let x = Var::constant(Tensor::<f32, Shape![3, 4]>::zeros());
    let _ = b.forward(&a.forward(&x));
}
