//! The fine-tuned model: all-MiniLM-L6-v2 and a linear head on its
//! mean-pooled embedding (shared by the example and examples/bench_finetune).

use std::path::Path;

use shaped::autograd::Var;
use shaped::nn::{Linear, Parameters};
use shaped::{Const, Dyn, Tensor};

use crate::bert::{self, Bert, Hidden};

/// Positive or negative.
pub type Classes = Const<2>;

/// The encoder and its classification head.
#[derive(Parameters)]
pub struct Classifier {
    pub bert: Bert,
    pub head: Linear<Hidden, Classes>,
}

impl Classifier {
    /// Class logits `(B, 2)` of token ids `(B, T)` with mask `(B, T)`.
    pub fn forward(
        &self,
        ids: &Tensor<i64, (Dyn, Dyn)>,
        mask: &Tensor<bool, (Dyn, Dyn)>,
    ) -> Var<f32, (Dyn, Classes)> {
        let hidden = self.bert.forward(ids, mask);
        self.head.forward(&bert::mean_pool(&hidden, mask))
    }
}

/// The checkpoint in `dir` with head `head`.
pub fn load(dir: &Path, head: Linear<Hidden, Classes>) -> Result<Classifier, String> {
    let bert = Bert::load(&dir.join("model.safetensors")).map_err(|e| {
        format!(
            "{e}\n(no model in {}? run scripts/fetch_minilm.sh)",
            dir.display()
        )
    })?;
    Ok(Classifier { bert, head })
}
