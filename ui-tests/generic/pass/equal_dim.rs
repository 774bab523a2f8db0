// `B: EqualDim<C>` states that two generic sizes are equal: they broadcast
// (the result keeps `B`), meet as a product's batch and inner sizes, and
// every caller's sizes are checked where it names them. Twin:
// equal_dim_mismatch.rs.
use shaped::{Dim, Dyn, EqualDim, Shape, Tensor};

fn add_rows<B: EqualDim<C>, C: Dim>(
    x: &Tensor<f32, Shape![B, 3]>,
    y: &Tensor<f32, Shape![C, 3]>,
) -> Tensor<f32, Shape![B, 3]> {
    x + y
}

fn batched<B: EqualDim<C>, C: Dim, K: EqualDim<L>, L: Dim>(
    x: &Tensor<f32, Shape![B, 2, K]>,
    y: &Tensor<f32, Shape![C, L, 4]>,
) -> Tensor<f32, Shape![B, 2, 4]> {
    x.matmul(y)
}

fn main() {
    let x = Tensor::<f32, Shape![4, 3]>::ones();
    assert_eq!(add_rows(&x, &x).to_vec(), vec![2.0; 12]);
    // A static size with a `Dyn` one: checked at run time.
    let d = Tensor::<f32, Shape![Dyn, 3]>::try_ones(&[4, 3]).unwrap();
    assert_eq!(add_rows(&x, &d).dims(), &[4, 3]);
    let a = Tensor::<f32, Shape![5, 2, 3]>::ones();
    let b = Tensor::<f32, Shape![5, 3, 4]>::ones();
    assert_eq!(batched(&a, &b).to_vec(), vec![3.0; 40]);
}
