// Twin of batch_mismatch.rs, seed 002's example: (2, 5, 7) @ (5, 2, 7, 3)
// -> (5, 2, 5, 3).
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 5, 7]>::zeros();
    let b = Tensor::<f32, Shape![5, 2, 7, 3]>::zeros();
    let c: Tensor<f32, Shape![5, 2, 5, 3]> = a.matmul(&b);
    assert_eq!(c.dims(), &[5, 2, 5, 3]);
}
