//! Adam and AdamW: `torch.optim.Adam` / `torch.optim.AdamW`'s update, step
//! for step (bias-corrected moments; L2 weight decay for Adam, decoupled
//! decay for AdamW).

use super::optimizer::{Optimizer, slot};
use super::params::Parameters;
use crate::Tensor;
use crate::autograd::GradDevice;
use crate::backend::cpu::compiled::is_f32_cpu;
use crate::backend::op::table::Fill;
use crate::device::{Cpu, Device};
use crate::element::Float;
use crate::fuse::{Lazy, Scalar};
use crate::shape::DynRank;
use crate::tensor::pointwise;
use core::any::Any;
use core::marker::PhantomData;

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
pub struct Adam<T: Float, D: Device = Cpu> {
    pub(super) lr: T,
    beta1: T,
    beta2: T,
    eps: T,
    weight_decay: T,
    decoupled: bool,
    /// By parameter position: true where weight decay is not applied.
    no_decay: Vec<bool>,
    pub(super) moments: Vec<Option<Moments<T, D>>>,
}

/// The state of one parameter: step count and the two moments.
pub(super) struct Moments<T: Float, D: Device> {
    pub(super) step: i32,
    pub(super) m: Tensor<T, DynRank, D>,
    pub(super) v: Tensor<T, DynRank, D>,
}

impl<T: Float, D: Device> Clone for Moments<T, D>
where
    Tensor<T, DynRank, D>: Clone,
{
    fn clone(&self) -> Self {
        Moments {
            step: self.step,
            m: self.m.clone(),
            v: self.v.clone(),
        }
    }
}

impl<T: Float, D: Device> core::fmt::Debug for Moments<T, D>
where
    Tensor<T, DynRank, D>: core::fmt::Debug,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Moments")
            .field("step", &self.step)
            .field("m", &self.m)
            .field("v", &self.v)
            .finish()
    }
}

impl<T: Float, D: Device> Clone for Adam<T, D>
where
    Tensor<T, DynRank, D>: Clone,
{
    fn clone(&self) -> Self {
        Adam {
            lr: self.lr,
            beta1: self.beta1,
            beta2: self.beta2,
            eps: self.eps,
            weight_decay: self.weight_decay,
            decoupled: self.decoupled,
            no_decay: self.no_decay.clone(),
            moments: self.moments.clone(),
        }
    }
}

impl<T: Float, D: Device> core::fmt::Debug for Adam<T, D>
where
    Tensor<T, DynRank, D>: core::fmt::Debug,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Adam")
            .field("lr", &self.lr)
            .field("beta1", &self.beta1)
            .field("beta2", &self.beta2)
            .field("eps", &self.eps)
            .field("weight_decay", &self.weight_decay)
            .field("decoupled", &self.decoupled)
            .field("no_decay", &self.no_decay)
            .field("moments", &self.moments)
            .finish()
    }
}

impl<T: Float, D: Device> Adam<T, D> {
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
            no_decay: Vec::new(),
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

impl<T: Float, D: GradDevice<T>> Adam<T, D> {
    /// Without weight decay for the parameters of `model` whose state-dict
    /// name ([`Parameters::visit_named_params`]) satisfies `exclude`: the
    /// two parameter groups of a transformer fine-tune in PyTorch (biases
    /// and LayerNorm weights undecayed), by position in `model`'s order.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::{Adam, Linear, Optimizer, Parameters};
    /// use shaped::{Const, One, Shape, Tensor};
    /// let mut layer: Linear<Const<2>, One> = Linear::new(0);
    /// let weight_before = layer.weight.value().to_vec();
    /// let bias_before = layer.bias.as_ref().unwrap().value().to_vec();
    /// let mut opt = Adam::adamw(0.1)
    ///     .weight_decay(0.5)
    ///     .no_decay(&layer, |name| name.ends_with("bias"));
    /// // A loss that does not depend on the parameters' values: zero gradients.
    /// let x = Var::constant(Tensor::<f32, Shape![1, 2]>::zeros());
    /// let grads = layer.forward(&x).mul_scalar(0.).sum().backward();
    /// opt.step(&mut layer, &grads);
    /// // The bias kept its value; the weight was decayed by 1 - lr · 0.5.
    /// assert_eq!(layer.bias.as_ref().unwrap().value().to_vec(), bias_before);
    /// let decayed: Vec<f32> = weight_before.iter().map(|w| w * 0.95).collect();
    /// assert_eq!(layer.weight.value().to_vec(), decayed);
    /// ```
    pub fn no_decay<M: Parameters<T, D> + ?Sized>(
        self,
        model: &M,
        exclude: impl Fn(&str) -> bool,
    ) -> Self {
        let mut no_decay = Vec::new();
        model.visit_named_params("", &mut |name, _| no_decay.push(exclude(name)));
        Adam { no_decay, ..self }
    }
}

impl<T: Float, D: GradDevice<T>> Optimizer<T, D> for Adam<T, D> {
    fn lr(&self) -> T {
        self.lr
    }

