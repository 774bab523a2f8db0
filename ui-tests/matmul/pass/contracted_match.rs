// Twin of contracted_mismatch.rs: (2, 3) @ (3, 5) -> (2, 5).
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 3]>::zeros();
    let b = Tensor::<f32, Shape![3, 5]>::zeros();
    let c: Tensor<f32, Shape![2, 5]> = a.matmul(&b);
    assert_eq!(c.dims(), &[2, 5]);
    // Contracted sizes 1 and 1 (twin of contracted_one.rs).
    let d: Tensor<f32, Shape![2, 3]> = Tensor::<f32, Shape![2, 1]>::zeros().matmul(&Tensor::<f32, Shape![1, 3]>::zeros());
    assert_eq!(d.dims(), &[2, 3]);
}
