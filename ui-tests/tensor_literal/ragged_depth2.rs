// A row two brackets deep is shorter than the first row at that depth.
use shaped::tensor;

fn main() {
    let _t = tensor![
        [[1., 2.], [3., 4.]],
        [[5., 6.], [7.]],
    ];
}
