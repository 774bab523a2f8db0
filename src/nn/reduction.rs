//! How a loss combines its per-element values, as PyTorch's `reduction=`
//! argument, chosen by type so that the result's shape is known: `()` for
//! [`Mean`] and [`Sum`], the per-element shape for [`NoReduction`].

use crate::autograd::{GradDevice, Var};
use crate::element::Float;
use crate::shape::Shape;

/// A reduction of per-element losses of shape `S`.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{Mean, Reduction};
/// use shaped::{Shape, Tensor};
/// let l = Var::constant(Tensor::<f32, Shape![4]>::from_vec(vec![1., 2., 3., 4.]));
/// assert_eq!(Mean.reduce(l).value().item(), 2.5);
/// ```
pub trait Reduction<S: Shape> {
    /// The reduced shape.
    type Output: Shape;
    /// Reduces `losses`.
    fn reduce<T: Float, D: GradDevice<T>>(&self, losses: Var<T, S, D>) -> Var<T, Self::Output, D>;

    /// Reduces `losses` of which only `kept` count (the others are zeros
    /// for ignored targets): [`Mean`] divides the sum by `kept`, as
    /// PyTorch's `ignore_index` does (`0 / 0`, NaN, when nothing is kept).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::{Mean, Reduction};
    /// use shaped::{Shape, Tensor};
    /// let l = Var::constant(Tensor::<f32, Shape![4]>::from_vec(vec![1., 2., 0., 0.]));
    /// assert_eq!(Mean.reduce_kept(l, 2).value().item(), 1.5);
    /// ```
    fn reduce_kept<T: Float, D: GradDevice<T>>(
        &self,
        losses: Var<T, S, D>,
        kept: usize,
    ) -> Var<T, Self::Output, D>;
}

/// The mean over every element (`reduction='mean'`, PyTorch's default).
#[derive(Clone, Copy, Debug, Default)]
pub struct Mean;

/// The sum over every element (`reduction='sum'`).
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{Reduction, Sum};
/// use shaped::{Shape, Tensor};
/// let l = Var::constant(Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]));
/// assert_eq!(Sum.reduce(l).value().item(), 3.);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct Sum;

/// No reduction: one loss per element (`reduction='none'`).
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{NoReduction, Reduction};
/// use shaped::{Shape, Tensor};
/// let l = Var::constant(Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]));
/// assert_eq!(NoReduction.reduce(l).value().to_vec(), vec![1., 2.]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct NoReduction;

impl<S: Shape> Reduction<S> for Mean {
    type Output = ();
    fn reduce<T: Float, D: GradDevice<T>>(&self, losses: Var<T, S, D>) -> Var<T, (), D> {
        losses.mean()
    }
    fn reduce_kept<T: Float, D: GradDevice<T>>(
        &self,
        losses: Var<T, S, D>,
        kept: usize,
    ) -> Var<T, (), D> {
        losses.sum().div_scalar(T::from_f64(kept as f64))
    }
}

impl<S: Shape> Reduction<S> for Sum {
    type Output = ();
    fn reduce<T: Float, D: GradDevice<T>>(&self, losses: Var<T, S, D>) -> Var<T, (), D> {
        losses.sum()
    }
    fn reduce_kept<T: Float, D: GradDevice<T>>(
        &self,
        losses: Var<T, S, D>,
        _: usize,
    ) -> Var<T, (), D> {
        losses.sum()
    }
}

impl<S: Shape> Reduction<S> for NoReduction {
    type Output = S;
    fn reduce<T: Float, D: GradDevice<T>>(&self, losses: Var<T, S, D>) -> Var<T, S, D> {
        losses
    }
    fn reduce_kept<T: Float, D: GradDevice<T>>(
        &self,
        losses: Var<T, S, D>,
        _: usize,
    ) -> Var<T, S, D> {
        losses
    }
}
