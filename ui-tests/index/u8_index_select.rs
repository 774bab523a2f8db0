// A `u8` tensor is not an index either (PyTorch once read it as a mask):
// `index_select` refuses it at compile time.
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![3, 2]>::zeros();
    let idx = Tensor::<u8, Shape![2]>::from_vec(vec![0, 2]);
    let _ = t.index_select::<0, _>(&idx);
}
