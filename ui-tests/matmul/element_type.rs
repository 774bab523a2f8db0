// A product of tensors of two element types is one error that names both
// types. Twin: pass/ (every product there has one element type).
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![3, 2]>::zeros();
    let b = Tensor::<f64, Shape![2, 4]>::zeros();
    let _ = a.matmul(&b);
}
