// An array variable is an element, not a row: only brackets make rows.
use shaped::tensor;

fn main() {
    let second = [3., 4.];
    let _t = tensor![[1., 2.], second];
}
