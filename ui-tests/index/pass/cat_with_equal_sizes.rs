use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 4]>::zeros();
    let b = Tensor::<f32, Shape![5, 4]>::zeros();
    let c: Tensor<f32, Shape![_, 4]> = a.cat_with::<0, _>(&b);
    assert_eq!(c.dims(), &[7, 4]);
}
