//! Adam and AdamW: `torch.optim.Adam` / `torch.optim.AdamW`'s update, step
//! for step (bias-corrected moments; L2 weight decay for Adam, decoupled
//! decay for AdamW).

use super::optimizer::{Optimizer, slot};
use crate::Tensor;
use crate::element::Float;
use crate::shape::DynRank;

/// Adam (`torch.optim.Adam`, or AdamW with [`Adam::adamw`]). At step `t`,
/// with `g` the gradient (plus `weight_decay · p` for Adam):
/// `m = lerp(m, g, 1 - β₁)`, `v = β₂ v + (1 - β₂) g²`,
/// `p -= lr / (1 - β₁ᵗ) · m / (√v / √(1 - β₂ᵗ) + ε)`; AdamW first scales
/// `p` by `1 - lr · weight_decay`.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::{Adam, Optimizer};
/// use shaped::{Shape, Tensor};
/// let mut w = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., -1.]));
/// let grads = w.square().sum().backward();
/// Adam::new(0.1).step(&mut w, &grads);
/// // The first step moves each weight by about lr against its gradient's sign.
/// let v = w.value().to_vec();
/// assert!((v[0] - 0.9).abs() < 1e-7 && (v[1] + 0.9).abs() < 1e-7);
/// ```
#[derive(Clone, Debug)]
pub struct Adam<T: Float> {
    lr: T,
    beta1: T,
    beta2: T,
    eps: T,
    weight_decay: T,
    decoupled: bool,
    moments: Vec<Option<Moments<T>>>,
}

/// The state of one parameter: step count and the two moments.
#[derive(Clone, Debug)]
struct Moments<T: Float> {
    step: i32,
    m: Tensor<T, DynRank>,
    v: Tensor<T, DynRank>,
}

impl<T: Float> Adam<T> {
    /// Adam with learning rate `lr` and PyTorch's defaults: betas
    /// `(0.9, 0.999)`, eps `1e-8`, no weight decay.
    ///
    /// ```
    /// use shaped::nn::Adam;
    /// let _ = Adam::<f32>::new(1e-3);
    /// ```
    pub fn new(lr: T) -> Self {
        Adam {
            lr,
            beta1: T::from_f64(0.9),
            beta2: T::from_f64(0.999),
            eps: T::from_f64(1e-8),
            weight_decay: T::zero(),
            decoupled: false,
            moments: Vec::new(),
        }
    }

    /// AdamW (`torch.optim.AdamW`) with learning rate `lr` and PyTorch's
    /// defaults: Adam's, with decoupled weight decay `0.01`.
    ///
    /// ```
    /// use shaped::nn::Adam;
    /// let _ = Adam::<f32>::adamw(1e-3).weight_decay(0.05);
    /// ```
    pub fn adamw(lr: T) -> Self {
        Adam {
            weight_decay: T::from_f64(0.01),
            decoupled: true,
            ..Adam::new(lr)
        }
    }

    /// With moment decay rates `beta1` and `beta2`.
    ///
    /// ```
    /// use shaped::nn::Adam;
    /// let _ = Adam::<f32>::new(1e-3).betas(0.8, 0.99);
    /// ```
    pub fn betas(self, beta1: T, beta2: T) -> Self {
        Adam {
            beta1,
            beta2,
            ..self
        }
    }

    /// With `eps` added to the denominator.
    ///
    /// ```
    /// use shaped::nn::Adam;
    /// let _ = Adam::<f32>::new(1e-3).eps(1e-6);
    /// ```
    pub fn eps(self, eps: T) -> Self {
        Adam { eps, ..self }
    }

    /// With weight decay `weight_decay`: added to the gradient for Adam,
    /// applied to the parameter directly for AdamW.
    ///
    /// ```
    /// use shaped::nn::Adam;
    /// let _ = Adam::<f32>::new(1e-3).weight_decay(1e-4);
    /// ```
    pub fn weight_decay(self, weight_decay: T) -> Self {
        Adam {
            weight_decay,
            ..self
        }
    }
}

impl<T: Float> Optimizer<T> for Adam<T> {
    fn update(&mut self, index: usize, p: &mut Tensor<T, DynRank>, g: &Tensor<T, DynRank>) {
        let Adam {
            lr,
            beta1,
            beta2,
            eps,
            weight_decay: wd,
            decoupled,
            ..
        } = *self;
        let shape = "a gradient has its parameter's sizes";
        let state = slot(&mut self.moments, index).get_or_insert_with(|| Moments {
            step: 0,
            m: Tensor::try_zeros(p.dims()).expect("a parameter's sizes"),
            v: Tensor::try_zeros(p.dims()).expect("a parameter's sizes"),
        });
        state.step += 1;
        // Adam's L2 decay goes into the gradient; AdamW's into the parameter.
        let l2 = if decoupled { T::zero() } else { wd };
        if decoupled && wd != T::zero() {
            let scale = T::one() - lr * wd;
            p.try_map_(move |p| p * scale).expect(shape);
        }
        let w = T::one() - beta1;
        let half = T::from_f64(0.5);
        state
            .m
            .try_zip_map3_(g, &*p, move |m, g, p| {
                let g = g + l2 * p;
                // `torch.lerp`'s two forms, for its rounding.
                if w < half {
                    m + w * (g - m)
                } else {
                    g - (g - m) * (T::one() - w)
                }
            })
            .expect(shape);
        state
            .v
            .try_zip_map3_(g, &*p, move |v, g, p| {
                let g = g + l2 * p;
                v * beta2 + g * g * (T::one() - beta2)
            })
            .expect(shape);
        let step_size = lr / (T::one() - beta1.powi(state.step));
        let bc2_sqrt = (T::one() - beta2.powi(state.step)).sqrt();
        p.try_zip_map3_(&state.m, &state.v, move |p, m, v| {
            p - step_size * (m / (v.sqrt() / bc2_sqrt + eps))
        })
        .expect(shape);
    }
}
