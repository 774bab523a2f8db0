// Twin of inv_not_square.rs: square matrices, and a `Dyn` size checked at
// run time.
use shaped::{Shape, Tensor, linalg};

fn main() {
    let eye = vec![1., 0., 0., 0., 1., 0., 0., 0., 1.];
    let a = Tensor::<f64, Shape![1, 3, 3]>::from_vec(eye.clone());
    let _: Tensor<f64, Shape![1, 3, 3]> = linalg::inv(&a);
    let d = Tensor::<f64, Shape![1, 3, _]>::try_from_vec(eye, &[1, 3, 3]).unwrap();
    let _: Tensor<f64, Shape![1, 3, _]> = linalg::inv(&d);
}
