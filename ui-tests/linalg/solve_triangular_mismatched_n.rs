// `solve_triangular` with A of 3 by 3 matrices and B with 4 rows: n must
// match. Twin: pass/solve_triangular_matching_n.rs.
use shaped::{Shape, Tensor, linalg};

fn main() {
    let a = Tensor::<f64, Shape![3, 3]>::zeros();
    let b = Tensor::<f64, Shape![4, 2]>::zeros();
    let tri = linalg::Triangle { upper: true, unit: false };
    let _ = linalg::solve_triangular(&a, &b, tri);
}
