// The masks that fit: none, causal, key padding (B, K), and a boolean
// mask that broadcasts to the scores, with run-time batch and lengths.
use shaped::autograd::Var;
use shaped::nn::{scaled_dot_product_attention, Causal, KeyPadding, NoMask};
use shaped::{Const, Dyn, One, Shape, Tensor};

fn main() {
    type Heads = (Dyn, Const<12>, Dyn, Const<32>);
    let q: Var<f32, Heads> = Var::constant(Tensor::try_zeros(&[2, 12, 5, 32]).unwrap());
    let pad = Tensor::<bool, (Dyn, Dyn)>::try_full(&[2, 5], true).unwrap();
    let full = Tensor::<bool, (Dyn, One, One, Dyn)>::try_full(&[2, 1, 1, 5], true).unwrap();
    let a: Var<f32, Heads> = scaled_dot_product_attention(&q, &q, &q, &NoMask);
    let b: Var<f32, Heads> = scaled_dot_product_attention(&q, &q, &q, &Causal);
    let c: Var<f32, Heads> = scaled_dot_product_attention(&q, &q, &q, &KeyPadding(&pad));
    let d: Var<f32, Heads> = scaled_dot_product_attention(&q, &q, &q, &&full);
    let _ = (a, b, c, d, Tensor::<bool, Shape![5, 5]>::from_vec(vec![true; 25]));
}

// A model width split into heads and merged back, static sizes checked.
#[allow(dead_code)]
fn heads(x: &Var<f32, (Dyn, Dyn, Const<384>)>) -> Var<f32, (Dyn, Dyn, Const<384>)> {
    let h: Var<f32, (Dyn, Const<12>, Dyn, Const<32>)> = shaped::nn::split_heads(x);
    shaped::nn::merge_heads(&h)
}
