// Twin of lstsq_unbatched_a_batched_b.rs: A and B of the same rank, the
// batches broadcast; a vector b has A's batch.
use shaped::{Shape, Tensor, linalg};

fn main() {
    let a = Tensor::<f64, Shape![1, 3, 2]>::from_vec(vec![1., 0., 0., 1., 0., 0.]);
    let b = Tensor::<f64, Shape![4, 3, 1]>::zeros();
    let _: Tensor<f64, Shape![4, 2, 1]> = linalg::lstsq(&a, &b).solution;
    let v = Tensor::<f64, Shape![1, 3]>::zeros();
    let _: Tensor<f64, Shape![1, 2]> = linalg::lstsq_vec(&a, &v).solution;
}
