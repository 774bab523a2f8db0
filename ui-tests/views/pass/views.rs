use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![3, 1]>::zeros();
    let s: Tensor<f32, Shape![3]> = t.squeeze::<1>().unwrap();
    let u: Tensor<f32, Shape![1, 3]> = t.transpose::<0, 1>();
    let b: Tensor<f32, Shape![2, 3]> = s.broadcast_to();
    let r: Tensor<f32, Shape![3, 2]> = b.reshape();
    let c = &r + &Tensor::<f32, Shape![3, 2]>::zeros();
    // The right operand's element type is inferred from the left one's.
    let d = c.mul(&Tensor::<_, Shape![3, 2]>::ones()) - Tensor::<_, Shape![2]>::ones();
    let e: Tensor<f32, Shape![3, 2]> = d.add(&c.to_dtype::<f64>().to_dtype());
    assert_eq!((u.dims(), e.dims()), (&[1, 3][..], &[3, 2][..]));
}
