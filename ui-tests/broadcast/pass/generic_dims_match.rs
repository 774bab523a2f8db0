// Twin of generic_dims_mismatch.rs: (B, 3) + (3,) gives (B, 3) for every B.
use shaped::{Dim, Dyn, Shape, Tensor};

fn add_bias<B: Dim>(x: &Tensor<f32, Shape![B, 3]>, bias: &Tensor<f32, Shape![3]>) -> Tensor<f32, Shape![B, 3]> {
    x + bias
}

fn main() {
    let x = Tensor::<f32, Shape![_, 3]>::try_zeros(&[5, 3]).unwrap();
    let bias = Tensor::<f32, Shape![3]>::ones();
    let y: Tensor<f32, (Dyn, shaped::Const<3>)> = add_bias(&x, &bias);
    assert_eq!(y.dims(), &[5, 3]);
}
