// A model width of 384 split into 12 heads of 30 features (12 x 30 = 360).
use shaped::autograd::Var;
use shaped::nn::split_heads;
use shaped::{Const, Dyn, Tensor};

fn main() {
    let x: Var<f32, (Dyn, Dyn, Const<384>)> =
        Var::constant(Tensor::try_zeros(&[2, 7, 384]).unwrap());
    let _heads: Var<f32, (Dyn, Const<12>, Dyn, Const<30>)> = split_heads(&x);
}
