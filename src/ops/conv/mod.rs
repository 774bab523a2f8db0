//! Convolutions and poolings over NCHW (and NCL) tensors, as
//! `torch.nn.functional`: `conv1d`, `conv2d` (stride, padding as numbers,
//! `"same"` or `"valid"`, dilation, groups), `conv_transpose2d`, `max_pool2d`, `avg_pool2d`,
//! `adaptive_avg_pool2d`, each with PyTorch's errors.
//!
//! Channel counts and kernel sizes are in the operands' types; the output's
//! spatial sizes are stated by the result type (a `Const` size is checked
//! at run time here, and at build time by the layers in
//! [`nn`](crate::nn), whose stride and padding are constants).
//!
//! Every operation is the device's matrix product or reduction over the
//! input's windows, laid out by one strided copy (im2col), so it runs on
//! every device; the gradients ([`Var`](crate::autograd::Var)'s methods)
//! are the same pieces in reverse (col2im). A device may have direct
//! kernels instead ([`Windows`](crate::backend::Windows)): the CPU has the
//! depthwise convolution, and the convolution of stride 1 as one product
//! per tap over the zero-padded input, each with its gradients.
//!
//! | file | what |
//! |---|---|
//! | `options.rs` | [`ConvOptions`], [`Padding`], [`PoolOptions`] |
//! | `window.rs` | the windows' geometry and PyTorch's checks |
//! | `unfold.rs` | windows as data (im2col) and back (col2im) |
//! | `convolution.rs` | `conv1d`, `conv2d`, `conv_transpose2d` |
//! | `pool.rs` | `max_pool2d`, `avg_pool2d`, `adaptive_avg_pool2d` |

mod convolution;
mod options;
mod pool;
mod unfold;
mod window;

pub(crate) use convolution::{ConvPlan, as_2d, plan, plan_transposed, result_type};
pub use options::{
    Conv1dOptions, Conv2dOptions, ConvOptions, ConvTranspose2dOptions, ConvTransposeOptions,
    Padding, Pool2dOptions, PoolOptions,
};
pub(crate) use pool::{averaging, avg_divisor, check_adaptive};
pub(crate) use unfold::{fold, unfold};
pub(crate) use window::Window;
