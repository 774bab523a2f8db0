// Twin of inplace_higher_rank.rs: x (2, 3) += y (3,).
use shaped::{Shape, Tensor};

fn main() {
    let mut x = Tensor::<f32, Shape![2, 3]>::zeros();
    let y = Tensor::<f32, Shape![3]>::ones();
    x.add_(&y);
    assert_eq!(x.to_vec(), vec![1.0; 6]);
}
