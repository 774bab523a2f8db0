// The contracted sizes of a product do not broadcast: (2, 1) @ (4, 3) has
// 1 and 4, which is an error although one of them is 1.
// Twin: pass/contracted_match.rs.
use shaped::{Shape, Tensor};

fn main() {
    let a = Tensor::<f32, Shape![2, 1]>::zeros();
    let b = Tensor::<f32, Shape![4, 3]>::zeros();
    let _ = a.matmul(&b);
}
