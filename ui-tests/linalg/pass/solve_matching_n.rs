// Twin of solve_mismatched_n.rs: n matches, and the batches broadcast.
use shaped::{Shape, Tensor, linalg};

fn main() {
    let eye = vec![1., 0., 0., 0., 1., 0., 0., 0., 1.];
    let a = Tensor::<f64, Shape![1, 1, 3, 3]>::from_vec(eye);
    let b = Tensor::<f64, Shape![5, 3, 2]>::zeros();
    let x: Tensor<f64, Shape![1, 5, 3, 2]> = linalg::solve(&a, &b);
    assert_eq!(x.to_vec(), vec![0.; 30]);
}
