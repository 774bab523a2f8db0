// `lstsq` of an unbatched A (3, 2) against a batched B (4, 3, 1): PyTorch
// refuses it ("input.dim() must be greater or equal to other.dim() ...").
// Twin: pass/lstsq_same_rank.rs.
use shaped::{Shape, Tensor, linalg};

fn main() {
    let a = Tensor::<f64, Shape![3, 2]>::zeros();
    let b = Tensor::<f64, Shape![4, 3, 1]>::zeros();
    let _ = linalg::lstsq(&a, &b);
}
