// Twin of inplace_mismatch.rs: (5,3,4,1) += (3,1,1) keeps x's shape.
use shaped::{Shape, Tensor};

fn main() {
    let mut x = Tensor::<f32, Shape![5, 3, 4, 1]>::zeros();
    let y = Tensor::<f32, Shape![3, 1, 1]>::ones();
    x += &y;
    assert_eq!(x.dims(), &[5, 3, 4, 1]);
}
