// The twin of `../u8_index_select.rs`: converting the indices to `i64`
// first compiles, and the result has the index's length on axis 0.
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![3, 2]>::zeros();
    let idx = Tensor::<u8, Shape![2]>::from_vec(vec![0, 2]).map(|x| x as i64);
    let r: Tensor<f32, Shape![2, 2]> = t.index_select::<0, _>(&idx);
    assert_eq!(r.dims(), &[2, 2]);
}
