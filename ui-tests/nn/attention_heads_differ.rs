// Keys split into 6 heads for queries split into 12: a head split that does
// not match is a type error at the call.
use shaped::autograd::Var;
use shaped::nn::{scaled_dot_product_attention, NoMask};
use shaped::{Shape, Tensor};

fn main() {
    let q = Var::constant(Tensor::<f32, Shape![2, 12, 5, 32]>::zeros());
    let k = Var::constant(Tensor::<f32, Shape![2, 6, 5, 64]>::zeros());
    let v = Var::constant(Tensor::<f32, Shape![2, 12, 5, 32]>::zeros());
    let _ = scaled_dot_product_attention(&q, &k, &v, &NoMask);
}
