//! Loss functions, as `torch.nn.functional`'s: `mse`, `nll`,
//! `cross_entropy` (class indices or probabilities) and
//! `binary_cross_entropy_with_logits`, each with a [`Reduction`] type.
//!
//! Cross-entropy goes through `log_softmax` (max-shifted, so large logits do
//! not overflow) and the logistic loss through
//! [`Var::try_logistic_loss`]'s overflow-free form.

use super::reduction::Reduction;
use crate::Tensor;
use crate::autograd::{GradDevice, Var};
use crate::backend::Backend;
use crate::element::Float;
use crate::ops::index::IndexElement;
use crate::shape::OrPanic;
use crate::shape::{BroadcastShape, Dim, One, Shape};
use crate::tensor::host;

/// The mean squared error `(input - target)²`, reduced by `reduction`, as
/// `F.mse_loss`.
///
/// # Panics
/// With PyTorch's message when a `Dyn` size differs.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{mse, Mean};
/// use shaped::{Shape, Tensor};
/// let x = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 3.]));
/// let y = Var::constant(Tensor::<f64, Shape![2]>::from_vec(vec![0., 0.]));
/// let l = mse(&x, &y, Mean);
/// assert_eq!(l.value().item(), 5.);
/// assert_eq!(l.backward().wrt(&x).unwrap().to_vec(), vec![1., 3.]);
/// ```
#[track_caller]
pub fn mse<T: Float, S, R: Reduction<S>, D: GradDevice<T>>(
    input: &Var<T, S, D>,
    target: &Var<T, S, D>,
    reduction: R,
) -> Var<T, R::Output, D>
where
    S: BroadcastShape<S, Output = S>,
{
    reduction.reduce(input.sub(target).square())
}

/// The negative log-likelihood of class `target[i]` under log-probabilities
/// `log_probs[i, :]`, reduced by `reduction`, as `F.nll_loss` (no class
/// weights, no ignored index).
///
/// # Panics
/// When a target is not a class index in `0..C`, naming it.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{nll, Sum};
/// use shaped::{Shape, Tensor};
/// let lp = Var::param(Tensor::<f64, Shape![2, 3]>::from_vec(vec![-1., -2., -3., -4., -5., -6.]));
/// let t = Tensor::<i64, Shape![2]>::from_vec(vec![2, 0]);
/// let l = nll(&lp, &t, Sum);
/// assert_eq!(l.value().item(), 7.);
/// assert_eq!(l.backward().wrt(&lp).unwrap().to_vec(), vec![0., 0., -1., -1., 0., 0.]);
/// ```
#[track_caller]
pub fn nll<T: Float, B: Dim, C: Dim, I: IndexElement, R: Reduction<(B,)>, D>(
    log_probs: &Var<T, (B, C), D>,
    target: &Tensor<I, (B,), D>,
    reduction: R,
) -> Var<T, R::Output, D>
where
    D: GradDevice<T> + Backend<I>,
{
    let classes = log_probs.dims()[1];
    // The targets are checked on the host (PyTorch's CPU message; its
    // CUDA kernel asserts on the device instead).
    if let Some(bad) = host::to_host(target)
        .or_panic()
        .into_iter()
        .map(Into::<i64>::into)
        .find(|&t| t < 0 || t as usize >= classes)
    {
        panic!("Target {bad} is out of bounds.");
    }
    let index: Tensor<I, (B, One), D> = target.unsqueeze::<1>();
    let picked: Var<T, (B,), D> = log_probs.gather(1, &index).sum_dim::<1>();
    reduction.reduce(picked.neg())
}

/// Cross-entropy of logits `(B, C)` with class indices `(B,)`:
/// `nll(log_softmax(logits), target)`, as `F.cross_entropy`.
///
/// # Panics
/// When a target is not a class index in `0..C`.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{cross_entropy, Mean};
/// use shaped::{Shape, Tensor};
/// let logits = Var::param(Tensor::<f64, Shape![1, 2]>::from_vec(vec![0., 0.]));
/// let t = Tensor::<i64, Shape![1]>::from_vec(vec![1]);
/// let l = cross_entropy(&logits, &t, Mean);
/// assert!((l.value().item() - 2f64.ln()).abs() < 1e-15);
/// assert_eq!(l.backward().wrt(&logits).unwrap().to_vec(), vec![0.5, -0.5]);
/// ```
#[track_caller]
pub fn cross_entropy<T: Float, B: Dim, C: Dim, I: IndexElement, R: Reduction<(B,)>, D>(
    logits: &Var<T, (B, C), D>,
    target: &Tensor<I, (B,), D>,
    reduction: R,
) -> Var<T, R::Output, D>
where
    D: GradDevice<T> + Backend<I>,
{
    nll(&logits.log_softmax_dim::<1>(), target, reduction)
}

/// Cross-entropy of logits `(B, C)` with class probabilities `(B, C)`:
/// `-Σ_c target · log_softmax(logits)` per row, as `F.cross_entropy` given
/// probabilities (no label smoothing). [`Mean`](super::Mean) divides by
/// `B`, as PyTorch does.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{cross_entropy_probs, Mean};
/// use shaped::{Shape, Tensor};
/// let logits = Var::param(Tensor::<f64, Shape![1, 2]>::from_vec(vec![0., 0.]));
/// let p = Tensor::<f64, Shape![1, 2]>::from_vec(vec![0.25, 0.75]);
/// let l = cross_entropy_probs(&logits, &p, Mean);
/// assert!((l.value().item() - 2f64.ln()).abs() < 1e-15);
/// assert_eq!(l.backward().wrt(&logits).unwrap().to_vec(), vec![0.25, -0.25]);
/// ```
#[track_caller]
pub fn cross_entropy_probs<T: Float, B: Dim, C: Dim, R: Reduction<(B,)>, D: GradDevice<T>>(
    logits: &Var<T, (B, C), D>,
    target: &Tensor<T, (B, C), D>,
    reduction: R,
) -> Var<T, R::Output, D>
where
    (B, C): BroadcastShape<(B, C), Output = (B, C)>,
{
    let per_class = logits
        .log_softmax_dim::<1>()
        .mul(&Var::constant(target.share()));
    let per_row: Var<T, (B,), D> = per_class.sum_dim::<1>();
    reduction.reduce(per_row.neg())
}

/// The logistic loss of logits `input` against targets in `[0, 1]`, as
/// `F.binary_cross_entropy_with_logits` (no weights): overflow-free for any
/// logit, with gradient `σ(x) - y`.
///
/// # Panics
/// With PyTorch's message when the sizes differ (`Dyn` sizes).
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{binary_cross_entropy_with_logits, Mean};
/// use shaped::{Shape, Tensor};
/// let x = Var::param(Tensor::<f32, Shape![2]>::from_vec(vec![1000., -1000.]));
/// let y = Tensor::<f32, Shape![2]>::from_vec(vec![1., 0.]);
/// assert_eq!(binary_cross_entropy_with_logits(&x, &y, Mean).value().item(), 0.);
/// ```
#[track_caller]
pub fn binary_cross_entropy_with_logits<T: Float, S: Shape, R: Reduction<S>, D: GradDevice<T>>(
    input: &Var<T, S, D>,
    target: &Tensor<T, S, D>,
    reduction: R,
) -> Var<T, R::Output, D> {
    let losses = input.try_logistic_loss(target).or_panic();
    reduction.reduce(losses)
}
