// Twin of mm_not_a_matrix.rs: two matrices.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 3]>::zeros();
    let b = Tensor::<f32, Shape![3, 5]>::zeros();
    let c: Tensor<f32, Shape![2, 5]> = a.mm(&b);
    assert_eq!(c.dims(), &[2, 5]);
}
