// Twin of solve_mismatched_n.rs, solve_ex_mismatched_n.rs,
// lu_solve_mismatched_n.rs and cholesky_solve_mismatched_n.rs: n matches,
// and the batches broadcast.
use shaped::{Shape, Tensor, linalg};

fn main() {
    let eye = vec![1., 0., 0., 0., 1., 0., 0., 0., 1.];
    let a = Tensor::<f64, Shape![1, 1, 3, 3]>::from_vec(eye.clone());
    let b = Tensor::<f64, Shape![5, 3, 2]>::zeros();
    let x: Tensor<f64, Shape![1, 5, 3, 2]> = linalg::solve(&a, &b);
    assert_eq!(x.to_vec(), vec![0.; 30]);
    let (y, info): (Tensor<f64, Shape![1, 5, 3, 2]>, _) = linalg::solve_ex(&a, &b);
    assert_eq!((y.to_vec(), info.to_vec()), (vec![0.; 30], vec![0]));
    let i3 = Tensor::<f64, Shape![3, 3]>::from_vec(eye);
    let (lu, pivots) = linalg::lu_factor(&i3);
    let z: Tensor<f64, Shape![5, 3, 2]> = linalg::lu_solve(&lu, &pivots, &b);
    let w: Tensor<f64, Shape![5, 3, 2]> = linalg::cholesky_solve(&b, &i3);
    assert_eq!((z.to_vec(), w.to_vec()), (vec![0.; 30], vec![0.; 30]));
}
