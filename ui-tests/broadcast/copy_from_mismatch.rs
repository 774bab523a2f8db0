// copy_from and the other in-place methods (masked_fill_, addcmul_, ...)
// follow `a += b`: the source (4,) does not expand to the target (2, 3).
// Twin: pass/copy_from_expands.rs.
use shaped::{Shape, Tensor};

fn main() {
    let mut x = Tensor::<f32, Shape![2, 3]>::zeros();
    let y = Tensor::<f32, Shape![4]>::zeros();
    x.copy_from(&y);
}
