//! Cross-entropy with PyTorch's options (`ignore_index`,
//! `label_smoothing`) over logits with any leading axes and the classes
//! last: `(B, T, V)` language-model logits against `(B, T)` token ids keep
//! their static shapes, with no flattening to `(B·T, V)` by hand.

use super::reduction::Reduction;
use crate::Tensor;
use crate::autograd::{GradDevice, Var};
use crate::backend::Backend;
use crate::element::Float;
use crate::ops::index::IndexElement;
use crate::shape::{DynRank, OrPanic, ShapeError, SplitLast};
use crate::tensor::host;

use super::Mean;

/// `F.cross_entropy` with its options, for logits whose last axis holds the
/// classes and integer targets of the other axes: `(B, T, V)` logits and
/// `(B, T)` targets, or `(B, C)` and `(B,)`.
///
/// Defaults are PyTorch's: [`Mean`] reduction, `ignore_index = -100`
/// (targets equal to it add nothing, and [`Mean`] divides by the number of
/// targets that are not ignored), no label smoothing. With label smoothing
/// `ε`, the loss of a target is `(1 - ε) · nll + ε / C · Σ_c -log p_c`, as
/// PyTorch computes it.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{CrossEntropy, Sum};
/// use shaped::{Shape, Tensor};
/// // Two sequences of three tokens over a vocabulary of four.
/// let logits = Var::param(Tensor::<f32, Shape![2, 3, 4]>::zeros());
/// let targets = Tensor::<i64, Shape![2, 3]>::from_vec(vec![0, 1, 2, 3, -100, -100]);
/// let loss = CrossEntropy::new().loss(&logits, &targets);
/// assert!((loss.item() - 4f32.ln()).abs() < 1e-6);
/// // Ignored positions get no gradient.
/// let g = loss.backward().wrt(&logits).unwrap().to_vec();
/// assert!(g[16..].iter().all(|&x| x == 0.));
/// // Summed instead, with label smoothing.
/// let smoothed = CrossEntropy::new().reduction(Sum).label_smoothing(0.1);
/// assert!((smoothed.loss(&logits, &targets).item() - 4. * 4f32.ln()).abs() < 1e-5);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct CrossEntropy<R = Mean> {
    reduction: R,
    ignore_index: Option<i64>,
    label_smoothing: f64,
}

impl CrossEntropy<Mean> {
    /// PyTorch's defaults: mean over the targets that are not ignored,
    /// `ignore_index = -100`, no label smoothing.
    ///
    /// ```
    /// use shaped::nn::CrossEntropy;
    /// let _ = CrossEntropy::new();
    /// ```
    pub fn new() -> Self {
        CrossEntropy {
            reduction: Mean,
            ignore_index: Some(-100),
            label_smoothing: 0.0,
        }
    }
}

impl Default for CrossEntropy<Mean> {
    fn default() -> Self {
        Self::new()
    }
}

impl<R> CrossEntropy<R> {
    /// With reduction `reduction` ([`Mean`], [`Sum`](super::Sum) or
    /// [`NoReduction`](super::NoReduction), which keeps the targets' shape).
    ///
    /// ```
    /// use shaped::nn::{CrossEntropy, NoReduction};
    /// let _ = CrossEntropy::new().reduction(NoReduction);
    /// ```
    pub fn reduction<R2>(self, reduction: R2) -> CrossEntropy<R2> {
        CrossEntropy {
            reduction,
            ignore_index: self.ignore_index,
            label_smoothing: self.label_smoothing,
        }
    }

    /// Targets equal to `index` are ignored (PyTorch's `ignore_index`).
    ///
    /// ```
    /// use shaped::nn::CrossEntropy;
    /// let _ = CrossEntropy::new().ignore_index(0); // padding id 0
    /// ```
    pub fn ignore_index(self, index: i64) -> Self {
        CrossEntropy {
            ignore_index: Some(index),
            ..self
        }
    }

    /// No target is ignored: every target must be a class index (a `-100`
    /// is then an error, as with [`cross_entropy`](super::cross_entropy)).
    ///
    /// ```
    /// use shaped::nn::CrossEntropy;
    /// let _ = CrossEntropy::new().no_ignore_index();
    /// ```
    pub fn no_ignore_index(self) -> Self {
        CrossEntropy {
            ignore_index: None,
            ..self
        }
    }

    /// Label smoothing `epsilon` in `[0, 1]` (checked when the loss is
    /// computed, with PyTorch's message).
    ///
    /// ```
    /// use shaped::nn::CrossEntropy;
    /// let _ = CrossEntropy::new().label_smoothing(0.1);
    /// ```
    pub fn label_smoothing(self, epsilon: f64) -> Self {
        CrossEntropy {
            label_smoothing: epsilon,
            ..self
        }
    }

