// reshape (2, 3) -> (4, 2): 6 elements do not make 8. A build-time error
// (`cargo build`), whose first line names both counts. Twin: pass/views.rs.
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![2, 3]>::zeros();
    let _: Tensor<f32, Shape![4, 2]> = t.reshape();
}
