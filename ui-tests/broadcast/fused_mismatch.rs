// A fused chain checks each operation's broadcast where the expression is
// built: (2, 3) and (4,) do not broadcast. Twin: pass/fused_match.rs.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 3]>::ones();
    let b = Tensor::<f32, Shape![4]>::ones();
    let c = Tensor::<f32, Shape![2, 1]>::ones();
    let _ = (a.lazy() + &c) * &b;
}
