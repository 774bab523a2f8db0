// The twin of `../float_index.rs`: the same gather with `i64` indices
// compiles (and `i32` too).
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![2, 3]>::zeros();
    let idx = Tensor::<i64, Shape![2, 1]>::zeros();
    let g: Tensor<f32, Shape![2, 1]> = t.gather(1, &idx);
    assert_eq!(g.to_vec(), vec![0.0, 0.0]);
    let idx32 = Tensor::<i32, Shape![2, 1]>::zeros();
    assert_eq!(t.gather(1, &idx32).dims(), &[2, 1]);
}
