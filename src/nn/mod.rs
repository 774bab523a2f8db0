//! Training: losses, layers whose sizes are in their types, parameters and
//! optimizers.
//!
//! | file | what |
//! |---|---|
//! | `params.rs` | [`Parameters`]: a model's parameters in a fixed order (derive it) |
//! | `init.rs` | PyTorch's default initialisations, seeded |
//! | `linear.rs` | [`Linear<I, O>`](Linear) |

mod adam;
pub mod init;
mod linear;
mod losses;
mod optimizer;
mod params;
mod reduction;
mod sgd;

pub use adam::Adam;
pub use linear::Linear;
pub use losses::{binary_cross_entropy_with_logits, cross_entropy, cross_entropy_probs, mse, nll};
pub use optimizer::Optimizer;
pub use params::Parameters;
pub use reduction::{Mean, NoReduction, Reduction, Sum};
pub use sgd::Sgd;
/// The derive for [`Parameters`] (see `shaped_macros`).
pub use shaped_macros::Parameters;
