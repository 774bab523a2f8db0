//! Training: losses, layers whose sizes are in their types, parameters and
//! optimizers, in PyTorch's terms and with PyTorch's numbers (losses,
//! initialisations and optimizer updates are tested against PyTorch).
//!
//! ```
//! use shaped::autograd::{no_grad, Var};
//! use shaped::nn::{accuracy, cross_entropy, Adam, Linear, Mean, Optimizer, Parameters};
//! use shaped::{Const, Shape, Tensor};
//!
//! #[derive(Parameters)]
//! struct Model {
//!     hidden: Linear<Const<4>, Const<16>>,
//!     out: Linear<Const<16>, Const<2>>,
//! }
//! let mut model = Model { hidden: Linear::new(0), out: Linear::new(1) };
//! // Class 1 when the first feature is positive.
//! let x = Tensor::<f32, Shape![8, 4]>::randn(5);
//! let labels: Vec<i64> = x.to_vec().chunks(4).map(|r| (r[0] > 0.0) as i64).collect();
//! let (x, y) = (Var::constant(x), Tensor::<i64, Shape![8]>::from_vec(labels));
//! let mut opt = Adam::new(0.05);
//! for _ in 0..100 {
//!     let loss = cross_entropy(&model.out.forward(&model.hidden.forward(&x).relu()), &y, Mean);
//!     let grads = loss.backward();
//!     opt.step(&mut model, &grads);
//! }
//! let _eval = no_grad();
//! let logits = model.out.forward(&model.hidden.forward(&x).relu());
//! assert_eq!(accuracy(logits.value(), &y), 1.0);
//! ```
//!
//! # Design
//! **Sizes in types.** A layer's sizes are dimension types
//! (`Linear<Const<784>, Const<256>>`), so a layer applied to the wrong
//! width, or two layers chained with different widths, do not compile; the
//! batch dimension stays generic (`forward<B: Dim>`), static or `Dyn`.
//! Dimension types rather than `const N: usize` because size 1 has its own
//! type (`One`) in this crate: `Linear<Const<8>, One>` is a valid layer.
//!
//! **Parameters are `Var`s, updated in place.** [`Parameters`] lists a
//! model's parameters in a fixed order as handles sharing their storage;
//! an [`Optimizer`] keeps its state by that position and writes each
//! update into the parameter, as `torch.optim` does. Gradients come from
//! each backward pass ([`Gradients`](crate::autograd::Gradients)), so there
//! is no `zero_grad`.
//!
//! **Reductions are types.** [`Mean`] and [`Sum`] give a `Var<T, ()>` (which
//! has `backward`), [`NoReduction`] the per-element shape.
//!
//! **CPU.** Like [`autograd`](crate::autograd), whose `Var` holds CPU
//! tensors, this module runs on the CPU.
//!
//! | file | what |
//! |---|---|
//! | `params.rs` | [`Parameters`]: a model's parameters in a fixed order (derive it), and its [`Buffer`]s |
//! | `init.rs` | PyTorch's default initialisations, seeded |
//! | `linear.rs` | [`Linear<I, O>`](Linear) |
//! | `batch_norm.rs` | [`BatchNorm`] (`BatchNorm1d`/`2d`: running statistics, train / eval), [`GroupNorm`] |
//! | `conv.rs` | [`Conv2d<I, O, K, S, P>`](Conv2d), [`Conv1d`]: channels and kernel in the type, output sizes checked at build time |
//! | `depthwise_conv.rs` | [`DepthwiseConv2d<C, K, S, P>`](DepthwiseConv2d): one filter per channel (`groups=C`), output sizes checked at build time |
//! | `conv_transpose.rs` | [`ConvTranspose2d<I, O, K, S, P, OP>`](ConvTranspose2d): the transposed convolution layer, output sizes checked at build time |
//! | `embedding.rs` | [`Embedding<V, D>`](Embedding) |
//! | `layer_norm.rs` | [`LayerNorm<D>`](LayerNorm): the width checked in the type ([`NormalizedWidth`]) |
//! | `attention.rs` | [`scaled_dot_product_attention`] and its masks ([`Causal`], [`KeyPadding`], ...), [`causal_mask`] |
//! | `dropout.rs` | [`Dropout`] (train / eval) |
//! | `activation.rs` | [`Relu`], [`Gelu`], [`GeluTanh`] ([`gelu_tanh`]), [`Silu`], [`Sigmoid`], [`Tanh`] as layers |
//! | `erase.rs` | (a `Var` seen as `DynRank` and back, for last-axis layers) |
//! | `reduction.rs` | [`Mean`], [`Sum`], [`NoReduction`] |
//! | `losses.rs` | [`mse`], [`nll`], [`cross_entropy`], [`cross_entropy_probs`], [`binary_cross_entropy_with_logits`] |
//! | `cross_entropy.rs` | [`CrossEntropy`]: classes last over any leading axes, `ignore_index`, label smoothing |
//! | `one_hot.rs` | [`one_hot`] |
//! | `accuracy.rs` | [`accuracy`], [`correct`] (through `argmax`) |
//! | `optimizer.rs` | [`Optimizer`]: one step over a whole model |
//! | `sgd.rs` | [`Sgd`]: momentum, dampening, Nesterov, weight decay |
//! | `adam.rs` | [`Adam`], and AdamW through [`Adam::adamw`] |
//! | `clip.rs` | [`clip_grad_norm`]: gradients scaled to a global norm |
//! | `schedule.rs` | [`LrScheduler`] (`LambdaLR`), [`warmup_cosine`], [`warmup_linear`] |
//! | `data.rs` | [`DataLoader`]: shuffled mini-batches over a [`TensorDataset`] (one or more tensors sharing the sample axis) |
//! | `optimizer_state.rs` | `Adam::state_dict` / `Adam::load_state_dict`: optimizer checkpoints (feature `safetensors`) |
//! | `state_dict.rs` | `load_safetensors`, `save_safetensors`, `state_dict`: parameters and buffers by name (feature `safetensors`) |

