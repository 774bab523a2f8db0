// addmm_ writes (2, 4) @ (4, 5), a (2, 5) product, into a (2, 3) input.
// Twin: pass/inplace_right_shape.rs.
use shaped::{Shape, Tensor};

fn main() {
    let mut c = Tensor::<f32, Shape![2, 3]>::zeros();
    let a = Tensor::<f32, Shape![2, 4]>::zeros();
    let b = Tensor::<f32, Shape![4, 5]>::zeros();
    c.addmm_(&a, &b, 1.0, 1.0);
}
