// Indexing more axes than a static shape has is a compile error naming the
// axis and the shape.
use shaped::{Shape, Tensor, index};

fn main() {
    let t = Tensor::<f32, Shape![2, 3]>::zeros();
    let _ = index!(t, 0, 1, 0);
}
