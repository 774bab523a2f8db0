//! The logistic loss on logits, `softplus(x) - x·y`, written so that it never
//! overflows, with its exact gradient `σ(x) - y` (a composition of `relu`,
//! `abs`, `exp` and `log1p` would give `-y` at `x = 0`, where `relu` and
//! `abs` have no derivative).

use smallvec::smallvec;

use super::Var;
use super::graph::Dyn;
use crate::Tensor;
use crate::element::Float;
use crate::ops::scalar;
use crate::shape::{Shape, ShapeError};

impl<T: Float, S: Shape> Var<T, S> {
    /// `max(x, 0) - x·y + ln(1 + e^-|x|)` elementwise for logits `x` (this
    /// value) and targets `y` of the same sizes, as the unreduced
    /// `torch.nn.functional.binary_cross_entropy_with_logits`; the gradient
    /// with respect to `x` is `σ(x) - y`. The target needs no gradient.
    ///
    /// # Errors
    /// When `target`'s sizes differ from this value's, in PyTorch's words:
    /// `Target size (torch.Size([3])) must be the same as input size
    /// (torch.Size([2, 3]))`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![0., 100.]));
    /// let y = Tensor::<f64, Shape![2]>::from_vec(vec![1., 0.]);
    /// let l = x.try_logistic_loss(&y).unwrap();
    /// assert!((l.value().to_vec()[0] - 2f64.ln()).abs() < 1e-15);
    /// assert_eq!(l.value().to_vec()[1], 100.);
    /// assert_eq!(l.sum().backward().wrt(&x).unwrap().to_vec(), vec![-0.5, 1.]);
    /// ```
    pub fn try_logistic_loss(&self, target: &Tensor<T, S>) -> Result<Var<T, S>, ShapeError> {
        if target.dims() != self.dims() {
            let size = |d: &[usize]| {
                let d: Vec<String> = d.iter().map(usize::to_string).collect();
                format!("torch.Size([{}])", d.join(", "))
            };
            return Err(ShapeError::Invalid(format!(
                "Target size ({}) must be the same as input size ({})",
                size(target.dims()),
                size(self.dims())
            )));
        }
        let (x, y): (Dyn<T>, Dyn<T>) = (self.erased(), target.clone().into_dyn());
        let value = x
            .try_zip_map(&y, |x: T, y: T| {
                x.max(T::zero()) - x * y + (-x.abs()).exp().ln_1p()
            })?
            .try_into_shape::<S>()?;
        Ok(Var::from_op(value, &[self.node.as_ref()], move || {
            Box::new(move |g: &Dyn<T>, _: &[bool]| {
                let d = g.try_zip_map3(&x, &y, |g, x, y| g * (scalar::sigmoid(x) - y))?;
                Ok(smallvec![Some(d)])
            })
        }))
    }
}
