// mm takes matrices: a (4, 2, 3) batch is not one.
// Twin: pass/mm_matrices.rs.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![4, 2, 3]>::zeros();
    let b = Tensor::<f32, Shape![3, 5]>::zeros();
    let _ = a.mm(&b);
}
