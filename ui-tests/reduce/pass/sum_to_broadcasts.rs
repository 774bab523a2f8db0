// The compiling twin of `../sum_to_not_broadcast.rs`: (3,) and (2, 1)
// broadcast to (2, 3).
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![2, 3]>::ones();
    let a: Tensor<f32, Shape![3]> = t.sum_to();
    let b: Tensor<f32, Shape![2, 1]> = t.sum_to();
    assert_eq!(a.to_vec(), vec![2.0; 3]);
    assert_eq!(b.to_vec(), vec![3.0; 2]);
}
