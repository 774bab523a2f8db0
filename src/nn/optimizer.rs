//! The `Optimizer` trait: one update of a whole model from one backward
//! pass's gradients.

use super::params::Parameters;
use crate::Tensor;
use crate::autograd::{GradDevice, Gradients, Var};
use crate::device::Cpu;
use crate::element::Float;
use crate::shape::DynRank;

/// An optimizer: updates every parameter of a model in place from the
/// gradients of one backward pass. Its per-parameter state (momentum,
/// moments) is kept by the parameter's position in
/// [`Parameters::visit_params`] order, as PyTorch keys it by position in
/// `model.parameters()`. A parameter the loss did not use (no gradient) is
/// left as it is, with its state, as PyTorch skips a `None` `.grad`.
///
/// There is no `zero_grad`: gradients are returned by each backward pass,
/// never accumulated into the parameters.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{Optimizer, Sgd};
/// use shaped::{Shape, Tensor};
/// let mut w = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]));
/// let grads = w.square().sum().backward(); // dL/dw = 2w
/// Sgd::new(0.25).step(&mut w, &grads);
/// assert_eq!(w.value().to_vec(), vec![0.5, 1.]);
/// ```
pub trait Optimizer<T: Float, D: GradDevice<T> = Cpu> {
    /// Updates the parameter at position `index` (its value `param`, shared
    /// storage) with gradient `grad`.
    fn update(
        &mut self,
        index: usize,
        param: &mut Tensor<T, DynRank, D>,
        grad: &Tensor<T, DynRank, D>,
    );

    /// The learning rate.
    ///
    /// ```
    /// use shaped::nn::{Optimizer, Sgd};
    /// assert_eq!(Optimizer::<f32>::lr(&Sgd::new(0.5)), 0.5);
    /// ```
    fn lr(&self) -> T;

    /// Sets the learning rate for the next steps, keeping the optimizer's
    /// state (momentum, moments), as writing `param_group["lr"]` does in
    /// PyTorch; what a learning-rate schedule
    /// ([`LrScheduler`](super::LrScheduler)) calls.
    ///
    /// ```
    /// use shaped::nn::{Adam, Optimizer};
    /// let mut opt = Adam::<f32>::new(1e-3);
    /// opt.set_lr(5e-4);
    /// assert_eq!(opt.lr(), 5e-4);
    /// ```
    fn set_lr(&mut self, lr: T);

    /// Updates every parameter of `model` that has a gradient in `grads`.
    ///
    /// Call it after the backward pass, once the loss's graph is no longer
    /// needed: parameters are written in place, and a graph that still holds
    /// them would see the new values.
    fn step<M: Parameters<T, D> + ?Sized>(&mut self, model: &mut M, grads: &Gradients<T, D>)
    where
        Self: Sized,
    {
        let mut index = 0;
        model.visit_params(&mut |p: &Var<T, DynRank, D>| {
            if let Some(g) = grads.wrt(p) {
                // `share()`: a handle on the parameter's own storage, so the
                // update is written into the model (`clone()` would copy).
                let mut value = p.value().share();
                self.update(index, &mut value, &g);
            }
            index += 1;
        });
    }
}

/// The state slot for parameter `index`, growing the list as needed.
pub(crate) fn slot<X>(states: &mut Vec<Option<X>>, index: usize) -> &mut Option<X> {
    if states.len() <= index {
        states.resize_with(index + 1, || None);
    }
    &mut states[index]
}
