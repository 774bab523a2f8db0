// Token embeddings 64 wide fed to a layer norm over 32 features: the
// embedding's width is in its output type, so the mismatch is caught here.
use shaped::nn::{Embedding, LayerNorm};
use shaped::{Const, Shape, Tensor};

fn main() {
    let tokens: Embedding<Const<100>, Const<64>> = Embedding::new(0);
    let ln: LayerNorm<Const<32>> = LayerNorm::new();
    let ids = Tensor::<i64, Shape![2, 10]>::zeros();
    let _ = ln.forward(&tokens.forward(&ids));
}
