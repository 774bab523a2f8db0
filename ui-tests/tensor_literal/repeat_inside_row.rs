// `value; size` repeats only as the whole literal.
use shaped::tensor;

fn main() {
    let _t = tensor![[0.0; 3], [1., 2., 3.]];
}
