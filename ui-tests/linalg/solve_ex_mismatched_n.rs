// `solve_ex` with A of 3 by 3 matrices and B with 4 rows: n must match.
// Twin: pass/solve_matching_n.rs.
use shaped::{Shape, Tensor, linalg};

fn main() {
    let a = Tensor::<f64, Shape![2, 3, 3]>::zeros();
    let b = Tensor::<f64, Shape![4, 2]>::zeros();
    let _ = linalg::solve_ex(&a, &b);
}
