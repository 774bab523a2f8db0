// Static shapes go up to rank 12; this literal has 13 dimensions.
use shaped::tensor;

fn main() {
    let _t = tensor![[[[[[[[[[[[[1., 2.]]]]]]]]]]]]];
}
