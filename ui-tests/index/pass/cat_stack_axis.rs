use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 4]>::zeros();
    let c: Tensor<f32, Shape![2, _]> = Tensor::cat::<1>(&[&a, &a]);
    let s: Tensor<f32, Shape![2, 4, _]> = Tensor::stack::<2>(&[&a, &a]);
    assert_eq!((c.dims(), s.dims()), (&[2, 8][..], &[2, 4, 2][..]));
}
