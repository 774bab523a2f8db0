// bmm does not broadcast: batches of 4 and 1 differ.
// Twin: pass/bmm_same_batch.rs.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![4, 2, 3]>::zeros();
    let b = Tensor::<f32, Shape![1, 3, 5]>::zeros();
    let _ = a.bmm(&b);
}
