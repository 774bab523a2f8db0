use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![3, 1]>::zeros();
    let s: Tensor<f32, Shape![3]> = t.squeeze::<1>().unwrap();
    let u: Tensor<f32, Shape![1, 3]> = t.transpose::<0, 1>();
    let b: Tensor<f32, Shape![2, 3]> = s.broadcast_to();
    let r: Tensor<f32, Shape![3, 2]> = b.reshape();
    let c = &r + &Tensor::<f32, Shape![3, 2]>::zeros();
    assert_eq!((u.dims(), c.dims()), (&[1, 3][..], &[3, 2][..]));
}
