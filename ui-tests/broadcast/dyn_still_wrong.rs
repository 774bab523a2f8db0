// A run-time size does not rescue a static mismatch: whatever `_` is, the
// last dimensions 2 and 3 do not broadcast. Twin: pass/dyn_checked.rs.
use shaped::{Shape, Tensor};

fn main() {
    let x = Tensor::<f32, Shape![_, 2]>::try_zeros(&[4, 2]).unwrap();
    let y = Tensor::<f32, Shape![3]>::zeros();
    let _ = &x - &y;
}
