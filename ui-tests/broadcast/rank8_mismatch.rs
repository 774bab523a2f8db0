// Rank 8: the last dimensions, 2 and 3, do not broadcast.
// Twin: pass/rank8_match.rs.
use shaped::{Shape, Tensor};

fn main() {
    let x = Tensor::<f32, Shape![1, 1, 1, 1, 1, 1, 1, 2]>::zeros();
    let y = Tensor::<f32, Shape![1, 1, 1, 1, 1, 1, 1, 3]>::zeros();
    let _ = &x * &y;
}
