// `cholesky_solve(B, L)` with L of 3 by 3 matrices and B with 4 rows: n
// must match. Twin: pass/solve_matching_n.rs.
use shaped::{Shape, Tensor, linalg};

fn main() {
    let b = Tensor::<f64, Shape![4, 2]>::zeros();
    let l = Tensor::<f64, Shape![3, 3]>::from_vec(vec![1., 0., 0., 0., 1., 0., 0., 0., 1.]);
    let _ = linalg::cholesky_solve(&b, &l);
}
