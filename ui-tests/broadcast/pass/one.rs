// Twin of const_one.rs: size 1 written as `One` (or `1` in `Shape!`).
use shaped::{Const, One, Shape, Tensor};

fn main() {
    let a = Tensor::<f32, (One, Const<3>)>::zeros();
    let b = Tensor::<f32, Shape![2, 1]>::ones();
    let c: Tensor<f32, Shape![2, 3]> = &a + &b;
    assert_eq!(c.to_vec(), vec![1.0; 6]);
}
