// A layer norm over 32 features applied to rows of 16.
use shaped::autograd::Var;
use shaped::nn::LayerNorm;
use shaped::{Const, Shape, Tensor};

fn main() {
    let ln: LayerNorm<Const<32>> = LayerNorm::new();
    let x = Var::constant(Tensor::<f32, Shape![8, 16]>::zeros());
    let _ = ln.forward(&x);
}
