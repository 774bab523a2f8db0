// Twin of addend_mismatch.rs: a (5,) input broadcasts to the (2, 5) product.
use shaped::{Shape, Tensor};

fn main() {
    let c = Tensor::<f32, Shape![5]>::ones();
    let a = Tensor::<f32, Shape![2, 4]>::ones();
    let b = Tensor::<f32, Shape![4, 5]>::ones();
    let y: Tensor<f32, Shape![2, 5]> = c.addmm(&a, &b, 1.0, 1.0);
    assert_eq!(y.to_vec(), vec![5.0; 10]);
}