    fn set_lr(&mut self, lr: T) {
        self.lr = lr;
    }

    fn update(&mut self, index: usize, p: &mut Tensor<T, DynRank, D>, g: &Tensor<T, DynRank, D>) {
        if const { is_f32_cpu::<T, D>() } {
            let same = "an element type named `float32` is `f32`, a device named `cpu` is `Cpu`";
            let this: &mut dyn Any = self;
            let (p, g): (&mut dyn Any, &dyn Any) = (p, g);
            update_f32_cpu(
                this.downcast_mut().expect(same),
                index,
                p.downcast_mut().expect(same),
                g.downcast_ref().expect(same),
            )
        } else {
            self.fused_update(index, p, g)
        }
    }
}

/// [`Adam`]'s update of `f32` parameters on the CPU, compiled in shaped:
/// a generic function is compiled in the crate that uses it, at that
/// crate's optimisation level, so in a user's debug build the update's
/// three fused passes ran unoptimised (81 ms of a 163 ms GPT training step
/// on an AMD EPYC Zen 5, 2 vCPUs; 1.7 ms in release, `benches/README.md`). This non-generic function
/// names the `(f32, Cpu)` instance, which rustc then compiles here, with
/// shaped's optimisation level, whatever the user's profile.
#[inline(never)]
fn update_f32_cpu(
    adam: &mut Adam<f32, Cpu>,
    index: usize,
    p: &mut Tensor<f32, DynRank, Cpu>,
    g: &Tensor<f32, DynRank, Cpu>,
) {
    adam.fused_update(index, p, g)
}

impl<T: Float, D: GradDevice<T>> Adam<T, D> {
    /// One parameter's update: the fused passes of PyTorch's formulas.
    fn fused_update(
        &mut self,
        index: usize,
        p: &mut Tensor<T, DynRank, D>,
        g: &Tensor<T, DynRank, D>,
    ) {
        let Adam {
            lr,
            beta1,
            beta2,
            eps,
            weight_decay: wd,
            decoupled,
            ..
        } = *self;
        let wd = if self.no_decay.get(index) == Some(&true) {
            T::zero()
        } else {
            wd
        };
        let shape = "a gradient has its parameter's sizes";
        let state = match slot(&mut self.moments, index) {
            Some(s) => s,
            empty => {
                let zeros = || pointwise::unary(Fill(T::zero()), &*p).expect("a parameter's sizes");
                empty.insert(Moments {
                    step: 0,
                    m: zeros(),
                    v: zeros(),
                })
            }
        };
        state.step += 1;
        // Three fused passes (new `m`, new `v`, then `p` in place) where the
        // op-by-op form took fifteen: each element goes through the same
        // operations in the order (and so with the rounding) of PyTorch's
        // formulas, so the result is bit for bit the op-by-op one. Adam's
        // L2 decay goes into the gradient; AdamW's into the parameter,
        // `p · (1 - lr · wd)` (`p · 1` is `p` exactly, so one expression
        // serves both).
        let k = |x: T| Lazy(Scalar::<T, D>(x, PhantomData));
        let l2 = if decoupled { T::zero() } else { wd };
        let scale = if decoupled && wd != T::zero() {
            T::one() - lr * wd
        } else {
            T::one()
        };
        let decayed = p.lazy() * k(scale);
        let gd = g.lazy() + k(l2) * decayed;
        let w = T::one() - beta1;
        let diff = gd - state.m.lazy();
        // `torch.lerp`'s two forms, for its rounding: `m + w·(g - m)`, or
        // `g - (g - m)·(1 - w)`.
        let m = if w < T::from_f64(0.5) {
            (state.m.lazy() + k(w) * diff).try_eval()
        } else {
            (gd - diff * k(T::one() - w)).try_eval()
        };
        // `v·β₂ + g·g·(1 - β₂)`.
        let v = (state.v.lazy() * k(beta2) + gd * gd * k(T::one() - beta2)).try_eval();
        state.m = m.expect(shape);
        state.v = v.expect(shape);
        // `p - step_size·(m / (√v / √(1 - β₂ᵗ) + ε))`.
        let step_size = lr / (T::one() - beta1.powi(state.step));
        let bc2_sqrt = (T::one() - beta2.powi(state.step)).sqrt();
        let denom = state.v.lazy().sqrt() / k(bc2_sqrt) + k(eps);
        let update = decayed - k(step_size) * (state.m.lazy() / denom);
        let mut out = p.share();
        update.eval_into(&mut out).expect(shape);
    }
}
