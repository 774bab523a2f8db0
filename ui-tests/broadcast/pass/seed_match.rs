// Twin of seed_mismatch.rs: (5,1,4,1) + (3,1,1) -> (5,3,4,1).
use shaped::{Shape, Tensor};

fn main() {
    let x = Tensor::<f32, Shape![5, 1, 4, 1]>::zeros();
    let y = Tensor::<f32, Shape![3, 1, 1]>::zeros();
    let z: Tensor<f32, Shape![5, 3, 4, 1]> = &x + &y;
    assert_eq!(z.dims(), &[5, 3, 4, 1]);
}
