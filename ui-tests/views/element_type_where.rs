// `where_cond` with a second branch of another element type is one error
// that names both types. Twin: pass/views.rs (same types).
use shaped::{Shape, Tensor, where_cond};

fn main() {
    let c = Tensor::<bool, Shape![3]>::zeros();
    let x = Tensor::<f32, Shape![3]>::zeros();
    let y = Tensor::<f64, Shape![3]>::zeros();
    let _ = where_cond(&c, &x, &y);
}
