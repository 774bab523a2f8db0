// The feed-forward output projection (1536 -> 384) applied to the
// attention's 384-wide activations instead of the 1536-wide hidden layer.
use shaped::autograd::Var;
use shaped::nn::Linear;
use shaped::{Const, Dyn, Tensor};

fn main() {
    let down: Linear<Const<1536>, Const<384>> = Linear::new(0);
    let x: Var<f32, (Dyn, Dyn, Const<384>)> =
        Var::constant(Tensor::try_zeros(&[2, 7, 384]).unwrap());
    let _ = down.forward_nd(&x);
}
