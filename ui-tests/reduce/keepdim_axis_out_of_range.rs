// The keepdim form checks the axis the same way.
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![2, 2]>::zeros();
    let _ = t.mean_dim_keepdim::<2>();
}
