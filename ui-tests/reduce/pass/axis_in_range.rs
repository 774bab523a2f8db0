// The compiling twin of `../axis_out_of_range.rs`: axis 2 exists.
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![4, 3, 5]>::zeros();
    let s: Tensor<f32, Shape![4, 3]> = t.sum_dim::<2>();
    let k: Tensor<f32, Shape![4, 3, 1]> = t.sum_dim_keepdim::<2>();
    assert_eq!(s.dims(), &[4, 3]);
    assert_eq!(k.dims(), &[4, 3, 1]);
}
