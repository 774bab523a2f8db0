// The second row is shorter than the first.
use shaped::tensor;

fn main() {
    let _t = tensor![[1., 2.], [3.]];
}
