// A literal's static shape takes part in broadcasting: (2, 2) + (3,) fails
// on the sizes 2 and 3, and rustc's note names both shapes.
use shaped::tensor;

fn main() {
    let _ = &tensor![[1., 2.], [3., 4.]] + &tensor![1., 2., 3.];
}
