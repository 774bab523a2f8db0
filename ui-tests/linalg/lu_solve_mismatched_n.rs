// `lu_solve` with LU factors of 3 by 3 matrices and B with 4 rows: n must
// match. Twin: pass/solve_matching_n.rs.
use shaped::{Shape, Tensor, linalg};

fn main() {
    let (lu, pivots) = linalg::lu_factor(&Tensor::<f64, Shape![3, 3]>::from_vec(vec![1., 0., 0., 0., 1., 0., 0., 0., 1.]));
    let b = Tensor::<f64, Shape![4, 2]>::zeros();
    let _ = linalg::lu_solve(&lu, &pivots, &b);
}
