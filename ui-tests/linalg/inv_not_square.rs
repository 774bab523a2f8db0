// `inv` of a batch of 2 by 3 matrices: not square, a compile error naming
// the shape. Twin: pass/inv_square.rs.
use shaped::{Shape, Tensor, linalg};

fn main() {
    let a = Tensor::<f64, Shape![4, 2, 3]>::zeros();
    let _ = linalg::inv(&a);
}
