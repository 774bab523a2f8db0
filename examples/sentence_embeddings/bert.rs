//! A BERT encoder (all-MiniLM-L6-v2's configuration) written with static
//! feature sizes and run-time batch and sequence lengths: a projection of
//! the wrong width, a head split that does not match the model width, or a
//! mask of another batch size is a type error in this file.
//!
//! The field names are Hugging Face's (`encoder.layer.0.attention.self.
//! query.weight`): `#[param(rename = ...)]` gives the two that are not Rust
//! identifiers, so the checkpoint loads by name with every size checked.

use shaped::autograd::Var;
use shaped::io::safetensors::SafeTensorsFile;
use shaped::nn::{
    Dropout, Embedding, KeyPadding, LayerNorm, Linear, LoadOptions, Parameters, StateDictError,
    load_safetensors, merge_heads, scaled_dot_product_attention, split_heads,
};
use shaped::{Const, Dyn, Tensor};

/// The model width (`hidden_size`).
pub type Hidden = Const<384>;
/// Attention heads (`num_attention_heads`).
pub type Heads = Const<12>;
/// Features per head: `Hidden / Heads`.
pub type HeadDim = Const<32>;
/// The feed-forward width (`intermediate_size`).
pub type Ffn = Const<1536>;
/// The vocabulary (`vocab_size`).
pub type Vocab = Const<30522>;
/// Positions (`max_position_embeddings`).
pub type MaxPositions = Const<512>;
/// Token types (`type_vocab_size`).
pub type TokenTypes = Const<2>;
/// Encoder layers (`num_hidden_layers`).
pub const LAYERS: usize = 6;
/// `layer_norm_eps`.
const EPS: f32 = 1e-12;

/// Activations split into heads: `(batch, heads, tokens, head features)`.
pub type PerHead = Var<f32, (Dyn, Heads, Dyn, HeadDim)>;

/// Activations of a batch: `(batch, tokens, features)`.
pub type Activations<F = Hidden> = Var<f32, (Dyn, Dyn, F)>;

#[derive(Parameters)]
pub struct Embeddings {
    word_embeddings: Embedding<Vocab, Hidden>,
    position_embeddings: Embedding<MaxPositions, Hidden>,
    token_type_embeddings: Embedding<TokenTypes, Hidden>,
    #[param(rename = "LayerNorm")]
    layer_norm: LayerNorm<Hidden>,
}

#[derive(Parameters)]
pub struct SelfAttention {
    query: Linear<Hidden, Hidden>,
    key: Linear<Hidden, Hidden>,
    value: Linear<Hidden, Hidden>,
}

/// A projection followed by dropout (off here), the residual and LayerNorm.
#[derive(Parameters)]
pub struct AddNorm<I: shaped::Dim> {
    dense: Linear<I, Hidden>,
    #[param(rename = "LayerNorm")]
    layer_norm: LayerNorm<Hidden>,
}

#[derive(Parameters)]
pub struct Attention {
    #[param(rename = "self")]
    self_attention: SelfAttention,
    output: AddNorm<Hidden>,
}

#[derive(Parameters)]
pub struct Intermediate {
    dense: Linear<Hidden, Ffn>,
}

#[derive(Parameters)]
pub struct Layer {
    attention: Attention,
    intermediate: Intermediate,
    output: AddNorm<Ffn>,
}

#[derive(Parameters)]
pub struct Encoder {
    layer: Vec<Layer>,
}

/// `BertModel` without its pooler (sentence-transformers pools the last
/// hidden state itself).
#[derive(Parameters)]
pub struct Bert {
    embeddings: Embeddings,
    encoder: Encoder,
    /// `hidden_dropout_prob` (0.1): after the embeddings and after each
    /// projection back to the model width, in training mode only (the
    /// model starts in evaluation mode). The attention probabilities'
    /// dropout is not applied: `scaled_dot_product_attention` has no
    /// dropout yet.
    hidden_dropout: Dropout,
}

fn layer_norm() -> LayerNorm<Hidden> {
    LayerNorm {
        eps: EPS,
        ..LayerNorm::new()
    }
}

impl<I: shaped::Dim> AddNorm<I> {
    /// `LayerNorm(dropout(dense(x)) + residual)`.
    fn forward(
        &self,
        x: &Activations<I>,
        residual: &Activations,
        dropout: &Dropout,
    ) -> Activations {
        self.layer_norm
            .forward(&(&dropout.forward(&self.dense.forward_nd(x)) + residual))
    }
}

impl Bert {
    /// A model of zeros, to load weights into (drawing random ones first
    /// would only cost time).
    pub fn zeros() -> Self {
        fn linear<I: shaped::shape::FixedDim, O: shaped::shape::FixedDim>() -> Linear<I, O> {
            Linear::from_tensors(Tensor::zeros(), Some(Tensor::zeros()))
        }
        let layer = (0..LAYERS)
            .map(|_| Layer {
                attention: Attention {
                    self_attention: SelfAttention {
                        query: linear(),
                        key: linear(),
                        value: linear(),
                    },
                    output: AddNorm {
                        dense: linear(),
                        layer_norm: layer_norm(),
                    },
                },
                intermediate: Intermediate { dense: linear() },
                output: AddNorm {
                    dense: linear(),
                    layer_norm: layer_norm(),
                },
            })
            .collect();
        Bert {
            embeddings: Embeddings {
                word_embeddings: Embedding::from_tensor(Tensor::zeros()),
                position_embeddings: Embedding::from_tensor(Tensor::zeros()),
                token_type_embeddings: Embedding::from_tensor(Tensor::zeros()),
                layer_norm: layer_norm(),
            },
            encoder: Encoder { layer },
            hidden_dropout: {
                let mut d = Dropout::new(0.1, 0);
                d.eval();
                d
            },
        }
    }

