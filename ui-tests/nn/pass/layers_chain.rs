// The twins of the failing cases: widths that fit, static and `Dyn` batches.
use shaped::autograd::Var;
use shaped::nn::Linear;
use shaped::{Const, Dyn, Shape, Tensor};

fn main() {
    let a: Linear<Const<4>, Const<8>> = Linear::new(0);
    let b: Linear<Const<8>, Const<2>> = Linear::new(1);
    let x = Var::constant(Tensor::<f32, Shape![3, 4]>::zeros());
    let _: Var<f32, Shape![3, 2]> = b.forward(&a.forward(&x));
    let d = Var::constant(Tensor::<f32, Shape![_, 4]>::try_zeros(&[7, 4]).unwrap());
    let _: Var<f32, (Dyn, Const<2>)> = b.forward(&a.forward(&d));
    layer_norms();
}

// Layer norms over the width they are given: static, a `Dyn` input width
// (checked at run time), and a layer of `Dyn` width on `Dyn` inputs.
fn layer_norms() {
    use shaped::nn::LayerNorm;
    let ln: LayerNorm<Const<8>> = LayerNorm::new();
    let x = Var::constant(Tensor::<f32, Shape![2, 5, 8]>::zeros());
    let _: Var<f32, Shape![2, 5, 8]> = ln.forward(&x);
    let d = Var::constant(Tensor::<f32, Shape![2, _]>::try_zeros(&[2, 8]).unwrap());
    let _ = ln.forward(&d);
    let dyn_ln = LayerNorm::from_tensors(
        Tensor::<f32, Shape![_]>::try_ones(&[8]).unwrap(),
        Tensor::<f32, Shape![_]>::try_zeros(&[8]).unwrap(),
    );
    let _ = dyn_ln.forward(&d);
}
