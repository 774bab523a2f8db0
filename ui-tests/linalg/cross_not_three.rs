// `cross` of vectors of length 4: the last dimension must be 3. Twin:
// pass/cross_three.rs.
use shaped::{Shape, Tensor, linalg};

fn main() {
    let a = Tensor::<f64, Shape![2, 4]>::zeros();
    let _ = linalg::cross(&a, &a);
}
