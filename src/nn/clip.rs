//! Gradient clipping by global norm, as `torch.nn.utils.clip_grad_norm_`.

use super::params::Parameters;
use crate::autograd::{GradDevice, Gradients, Var};
use crate::backend::op::ScalarRhs;
use crate::backend::op::table::Mul;
use crate::element::Float;
use crate::shape::{DynRank, OrPanic};
use crate::tensor::host;
use crate::tensor::pointwise;

/// Scales the gradients of `model`'s parameters in `grads` so that their
/// global 2-norm (the norm of all of them as one vector) is at most
/// `max_norm`, and returns the norm they had, as
/// `torch.nn.utils.clip_grad_norm_`: each gradient is multiplied by
/// `min(max_norm / (norm + 1e-6), 1)`. Parameters without a gradient are
/// skipped. A non-finite norm is returned as it is (PyTorch's default
/// `error_if_nonfinite=False`), and the gradients are then scaled by NaN,
/// as PyTorch's are; check the returned norm to skip such a step.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::clip_grad_norm;
/// use shaped::{Shape, Tensor};
/// let w = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![3., 4.]));
/// let mut grads = w.square().sum().mul_scalar(0.5).backward(); // dL/dw = w
/// let norm = clip_grad_norm(&w, &mut grads, 1.0);
/// assert_eq!(norm, 5.0);
/// let g = grads.wrt(&w).unwrap().to_vec();
/// assert!((g[0] - 0.6).abs() < 1e-6 && (g[1] - 0.8).abs() < 1e-6);
/// ```
#[track_caller]
pub fn clip_grad_norm<T: Float, D: GradDevice<T>, M: Parameters<T, D> + ?Sized>(
    model: &M,
    grads: &mut Gradients<T, D>,
    max_norm: T,
) -> T {
    let mut params: Vec<Var<T, DynRank, D>> = Vec::new();
    model.visit_params(&mut |p| params.push(p.clone()));
    let with_grad: Vec<_> = params
        .iter()
        .filter_map(|p| grads.wrt(p).map(|g| (p, g)))
        .collect();
    if with_grad.is_empty() {
        return T::zero();
    }
    // The norm of the per-gradient norms, as PyTorch stacks them.
    let mut squares = T::zero();
    for (_, g) in &with_grad {
        let n = host::to_host(&g.try_norm(2.0).or_panic()).or_panic()[0];
        squares = squares + n * n;
    }
    let total = squares.sqrt();
    let coef = max_norm / (total + T::from_f64(1e-6));
    let coef = if coef > T::one() { T::one() } else { coef };
    for (p, g) in with_grad {
        let scaled = pointwise::unary(ScalarRhs(Mul, coef), &g).or_panic();
        grads
            .try_insert(p, scaled)
            .expect("a parameter's own gradient has its sizes");
    }
    total
}
