// Seed 002: (5,2,4,1) and (3,1,1) do not broadcast: 2 != 3 in the third
// trailing dimension. Twin: pass/seed_match.rs.
use shaped::{Shape, Tensor};

fn main() {
    let x = Tensor::<f32, Shape![5, 2, 4, 1]>::zeros();
    let y = Tensor::<f32, Shape![3, 1, 1]>::zeros();
    let _ = &x + &y;
}
