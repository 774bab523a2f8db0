// Twin of dyn_still_wrong.rs: `_` with 3 keeps the static 3 and is checked
// when the operation runs.
use shaped::{Shape, Tensor};

fn main() {
    let x = Tensor::<f32, Shape![4, _]>::try_zeros(&[4, 3]).unwrap();
    let y = Tensor::<f32, Shape![3]>::zeros();
    let z: Tensor<f32, Shape![4, 3]> = &x - &y;
    assert_eq!(z.dims(), &[4, 3]);
    let bad = Tensor::<f32, Shape![4, _]>::try_zeros(&[4, 5]).unwrap();
    assert!(bad.try_sub(&y).is_err());
}
