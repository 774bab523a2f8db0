//! Stochastic gradient descent with momentum, dampening, Nesterov momentum
//! and (L2) weight decay: `torch.optim.SGD`'s update, step for step.

use super::optimizer::{Optimizer, slot};
use crate::Tensor;
use crate::autograd::GradDevice;
use crate::backend::op::table::{Add, Mul, Sub};
use crate::backend::op::{ScalarLhs, ScalarRhs};
use crate::device::{Cpu, Device};
use crate::element::Float;
use crate::shape::DynRank;
use crate::tensor::pointwise;

/// `torch.optim.SGD`: with `d = g + weight_decay · p`, the momentum buffer
/// is `b = d` at the first step and `b = momentum · b + (1 - dampening) · d`
/// after; the update is `p -= lr · (d + momentum · b)` with Nesterov,
/// `p -= lr · b` with momentum, `p -= lr · d` without.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{Optimizer, Sgd};
/// use shaped::{Shape, Tensor};
/// let mut w = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![1.]));
/// let mut opt = Sgd::new(0.1).momentum(0.5);
/// for _ in 0..2 {
///     let grads = w.sum().backward(); // gradient 1
///     opt.step(&mut w, &grads);
/// }
/// // b = 1, then 0.5 + 1 = 1.5: w = 1 - 0.1 - 0.15
/// assert!((w.value().to_vec()[0] - 0.75).abs() < 1e-15);
/// ```
pub struct Sgd<T: Float, D: Device = Cpu> {
    pub(super) lr: T,
    momentum: T,
    dampening: T,
    weight_decay: T,
    nesterov: bool,
    pub(super) buffers: Vec<Option<Tensor<T, DynRank, D>>>,
}

impl<T: Float, D: Device> Clone for Sgd<T, D>
where
    Tensor<T, DynRank, D>: Clone,
{
    fn clone(&self) -> Self {
        Sgd {
            lr: self.lr,
            momentum: self.momentum,
            dampening: self.dampening,
            weight_decay: self.weight_decay,
            nesterov: self.nesterov,
            buffers: self.buffers.clone(),
        }
    }
}

impl<T: Float, D: Device> core::fmt::Debug for Sgd<T, D>
where
    Tensor<T, DynRank, D>: core::fmt::Debug,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Sgd")
            .field("lr", &self.lr)
            .field("momentum", &self.momentum)
            .field("dampening", &self.dampening)
            .field("weight_decay", &self.weight_decay)
            .field("nesterov", &self.nesterov)
            .field("buffers", &self.buffers)
            .finish()
    }
}

impl<T: Float, D: Device> Sgd<T, D> {
    /// Plain SGD with learning rate `lr`: no momentum, no weight decay.
    ///
    /// ```
    /// use shaped::nn::Sgd;
    /// let _ = Sgd::<f32>::new(0.1);
    /// ```
    pub fn new(lr: T) -> Self {
        Sgd {
            lr,
            momentum: T::zero(),
            dampening: T::zero(),
            weight_decay: T::zero(),
            nesterov: false,
            buffers: Vec::new(),
        }
    }

    /// With momentum factor `momentum`.
    ///
    /// ```
    /// use shaped::nn::Sgd;
    /// let _ = Sgd::<f32>::new(0.1).momentum(0.9);
    /// ```
    pub fn momentum(self, momentum: T) -> Self {
        Sgd { momentum, ..self }
    }

    /// With dampening `dampening` of the momentum.
    ///
    /// ```
    /// use shaped::nn::Sgd;
    /// let _ = Sgd::<f32>::new(0.1).momentum(0.9).dampening(0.1);
    /// ```
    pub fn dampening(self, dampening: T) -> Self {
        Sgd { dampening, ..self }
    }

    /// With L2 weight decay `weight_decay` added to the gradient.
    ///
    /// ```
    /// use shaped::nn::Sgd;
    /// let _ = Sgd::<f32>::new(0.1).weight_decay(1e-4);
    /// ```
    pub fn weight_decay(self, weight_decay: T) -> Self {
        Sgd {
            weight_decay,
            ..self
        }
    }

    /// With Nesterov momentum.
    ///
    /// # Panics
    /// As PyTorch, when momentum is not positive or dampening is not zero.
    ///
    /// ```
    /// use shaped::nn::Sgd;
    /// let _ = Sgd::<f32>::new(0.1).momentum(0.9).nesterov();
    /// ```
    #[track_caller]
    pub fn nesterov(self) -> Self {
        assert!(
            self.momentum > T::zero() && self.dampening == T::zero(),
            "Nesterov momentum requires a momentum and zero dampening"
        );
        Sgd {
            nesterov: true,
            ..self
        }
    }
}

impl<T: Float, D: GradDevice<T>> Optimizer<T, D> for Sgd<T, D> {
    fn lr(&self) -> T {
        self.lr
    }

    fn set_lr(&mut self, lr: T) {
        self.lr = lr;
    }

    fn update(&mut self, index: usize, p: &mut Tensor<T, DynRank, D>, g: &Tensor<T, DynRank, D>) {
        let Sgd {
            lr,
            momentum,
            dampening,
            weight_decay: wd,
            nesterov,
            ..
        } = *self;
        let shape = "a gradient has its parameter's sizes";
        // Op-table operations, in the order (and so with the rounding) of
        // PyTorch's formulas; `decayed` is `g + wd·p`.
        let decayed = |p: &Tensor<T, DynRank, D>| -> Result<Tensor<T, DynRank, D>, D::Error> {
            pointwise::binary(Add, g, &pointwise::unary(ScalarLhs(Mul, wd), p)?)
        };
        let descend = |p: &mut Tensor<T, DynRank, D>, d: &Tensor<T, DynRank, D>| {
            // `p - lr·d`.
            let step = pointwise::unary(ScalarLhs(Mul, lr), d)?;
            pointwise::binary_(Sub, p, &step)
        };
        if momentum == T::zero() {
            let d = decayed(p).expect(shape);
            descend(p, &d).expect(shape);
            return;
        }
        let buf = match slot(&mut self.buffers, index) {
            Some(b) => {
                // `b·momentum + (1 - dampening)·(g + wd·p)`.
                let d = decayed(p).expect(shape);
                let fresh =
                    pointwise::unary(ScalarLhs(Mul, T::one() - dampening), &d).expect(shape);
                pointwise::unary_(ScalarRhs(Mul, momentum), b).expect(shape);
                pointwise::binary_(Add, b, &fresh).expect(shape);
                b
            }
            empty => empty.insert(decayed(p).expect(shape)),
        };
        if nesterov {
            // `p - lr·((g + wd·p) + momentum·b)`.
            let d = decayed(p).expect(shape);
            let ahead = pointwise::binary(
                Add,
                &d,
                &pointwise::unary(ScalarLhs(Mul, momentum), &*buf).expect(shape),
            )
            .expect(shape);
            descend(p, &ahead).expect(shape);
        } else {
            descend(p, &*buf).expect(shape);
        }
    }
}
