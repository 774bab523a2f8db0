// The twin of `../too_many_indices.rs`: two entries for a rank-2 shape.
use shaped::{Shape, Tensor, index};

fn main() {
    let t = Tensor::<f32, Shape![2, 3]>::zeros();
    let x: Tensor<f32, Shape![]> = index!(t, 0, 1);
    assert_eq!(x.item(), 0.0);
}
