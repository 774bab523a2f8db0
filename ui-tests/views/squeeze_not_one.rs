// squeeze::<0> of a size-3 dimension. Twin: pass/views.rs.
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![3, 1]>::zeros();
    let _ = t.squeeze::<0>();
}
