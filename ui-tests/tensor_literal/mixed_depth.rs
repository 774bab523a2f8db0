// A row sits where the first row holds elements.
use shaped::tensor;

fn main() {
    let _t = tensor![[1., [2.]], [3., 4.]];
}
