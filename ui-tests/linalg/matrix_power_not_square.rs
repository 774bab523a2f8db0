// `matrix_power` of 2 by 3 matrices: they must be square. Twin:
// pass/matrix_power_square.rs.
use shaped::{Shape, Tensor, linalg};

fn main() {
    let a = Tensor::<f64, Shape![2, 3]>::zeros();
    let _ = linalg::matrix_power(&a, 2);
}
