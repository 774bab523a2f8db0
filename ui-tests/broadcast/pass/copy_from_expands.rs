// Twin of copy_from_mismatch.rs: a source (3,) expands to the target (2, 3).
use shaped::{Shape, Tensor};

fn main() {
    let mut x = Tensor::<f32, Shape![2, 3]>::zeros();
    let y = Tensor::<f32, Shape![3]>::from_vec(vec![1.0, 2.0, 3.0]);
    x.copy_from(&y);
    assert_eq!(x.to_vec(), vec![1.0, 2.0, 3.0, 1.0, 2.0, 3.0]);
}
