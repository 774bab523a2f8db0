// cat_with does not broadcast: (2, 1) and (5, 4) joined along axis 0 have
// 1 and 4 away from the axis. Twin: pass/cat_with_equal_sizes.rs.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 1]>::zeros();
    let b = Tensor::<f32, Shape![5, 4]>::zeros();
    let _ = a.cat_with::<0, _>(&b);
}
