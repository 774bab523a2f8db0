// Twin of rank8_mismatch.rs: rank 8 with a 1 against the 3.
use shaped::{Shape, Tensor};

fn main() {
    let x = Tensor::<f32, Shape![2, 1, 1, 1, 1, 1, 1, 1]>::zeros();
    let y = Tensor::<f32, Shape![1, 1, 1, 1, 1, 1, 1, 3]>::zeros();
    let z: Tensor<f32, Shape![2, 1, 1, 1, 1, 1, 1, 3]> = &x * &y;
    assert_eq!(z.numel(), 6);
}
