// `take_along_dim` broadcasts the input and the indices on every axis but
// the one it takes along: a size-1 index axis (`One`) takes the input's.
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![2, 3]>::from_vec(vec![0., 1., 2., 3., 4., 5.]);
    let i = Tensor::<i64, Shape![4, 1]>::from_vec(vec![1, 0, 1, 0]);
    let r: Tensor<f32, Shape![4, 3]> = t.take_along_dim::<0, _>(&i);
    assert_eq!(r.to_vec(), vec![3., 4., 5., 0., 1., 2., 3., 4., 5., 0., 1., 2.]);
}
