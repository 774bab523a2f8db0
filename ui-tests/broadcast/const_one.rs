// `Const<1>` is not a dimension: size 1 is `One`, the dimension that
// broadcasts. Twin: pass/one.rs.
use shaped::{Const, Tensor};

fn main() {
    let _ = Tensor::<f32, (Const<1>, Const<3>)>::zeros();
}
