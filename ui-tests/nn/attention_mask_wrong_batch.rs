// A key-padding mask made for a batch of 3, applied to a batch of 2.
use shaped::autograd::Var;
use shaped::nn::{scaled_dot_product_attention, KeyPadding};
use shaped::{Shape, Tensor};

fn main() {
    let q = Var::constant(Tensor::<f32, Shape![2, 12, 5, 32]>::zeros());
    let mask = Tensor::<bool, Shape![3, 5]>::from_vec(vec![true; 15]);
    let _ = scaled_dot_product_attention(&q, &q, &q, &KeyPadding(&mask));
}
