// Twin of fused_mismatch.rs: (2, 3), (3,) and (2, 1) broadcast, and the
// chain's type is the eager result's.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 3]>::ones();
    let b = Tensor::<f32, Shape![3]>::ones();
    let c = Tensor::<f32, Shape![2, 1]>::ones();
    let r: Tensor<f32, Shape![2, 3]> = ((a.lazy() + &c) * &b).relu().eval();
    assert_eq!(r.to_vec(), vec![2.0; 6]);
}
