// An index tensor must hold integers: gathering with `f32` indices is a
// compile error that says which element types an index may hold.
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![2, 3]>::zeros();
    let idx = Tensor::<f32, Shape![2, 1]>::zeros();
    let _ = t.gather(1, &idx);
}
