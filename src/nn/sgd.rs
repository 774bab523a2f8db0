//! Stochastic gradient descent with momentum, dampening, Nesterov momentum
//! and (L2) weight decay: `torch.optim.SGD`'s update, step for step.

use super::optimizer::{Optimizer, slot};
use crate::Tensor;
use crate::element::Float;
use crate::shape::DynRank;

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
#[derive(Clone, Debug)]
pub struct Sgd<T: Float> {
    lr: T,
    momentum: T,
    dampening: T,
    weight_decay: T,
    nesterov: bool,
    buffers: Vec<Option<Tensor<T, DynRank>>>,
}

impl<T: Float> Sgd<T> {
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

impl<T: Float> Optimizer<T> for Sgd<T> {
    fn update(&mut self, index: usize, p: &mut Tensor<T, DynRank>, g: &Tensor<T, DynRank>) {
        let Sgd {
            lr,
            momentum,
            dampening,
            weight_decay: wd,
            nesterov,
            ..
        } = *self;
        let shape = "a gradient has its parameter's sizes";
        if momentum == T::zero() {
            p.try_zip_map_(g, move |p, g| p - lr * (g + wd * p))
                .expect(shape);
            return;
        }
        let buf = match slot(&mut self.buffers, index) {
            Some(b) => {
                b.try_zip_map3_(g, &*p, move |b, g, p| {
                    b * momentum + (T::one() - dampening) * (g + wd * p)
                })
                .expect(shape);
                b
            }
            empty => empty.insert(p.try_zip_map(g, move |p, g| g + wd * p).expect(shape)),
        };
        if nesterov {
            p.try_zip_map3_(g, &*buf, move |p, g, b| {
                p - lr * ((g + wd * p) + momentum * b)
            })
            .expect(shape);
        } else {
            p.try_zip_map_(&*buf, move |p, b| p - lr * b).expect(shape);
        }
    }
}