mod accuracy;
mod activation;
mod adam;
mod attention;
mod batch_norm;
mod clip;
mod conv;
mod conv_transpose;
mod cross_entropy;
mod data;
mod depthwise_conv;
mod dropout;
mod embedding;
mod erase;
pub mod init;
mod layer_norm;
mod linear;
mod losses;
mod one_hot;
mod optimizer;
#[cfg(feature = "safetensors")]
mod optimizer_state;
mod params;
mod reduction;
mod schedule;
mod sgd;
#[cfg(feature = "safetensors")]
mod state_dict;

pub use accuracy::{accuracy, correct};
pub use activation::{Gelu, GeluTanh, Relu, Sigmoid, Silu, Tanh, gelu_tanh};
pub use adam::Adam;
pub use attention::{
    AttentionMask, Causal, KeyPadding, NoMask, causal_mask, merge_heads,
    scaled_dot_product_attention, split_heads, try_causal_mask, try_scaled_dot_product_attention,
};
pub use batch_norm::{BatchNorm, BatchNorm1d, BatchNorm2d, ChannelsFirst, GroupNorm};
pub use clip::clip_grad_norm;
pub use conv::{Channels, Conv1d, Conv2d};
pub use conv_transpose::ConvTranspose2d;
pub use cross_entropy::CrossEntropy;
pub use data::{Batches, DataLoader, TensorDataset};
pub use depthwise_conv::DepthwiseConv2d;
pub use dropout::Dropout;
pub use embedding::Embedding;
pub use layer_norm::{LayerNorm, NormalizedWidth};
pub use linear::{InputWidth, Linear, LinearInput, LinearOutput, Rows};
pub use losses::{binary_cross_entropy_with_logits, cross_entropy, cross_entropy_probs, mse, nll};
pub use one_hot::{one_hot, try_one_hot};
pub use optimizer::Optimizer;
pub use params::{Buffer, Parameters, param_key};
pub use reduction::{Mean, NoReduction, Reduction, Sum};
pub use schedule::{LrScheduler, warmup_cosine, warmup_linear};
pub use sgd::Sgd;
/// The derive for [`Parameters`] (see `shaped_macros`).
pub use shaped_macros::Parameters;
#[cfg(feature = "safetensors")]
pub use state_dict::{
    LoadOptions, LoadReport, StateDictError, load_safetensors, save_safetensors, state_dict,
};
