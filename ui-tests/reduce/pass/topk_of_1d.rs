// The compiling twin of `../topk_of_0d.rs`: a 1-d tensor has a last axis,
// which becomes `Dyn` (the run-time `k`).
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![1]>::zeros();
    let (v, i): (Tensor<f32, Shape![_]>, Tensor<i64, Shape![_]>) = t.topk(1);
    assert_eq!((v.dims(), i.dims()), (&[1][..], &[1][..]));
}
