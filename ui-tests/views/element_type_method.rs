// The method form of `element_type`: `a.add(&b)` with `a` of `f32` and `b`
// of `f64` elements. Twin: pass/views.rs.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![3]>::zeros();
    let b = Tensor::<f64, Shape![3]>::zeros();
    let _ = a.add(&b);
}
