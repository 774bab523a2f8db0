// Adding an f64 tensor to an f32 tensor: element types do not convert
// implicitly. Twin: pass/views.rs.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![3]>::zeros();
    let b = Tensor::<f64, Shape![3]>::zeros();
    let _ = &a + &b;
}
