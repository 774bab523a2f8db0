// (2, 5, 7) @ (3, 7, 4): the batch sizes 2 and 3 do not broadcast.
// Twin: pass/batch_broadcast.rs.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 5, 7]>::zeros();
    let b = Tensor::<f32, Shape![3, 7, 4]>::zeros();
    let _ = a.matmul(&b);
}
