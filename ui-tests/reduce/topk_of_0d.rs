// `topk` (and `multinomial`) need a last axis; a static 0-d tensor has none: one
// error, naming the unmet rule `(): SetLastAxis<Dyn>` (rustc's E0599 wording).
use shaped::{Shape, Tensor};

fn main() {
    let t = Tensor::<f32, Shape![]>::zeros();
    let _ = t.topk(1);
}
