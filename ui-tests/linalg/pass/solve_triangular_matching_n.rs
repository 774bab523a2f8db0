// Twin of solve_triangular_mismatched_n.rs: the sizes match, and the result
// keeps the static shape (.., n, k).
use shaped::{Shape, Tensor, linalg};

fn main() {
    let a = Tensor::<f64, Shape![2, 3, 3]>::zeros();
    let b = Tensor::<f64, Shape![3, 2]>::zeros();
    let tri = linalg::Triangle { upper: true, unit: false };
    let _: Tensor<f64, Shape![2, 3, 2]> = linalg::solve_triangular(&a, &b, tri);
    let c = Tensor::<f64, Shape![5, 3]>::zeros();
    let _: Tensor<f64, Shape![2, 5, 3]> = linalg::solve_triangular_right(&a, &c, tri);
}
