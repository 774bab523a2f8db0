//! A GPT in nanoGPT's shape, typed: token and position embeddings,
//! pre-LayerNorm blocks of causal self-attention and a GELU MLP, a final
//! LayerNorm and an output head tied to the token embedding. The widths,
//! head split, vocabulary and block size are types; the batch and the
//! sequence length (up to the block size) are run-time or static as the
//! caller's ids are.

use shaped::autograd::Var;
use shaped::nn::{
    Causal, Embedding, LayerNorm, Linear, Parameters, merge_heads, scaled_dot_product_attention,
    split_heads,
};
use shaped::shape::FixedDim;
use shaped::{Const, Dim, Tensor};

/// Byte-level vocabulary.
pub type Vocab = Const<256>;
/// The model width (nanoGPT's `n_embd`).
pub type Width = Const<384>;
/// Attention heads (`n_head`).
pub type Heads = Const<6>;
/// Features per head: `Width / Heads`.
pub type HeadDim = Const<64>;
/// The MLP's hidden width, `4 · Width`.
pub type Hidden = Const<1536>;
/// The longest context (`block_size`).
pub type Block = Const<256>;

/// Activations `(batch, tokens, features)`.
type Act<B, T, F = Width> = Var<f32, (B, T, F)>;

/// Causal self-attention: one projection to queries, keys and values, as
/// nanoGPT's `c_attn` (three `Linear`s here, so each is typed), and the
/// output projection `c_proj`.
#[derive(Parameters)]
pub struct Attention {
    query: Linear<Width, Width>,
    key: Linear<Width, Width>,
    value: Linear<Width, Width>,
    proj: Linear<Width, Width>,
}

/// The MLP: `Width -> 4 Width -> Width` with exact GELU.
#[derive(Parameters)]
pub struct Mlp {
    fc: Linear<Width, Hidden>,
    proj: Linear<Hidden, Width>,
}

/// A pre-LayerNorm transformer block.
#[derive(Parameters)]
pub struct Layer {
    ln_1: LayerNorm<Width>,
    attn: Attention,
    ln_2: LayerNorm<Width>,
    mlp: Mlp,
}

/// The model. The output head is `wte`'s weight, transposed (weight tying,
/// as GPT-2 and nanoGPT): one parameter, whose gradient sums both uses.
#[derive(Parameters)]
pub struct Gpt {
    wte: Embedding<Vocab, Width>,
    wpe: Embedding<Block, Width>,
    h: Vec<Layer>,
    ln_f: LayerNorm<Width>,
}

/// Draws `N(0, std²)` weights of a static shape.
fn normal<S: shaped::shape::FixedShape>(seed: u64, std: f32) -> Tensor<f32, S> {
    &Tensor::<f32, S>::randn(seed) * std
}

/// A linear layer with nanoGPT's initialisation: weights `N(0, std²)`,
/// zero bias.
fn linear<I: shaped::shape::FixedDim, O: shaped::shape::FixedDim>(
    seed: u64,
    std: f32,
) -> Linear<I, O> {
    Linear::from_tensors(normal(seed, std), Some(Tensor::zeros()))
}

impl Gpt {
    /// A model of `layers` blocks, initialised as nanoGPT (weights
    /// `N(0, 0.02²)`, the residual projections `N(0, (0.02 / √(2 layers))²)`,
    /// zero biases, unit LayerNorms), from `seed`.
    pub fn new(layers: usize, seed: u64) -> Gpt {
        let residual_std = 0.02 / (2.0 * layers as f32).sqrt();
        let mut next = seed;
        let mut seed = || {
            next += 1;
            next
        };
        let h = (0..layers)
            .map(|_| Layer {
                ln_1: LayerNorm::new(),
                attn: Attention {
                    query: linear(seed(), 0.02),
                    key: linear(seed(), 0.02),
                    value: linear(seed(), 0.02),
                    proj: linear(seed(), residual_std),
                },
                ln_2: LayerNorm::new(),
                mlp: Mlp {
                    fc: linear(seed(), 0.02),
                    proj: linear(seed(), residual_std),
                },
            })
            .collect();
        Gpt {
            wte: Embedding::from_tensor(normal(seed(), 0.02)),
            wpe: Embedding::from_tensor(normal(seed(), 0.02)),
            h,
            ln_f: LayerNorm::new(),
        }
    }

    /// Next-token logits `(B, T, Vocab)` of token ids `(B, T)`, `T` at most
    /// the block size.
    ///
    /// # Panics
    /// When `T` exceeds the block size.
    pub fn forward<B: Dim, T: Dim>(&self, ids: &Tensor<i64, (B, T)>) -> Var<f32, (B, T, Vocab)> {
        let t = ids.dims()[1];
        assert!(
            t <= Block::N,
            "Cannot forward sequence of length {t}, block size is only {}",
            Block::N
        );
        let positions =
            Tensor::<i64, (T,)>::try_from_vec((0..t as i64).collect(), &[t]).expect("t positions");
        let mut x: Act<B, T> = &self.wte.forward(ids) + &self.wpe.forward(&positions);
        for block in &self.h {
            x = &x + &block.attn.forward(&block.ln_1.forward(&x));
            x = &x + &block.mlp.forward(&block.ln_2.forward(&x));
        }
        let x = self.ln_f.forward(&x);
        // The tied head: x · wteᵀ.
        x.matmul(&self.wte.weight.transpose::<0, 1>())
    }

    /// The number of parameters (the tied head counted once).
    pub fn num_params(&self) -> usize {
        let mut n = 0;
        self.visit_params(&mut |p| n += p.value().numel());
        n
    }
}

impl Attention {
    fn forward<B: Dim, T: Dim>(&self, x: &Act<B, T>) -> Act<B, T> {
        type PerHead<B, T> = Var<f32, (B, Heads, T, HeadDim)>;
        let (q, k, v): (PerHead<B, T>, PerHead<B, T>, PerHead<B, T>) = (
            split_heads(&self.query.forward_nd(x)),
            split_heads(&self.key.forward_nd(x)),
            split_heads(&self.value.forward_nd(x)),
        );
        let y = scaled_dot_product_attention(&q, &k, &v, &Causal);
        let y: Act<B, T> = merge_heads(&y);
        self.proj.forward_nd(&y)
    }
}

impl Mlp {
    fn forward<B: Dim, T: Dim>(&self, x: &Act<B, T>) -> Act<B, T> {
        self.proj.forward_nd(&self.fc.forward_nd(x).gelu())
    }
}
