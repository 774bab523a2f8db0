// In place, the other operand may not have more dimensions than the tensor
// written into: x (3,) += y (2, 3) would make x (2, 3).
// Twin: pass/inplace_lower_rank.rs.
use shaped::{Shape, Tensor};

fn main() {
    let mut x = Tensor::<f32, Shape![3]>::zeros();
    let y = Tensor::<f32, Shape![2, 3]>::zeros();
    x.add_(&y);
}
