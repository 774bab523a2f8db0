// Static shapes go up to rank 12; this repeat gives 13 sizes.
use shaped::tensor;

fn main() {
    let _t = tensor![0.0; 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2];
}
