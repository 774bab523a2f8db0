use shaped::{DynRank, Shape, Tensor};

fn main() {
    let a: Tensor<f32, Shape![2, 3]> = vec![0.0f32; 6].try_into().unwrap();
    let b = Tensor::<f32, Shape![2, 3]>::from_vec(vec![0.0; 6]);
    let c: Tensor<f32, Shape![_]> = vec![0.0f32; 6].into();
    let d: Tensor<f32, DynRank> = vec![0.0f32; 6].into();
    let e = Tensor::<f32, Shape![1, 3]>::from([[1., 2., 3.]]);
    assert_eq!(a, b);
    assert_eq!(c, d);
    assert_eq!(e.dims(), &[1, 3]);
}
