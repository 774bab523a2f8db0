// Twin of cross_not_three.rs: 3-vectors, batches broadcast.
use shaped::{Shape, Tensor, linalg};

fn main() {
    let a = Tensor::<f64, Shape![2, 1, 3]>::zeros();
    let b = Tensor::<f64, Shape![1, 4, 3]>::zeros();
    let _: Tensor<f64, Shape![2, 4, 3]> = linalg::cross(&a, &b);
}
