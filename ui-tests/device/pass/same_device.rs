// Tensors on the same device combine; a CUDA tensor type can be named in
// every build (creating one needs the `cuda` feature and a GPU).
use shaped::device::{Cpu, Cuda, Device};
use shaped::{Shape, Tensor};

fn add(a: &Tensor<f32, Shape![2, 3], Cpu>, b: &Tensor<f32, Shape![3]>) -> Tensor<f32, Shape![2, 3]> {
    a + b
}

fn keep(_: Option<Tensor<f32, Shape![2, 3], Cuda>>) {}

fn main() {
    let a = Tensor::<f32, Shape![2, 3]>::ones();
    let b = Tensor::<f32, Shape![3]>::ones();
    assert_eq!(add(&a, &b).to_vec(), vec![2.0; 6]);
    keep(None);
    assert_eq!(Cuda::NAME, "cuda");
}
