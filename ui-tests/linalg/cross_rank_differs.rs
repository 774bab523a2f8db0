// `cross` of a (2, 3) and a (3,) tensor: PyTorch's linalg.cross wants equal
// ranks. Twin: pass/cross_three.rs.
use shaped::{Shape, Tensor, linalg};

fn main() {
    let a = Tensor::<f64, Shape![2, 3]>::zeros();
    let b = Tensor::<f64, Shape![3]>::zeros();
    let _ = linalg::cross(&a, &b);
}
