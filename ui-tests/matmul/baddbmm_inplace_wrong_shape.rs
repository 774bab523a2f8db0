// baddbmm_ writes (3, 2, 4) @ (3, 4, 5), a (3, 2, 5) product, into a
// (3, 2, 6) input. Twin: pass/baddbmm_inplace_right_shape.rs.
use shaped::{Shape, Tensor};

fn main() {
    let mut c = Tensor::<f32, Shape![3, 2, 6]>::zeros();
    let a = Tensor::<f32, Shape![3, 2, 4]>::zeros();
    let b = Tensor::<f32, Shape![3, 4, 5]>::zeros();
    c.baddbmm_(&a, &b, 1.0, 1.0);
}
