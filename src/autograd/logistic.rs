//! The logistic loss on logits, `softplus(x) - x·y`, written so that it never
//! overflows, with its exact gradient `σ(x) - y` (a composition of `relu`,
//! `abs`, `exp` and `log1p` would give `-y` at `x = 0`, where `relu` and
//! `abs` have no derivative). Both are op-table compositions, so the loss
//! records and back-propagates on any device.

use crate::tensor::pointwise;
use smallvec::smallvec;

use super::Var;
use super::device::{GradDevice, map2};
use super::graph::DynTensor;
use crate::Tensor;
use crate::backend::op::table::{Abs, Add, Exp, Log1p, Mul, Neg, Relu, Sigmoid, Sub};
use crate::element::Float;
use crate::shape::{Shape, ShapeError};

impl<T: Float, S: Shape, D: GradDevice<T>> Var<T, S, D> {
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
    pub fn try_logistic_loss(&self, target: &Tensor<T, S, D>) -> Result<Var<T, S, D>, D::Error> {
        if target.dims() != self.dims() {
            let size = |d: &[usize]| {
                let d: Vec<String> = d.iter().map(usize::to_string).collect();
                format!("torch.Size([{}])", d.join(", "))
            };
            return Err(ShapeError::Invalid(format!(
                "Target size ({}) must be the same as input size ({})",
                size(target.dims()),
                size(self.dims())
            ))
            .into());
        }
        let (x, y): (DynTensor<T, D>, DynTensor<T, D>) = (self.erased(), target.share().into_dyn());
        // `(max(x, 0) - x·y) + log1p(exp(-|x|))`.
        let hinge = map2(Sub, &pointwise::unary(Relu, &x)?, &map2(Mul, &x, &y)?)?;
        let soft = pointwise::unary(
            Log1p,
            &pointwise::unary(Exp, &pointwise::unary(Neg, &pointwise::unary(Abs, &x)?)?)?,
        )?;
        let value: Tensor<T, S, D> = pointwise::binary(Add, &hinge, &soft)?;
        Ok(Var::from_op(value, &[Some(&self.node)], move || {
            Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
                // `g (σ(x) - y)`.
                let d = map2(Mul, g, &map2(Sub, &pointwise::unary(Sigmoid, &x)?, &y)?)?;
                Ok(smallvec![Some(d)])
            })
        }))
    }
}
