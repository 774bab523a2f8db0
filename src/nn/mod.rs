//! Training: losses, layers whose sizes are in their types, parameters and
//! optimizers.
//!
//! | file | what |
//! |---|---|
//! | `params.rs` | [`Parameters`]: a model's parameters in a fixed order (derive it) |
//! | `init.rs` | PyTorch's default initialisations, seeded |
//! | `linear.rs` | [`Linear<I, O>`](Linear) |

mod accuracy;
mod adam;
pub mod init;
mod linear;
mod losses;
mod one_hot;
mod optimizer;
mod params;
mod reduction;
mod sgd;

pub use accuracy::{accuracy, correct};
pub use adam::Adam;
pub use linear::Linear;
pub use losses::{binary_cross_entropy_with_logits, cross_entropy, cross_entropy_probs, mse, nll};
pub use one_hot::{one_hot, try_one_hot};
pub use optimizer::Optimizer;
pub use params::Parameters;
pub use reduction::{Mean, NoReduction, Reduction, Sum};
pub use sgd::Sgd;
/// The derive for [`Parameters`] (see `shaped_macros`).
pub use shaped_macros::Parameters;
