// broadcast_to: a size 3 does not expand to 4. Twin: pass/views.rs.
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![3]>::zeros();
    let _: Tensor<f32, Shape![2, 4]> = t.broadcast_to();
}