    /// Training mode: hidden-state dropout with probability `p`, masks
    /// drawn from `seed` (`p = 0` for a run to compare with PyTorch's
    /// dropout-free one).
    #[allow(dead_code)] // used by the fine-tune, not by inference
    pub fn train(&mut self, p: f64, seed: u64) {
        self.hidden_dropout = Dropout::new(p, seed);
    }

    /// Evaluation mode: no dropout.
    #[allow(dead_code)]
    pub fn eval(&mut self) {
        self.hidden_dropout.eval();
    }

    /// The model with the weights of a Hugging Face `BertModel` checkpoint
    /// (`model.safetensors`), every name and size checked; the pooler and
    /// the `position_ids` buffer of the file are not used.
    pub fn load(path: &std::path::Path) -> Result<Self, Box<dyn std::error::Error>> {
        let model = Bert::zeros();
        let file = SafeTensorsFile::open(path)?;
        let options = LoadOptions::new()
            .ignore("pooler.")
            .ignore("embeddings.position_ids");
        load_safetensors(&model, &file, &options).map_err(|e: StateDictError| Box::new(e))?;
        Ok(model)
    }

    /// The first layer's attention LayerNorm scale (for tests that a failed
    /// load wrote nothing).
    #[cfg(test)]
    pub fn encoder_norm_weight(&self) -> Vec<f32> {
        self.encoder.layer[0]
            .attention
            .output
            .layer_norm
            .weight
            .value()
            .to_vec()
    }

    /// The last hidden state `(B, T, Hidden)` of token ids `(B, T)`, with
    /// `mask` `(B, T)` true for real tokens and false for padding.
    pub fn forward(
        &self,
        ids: &Tensor<i64, (Dyn, Dyn)>,
        mask: &Tensor<bool, (Dyn, Dyn)>,
    ) -> Activations {
        let t = ids.dims()[1];
        let positions = Tensor::<i64, (Dyn,)>::try_from_vec((0..t as i64).collect(), &[t])
            .expect("t positions");
        let types = Tensor::<i64, (Dyn,)>::try_zeros(&[t]).expect("t types");
        let e = &self.embeddings;
        let x = &(&e.word_embeddings.forward(ids) + &e.position_embeddings.forward(&positions))
            + &e.token_type_embeddings.forward(&types);
        let drop = &self.hidden_dropout;
        let mut x = drop.forward(&e.layer_norm.forward(&x));
        for layer in &self.encoder.layer {
            let a = &layer.attention.self_attention;
            // (B, T, 384) -> (B, 12, T, 32): 12 x 32 = 384 is checked by
            // the type checker.
            let (q, k, v): (PerHead, PerHead, PerHead) = (
                split_heads(&a.query.forward_nd(&x)),
                split_heads(&a.key.forward_nd(&x)),
                split_heads(&a.value.forward_nd(&x)),
            );
            let heads = scaled_dot_product_attention(&q, &k, &v, &KeyPadding(mask));
            let context = merge_heads(&heads);
            let h = layer.attention.output.forward(&context, &x, drop);
            let inner = layer.intermediate.dense.forward_nd(&h).gelu();
            x = layer.output.forward(&inner, &h, drop);
        }
        x
    }
}

/// Mean pooling over the real tokens: `(B, Hidden)`.
pub fn mean_pool(hidden: &Activations, mask: &Tensor<bool, (Dyn, Dyn)>) -> Var<f32, (Dyn, Hidden)> {
    let (b, t) = (mask.dims()[0], mask.dims()[1]);
    let weights: Vec<f32> = mask.iter().map(|m| if m { 1.0 } else { 0.0 }).collect();
    let weights = Var::constant(
        Tensor::<f32, (Dyn, Dyn, shaped::One)>::try_from_vec(weights, &[b, t, 1])
            .expect("(B, T, 1)"),
    );
    let summed = (hidden * &weights).sum_dim::<1>();
    let counts = weights.sum_dim::<1>().clamp(1e-9, f32::INFINITY);
    &summed / &counts
}

/// Mean pooling over the real tokens, then L2 normalisation: the
/// sentence embedding `(B, Hidden)` of sentence-transformers.
#[allow(dead_code)] // not used by the fine-tune
pub fn sentence_embeddings(
    hidden: &Activations,
    mask: &Tensor<bool, (Dyn, Dyn)>,
) -> Var<f32, (Dyn, Hidden)> {
    let mean = mean_pool(hidden, mask);
    let norm = mean
        .square()
        .sum_dim_keepdim::<1>()
        .sqrt()
        .clamp(1e-12, f32::INFINITY);
    &mean / &norm
}
