// mm of (2, 3) by (4, 5): the contracted sizes 3 and 4 differ.
// Twin: pass/mm_matrices.rs.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 3]>::zeros();
    let b = Tensor::<f32, Shape![4, 5]>::zeros();
    let _ = a.mm(&b);
}
