// A three-operand op with an operand of another element type is one error
// that names both types. Twin: pass/views.rs (same types).
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![3]>::zeros();
    let b = Tensor::<f64, Shape![3]>::zeros();
    let _ = a.lerp(&a, &b);
}
