// A `Vec`'s length is known only at run time, so a static shape is not
// `From` a `Vec` (a `From` must not fail): `try_into` or `from_vec`.
use shaped::{Shape, Tensor};

fn main() {
    let _t: Tensor<f32, Shape![2, 3]> = vec![0.0f32; 6].into();
}
