// A 2x2 literal and a 3-vector do not broadcast: the trailing sizes 2 and 3
// differ and neither is 1.
use shaped::{tensor, BroadcastShape, Tensor};

fn needs_broadcast<A: BroadcastShape<B>, B: shaped::shape::Shape>(
    _: &Tensor<f64, A>,
    _: &Tensor<f64, B>,
) {
}

fn main() {
    needs_broadcast(&tensor![[1., 2.], [3., 4.]], &tensor![1., 2., 3.]);
}
