// Seed 002's in-place case: x (1,3,1) cannot take y (3,1,7) in place, since
// x's shape would have to change. Twin: pass/inplace_match.rs.
use shaped::{Shape, Tensor};

fn main() {
    let mut x = Tensor::<f32, Shape![1, 3, 1]>::zeros();
    let y = Tensor::<f32, Shape![3, 1, 7]>::zeros();
    x += &y;
}
