//! `SplitsInto<H, E>`: a width that is `H` heads of `E` features, proved in
//! the trait solver, so that splitting a model width into attention heads
//! with the wrong count or head width fails at `cargo check`.

use super::{Const, Dim, Dyn};

/// `Self = H × E`: the width `Self` splits into `H` groups of `E` (attention
/// heads of a model width: [`split_heads`](crate::nn::split_heads)).
///
/// Stable Rust cannot multiply two `Const<N>` in the trait solver, so the
/// static products are a table: every split into 1 to 64 heads of a width
/// that is a multiple of 8 up to 256 (384 = 12 × 32, 768 = 12 × 64, 4096 =
/// 32 × 128, 1280 = 20 × 64, ...). A size that is `Dyn` on either side is
/// checked at run time instead.
///
/// ```
/// use shaped::{Const, Dyn, shape::SplitsInto};
/// fn heads<C: SplitsInto<H, E>, H: shaped::Dim, E: shaped::Dim>() {}
/// heads::<Const<384>, Const<12>, Const<32>>();
/// heads::<Const<4096>, Const<32>, Const<128>>();
/// heads::<Dyn, Const<12>, Const<32>>(); // checked at run time
/// ```
///
/// ```compile_fail
/// use shaped::{Const, shape::SplitsInto};
/// fn heads<C: SplitsInto<H, E>, H: shaped::Dim, E: shaped::Dim>() {}
/// heads::<Const<384>, Const<12>, Const<30>>(); // 12 x 30 = 360
/// ```
#[diagnostic::on_unimplemented(
    message = "a width of `{Self}` cannot be split into `{H}` heads of `{E}` features",
    label = "heads x head width must equal this width",
    note = "the static splits are 1..=64 heads of widths that are multiples of 8 up to 256; for another one, make a size `Dyn` (checked at run time)"
)]
pub trait SplitsInto<H: Dim, E: Dim>: Dim {}

/// A run-time width: the product is checked at run time.
#[diagnostic::do_not_recommend]
impl<H: Dim, E: Dim> SplitsInto<H, E> for Dyn {}

/// Run-time heads and head width.
#[diagnostic::do_not_recommend]
impl<const N: usize> SplitsInto<Dyn, Dyn> for Const<N> {}

/// Static heads, a run-time head width.
#[diagnostic::do_not_recommend]
impl<const N: usize, const H: usize> SplitsInto<Const<H>, Dyn> for Const<N> {}

/// A run-time head count, a static head width.
#[diagnostic::do_not_recommend]
impl<const N: usize, const E: usize> SplitsInto<Dyn, Const<E>> for Const<N> {}

shaped_macros::__split_impls!(64, 256);
