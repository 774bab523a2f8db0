// Twin of matrix_power_not_square.rs: the power keeps the shape (.., n, n).
use shaped::{Shape, Tensor, linalg};

fn main() {
    let a = Tensor::<f64, Shape![4, 3, 3]>::zeros();
    let _: Tensor<f64, Shape![4, 3, 3]> = linalg::matrix_power(&a, 2);
    let _: Tensor<f64, Shape![4, 3, 3]> = linalg::matrix_exp(&a);
}
