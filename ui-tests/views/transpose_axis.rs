// transpose::<0, 2> of a 2-d tensor. Twin: pass/views.rs.
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![3, 4]>::zeros();
    let _ = t.transpose::<0, 2>();
}
