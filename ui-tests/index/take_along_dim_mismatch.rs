// `take_along_dim` broadcasts the input and the indices on every axis but
// the one it takes along (PyTorch's rule): here axis 1 is 3 against 5.
// Twin: pass/take_along_dim_broadcast.rs.
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![2, 3]>::zeros();
    let i = Tensor::<i64, Shape![4, 5]>::zeros();
    let _ = t.take_along_dim::<0, _>(&i);
}
