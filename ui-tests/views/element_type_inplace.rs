// In place, as in a new tensor: elements of another type are one error
// that names both types. Twin: pass/views.rs (same types).
use shaped::{Shape, Tensor};

fn main() {
    let mut a = Tensor::<f32, Shape![3]>::zeros();
    let b = Tensor::<f64, Shape![3]>::zeros();
    a.add_(&b);
}
