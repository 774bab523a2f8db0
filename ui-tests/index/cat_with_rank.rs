// cat_with joins tensors of one rank. Twin: pass/cat_with_equal_sizes.rs.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 4]>::zeros();
    let b = Tensor::<f32, Shape![4]>::zeros();
    let _ = a.cat_with::<0, _>(&b);
}
