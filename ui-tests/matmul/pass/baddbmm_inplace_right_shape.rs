// Twin of baddbmm_inplace_wrong_shape.rs: the input has the product's shape
// (3, 2, 5).
use shaped::{Shape, Tensor};

fn main() {
    let mut c = Tensor::<f32, Shape![3, 2, 5]>::zeros();
    let a = Tensor::<f32, Shape![3, 2, 4]>::ones();
    let b = Tensor::<f32, Shape![3, 4, 5]>::ones();
    c.baddbmm_(&a, &b, 1.0, 1.0);
    assert_eq!(c.to_vec(), vec![4.0; 30]);
}
