// addmm's input (3,) does not broadcast to the (2, 5) product.
// Twin: pass/addend_broadcast.rs.
use shaped::{Shape, Tensor};

fn main() {
    let c = Tensor::<f32, Shape![3]>::zeros();
    let a = Tensor::<f32, Shape![2, 4]>::zeros();
    let b = Tensor::<f32, Shape![4, 5]>::zeros();
    let _ = c.addmm(&a, &b, 1.0, 1.0);
}
