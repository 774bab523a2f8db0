// Twin of bmm_batch_mismatch.rs: batches of 4 and 4.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![4, 2, 3]>::zeros();
    let b = Tensor::<f32, Shape![4, 3, 5]>::zeros();
    let c: Tensor<f32, Shape![4, 2, 5]> = a.bmm(&b);
    assert_eq!(c.dims(), &[4, 2, 5]);
}
