// The twins of the tensor-literal cases: literals that compile, with the
// shapes their bindings and operations expect.
use shaped::{tensor, Shape, Tensor};

fn main() {
    // The binding states the literal's own shape, 2x3.
    let t: Tensor<f64, Shape![2, 3]> = tensor![[1., 2., 3.], [4., 5., 6.]];
    // (2, 2) + (2,) broadcasts; (2, 2) + (2, 1) too.
    let a = tensor![[1., 2.], [3., 4.]];
    let _: Tensor<f64, Shape![2, 2]> = &a + &tensor![1., 2.];
    let _: Tensor<f64, Shape![2, 2]> = &a + &tensor![[1.], [2.]];
    // An array variable's values, spelled out as a row.
    let second = [3., 4.];
    let _ = tensor![[1., 2.], [second[0], second[1]]];
    // Rows of one depth and one length, two brackets deep.
    let _: Tensor<f64, Shape![2, 2, 2]> = tensor![[[1., 2.], [3., 4.]], [[5., 6.], [7., 8.]]];
    // `value; sizes` as the whole literal, up to rank 12.
    let _: Tensor<f64, Shape![2, 3]> = tensor![0.0; 2, 3];
    let _ = tensor![0.0; 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1];
    let _ = tensor![[[[[[[[[[[[1., 2.]]]]]]]]]]]];
    let _ = t;
}
