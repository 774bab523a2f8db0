// where_cond with a condition of 2 rows and values of 3: one error.
// Twin: pass/seed_match.rs.
use shaped::{Shape, Tensor, where_cond};

fn main() {
    let c = Tensor::<bool, Shape![2, 1]>::zeros();
    let x = Tensor::<f32, Shape![3, 4]>::zeros();
    let _ = where_cond(&c, &x, &x);
}
