// Reducing over an axis the shape does not have is a compile error that
// names the axis and the shape.
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![4, 3, 5]>::zeros();
    let _ = t.sum_dim::<3>();
}