    /// The loss of `logits` (classes last) against `target` (the other
    /// axes), reduced by the reduction type.
    ///
    /// # Errors
    /// PyTorch's messages: a label smoothing outside `[0, 1]`
    /// ("label_smoothing must be between 0.0 and 1.0. Got: 1.5"), targets
    /// whose sizes are not the logits' leading sizes ("Expected target size
    /// [2, 3], got [2, 4]"), a target that is neither a class index nor
    /// the ignored index ("Target 7 is out of bounds.").
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::CrossEntropy;
    /// use shaped::{Dyn, Shape, Tensor};
    /// let logits = Var::param(Tensor::<f32, (Dyn, shaped::Const<3>)>::try_zeros(&[2, 3]).unwrap());
    /// let t = Tensor::<i64, (Dyn,)>::try_from_vec(vec![0, 7], &[2]).unwrap();
    /// let err = CrossEntropy::new().try_loss(&logits, &t).unwrap_err();
    /// assert_eq!(err.to_string(), "Target 7 is out of bounds.");
    /// ```
    pub fn try_loss<T, L, I, D>(
        &self,
        logits: &Var<T, L, D>,
        target: &Tensor<I, L::Rest, D>,
    ) -> Result<Var<T, R::Output, D>, D::Error>
    where
        T: Float,
        L: SplitLast,
        I: IndexElement,
        R: Reduction<L::Rest>,
        D: GradDevice<T> + Backend<I> + Backend<i64>,
    {
        let eps = self.label_smoothing;
        if !(0.0..=1.0).contains(&eps) {
            return Err(ShapeError::Invalid(format!(
                "label_smoothing must be between 0.0 and 1.0. Got: {eps}"
            ))
            .into());
        }
        let dims = logits.dims();
        let (lead, classes) = dims.split_at(dims.len() - 1);
        let classes = classes[0];
        if target.dims() != lead {
            return Err(ShapeError::Invalid(format!(
                "Expected target size {lead:?}, got {:?}",
                target.dims()
            ))
            .into());
        }
        let rows: usize = lead.iter().product();
        // Targets are checked on the host, as `nll` does (PyTorch's CPU
        // message).
        let targets: Vec<i64> = host::to_host(target)?.into_iter().map(Into::into).collect();
        let mut safe = Vec::with_capacity(rows);
        let mut kept = Vec::with_capacity(rows);
        for &t in &targets {
            if Some(t) == self.ignore_index {
                safe.push(0i64);
                kept.push(T::zero());
            } else if t < 0 || t as usize >= classes {
                return Err(ShapeError::Invalid(format!("Target {t} is out of bounds.")).into());
            } else {
                safe.push(t);
                kept.push(T::one());
            }
        }
        let count = kept.iter().filter(|&&k| k == T::one()).count();
        let index: Tensor<i64, DynRank, D> = host::from_host(target, safe, &[rows, 1])?;
        let weights: Tensor<T, DynRank, D> = host::from_host(target, kept, &[rows])?;
        let weights = Var::constant(weights);

        let flat: Var<T, DynRank, D> = logits
            .into_dyn()
            .try_reshape(&[rows as isize, classes as isize])?;
        let log_probs = flat.try_log_softmax(1)?;
        let picked: Var<T, DynRank, D> = log_probs
            .try_gather(1, &index)?
            .try_reshape(&[rows as isize])?;
        // -log p[target], zero where ignored.
        let nll = picked.mul(&weights).neg();
        let per_target = if eps > 0.0 {
            // ε / C · Σ_c -log p_c, zero where ignored.
            let smooth = log_probs
                .sum_dims(&[1], false)
                .mul(&weights)
                .mul_scalar(T::from_f64(-eps / classes as f64));
            nll.mul_scalar(T::from_f64(1.0 - eps)).add(&smooth)
        } else {
            nll
        };
        let lead_sizes: Vec<isize> = lead.iter().map(|&d| d as isize).collect();
        let per_target: Var<T, L::Rest, D> = per_target.try_reshape(&lead_sizes)?;
        Ok(self.reduction.reduce_kept(per_target, count))
    }

    /// [`CrossEntropy::try_loss`], panicking with its message.
    ///
    /// # Panics
    /// As [`CrossEntropy::try_loss`]'s errors.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::CrossEntropy;
    /// use shaped::{Shape, Tensor};
    /// let logits = Var::param(Tensor::<f64, Shape![1, 2]>::zeros());
    /// let t = Tensor::<i64, Shape![1]>::from_vec(vec![1]);
    /// let l = CrossEntropy::new().loss(&logits, &t);
    /// assert_eq!(l.backward().wrt(&logits).unwrap().to_vec(), vec![0.5, -0.5]);
    /// ```
    #[track_caller]
    pub fn loss<T, L, I, D>(
        &self,
        logits: &Var<T, L, D>,
        target: &Tensor<I, L::Rest, D>,
    ) -> Var<T, R::Output, D>
    where
        T: Float,
        L: SplitLast,
        I: IndexElement,
        R: Reduction<L::Rest>,
        D: GradDevice<T> + Backend<I> + Backend<i64>,
    {
        self.try_loss(logits, target).or_panic()
    }
}
