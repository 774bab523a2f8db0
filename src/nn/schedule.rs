//! Learning-rate schedules: PyTorch's `LambdaLR` (the rate is the base
//! rate times a function of the step), with the warm-up-then-cosine and
//! warm-up-then-linear functions that transformer fine-tunes use
//! (`transformers`' `get_cosine_schedule_with_warmup` and
//! `get_linear_schedule_with_warmup`, which are `LambdaLR`s).

use super::optimizer::Optimizer;
use crate::autograd::GradDevice;
use crate::element::{Float, Numeric};

/// A learning-rate schedule, as `torch.optim.lr_scheduler.LambdaLR`: the
/// optimizer's rate is `base_lr · factor(step)`, set through
/// [`Optimizer::set_lr`] (the optimizer keeps its moments). Creating it sets
/// the rate for step 0; call [`LrScheduler::step`] after each
/// [`Optimizer::step`], as in PyTorch.
///
/// ```
/// use shaped::nn::{warmup_cosine, Adam, LrScheduler, Optimizer};
/// let mut opt = Adam::<f64>::adamw(1e-3);
/// let mut sched = LrScheduler::new(&mut opt, warmup_cosine(2, 10));
/// assert_eq!(opt.lr(), 0.0); // warm-up starts at zero
/// sched.step(&mut opt);
/// assert_eq!(opt.lr(), 5e-4);
/// sched.step(&mut opt);
/// assert_eq!(opt.lr(), 1e-3); // then the cosine decay
/// for _ in 2..10 {
///     sched.step(&mut opt);
/// }
/// assert!(opt.lr().abs() < 1e-18);
/// ```
pub struct LrScheduler<F> {
    base_lr: f64,
    factor: F,
    step: usize,
    last_lr: f64,
}

impl<F> core::fmt::Debug for LrScheduler<F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LrScheduler")
            .field("base_lr", &self.base_lr)
            .field("step", &self.step)
            .field("last_lr", &self.last_lr)
            .finish_non_exhaustive()
    }
}

impl<F: Fn(usize) -> f64> LrScheduler<F> {
    /// The schedule `factor` over `optimizer`'s current rate (its base
    /// rate), setting the rate of step 0.
    ///
    /// ```
    /// use shaped::nn::{LrScheduler, Optimizer, Sgd};
    /// let mut opt = Sgd::<f32>::new(0.1);
    /// let _halving = LrScheduler::new(&mut opt, |step| 0.5f64.powi(step as i32));
    /// assert_eq!(opt.lr(), 0.1);
    /// ```
    pub fn new<T: Float, D: GradDevice<T>>(
        optimizer: &mut impl Optimizer<T, D>,
        factor: F,
    ) -> Self {
        let base_lr = Numeric::to_f64(optimizer.lr());
        let mut s = LrScheduler {
            base_lr,
            factor,
            step: 0,
            last_lr: base_lr,
        };
        s.apply(optimizer);
        s
    }

    /// The schedule `factor` over base rate `base_lr`, resumed at step
    /// `steps` (from a checkpoint: PyTorch keeps `base_lrs` and
    /// `last_epoch` in the scheduler's state), setting that step's rate.
    ///
    /// ```
    /// use shaped::nn::{warmup_linear, LrScheduler, Optimizer, Sgd};
    /// let mut opt = Sgd::<f64>::new(1.0);
    /// let s = LrScheduler::resume(&mut opt, 1.0, warmup_linear(0, 4), 3);
    /// assert_eq!((s.steps(), opt.lr()), (3, 0.25));
    /// ```
    pub fn resume<T: Float, D: GradDevice<T>>(
        optimizer: &mut impl Optimizer<T, D>,
        base_lr: f64,
        factor: F,
        steps: usize,
    ) -> Self {
        let mut s = LrScheduler {
            base_lr,
            factor,
            step: steps,
            last_lr: base_lr,
        };
        s.apply(optimizer);
        s
    }

    /// Moves to the next step and sets its rate.
    ///
    /// ```
    /// use shaped::nn::{LrScheduler, Optimizer, Sgd};
    /// let mut opt = Sgd::<f64>::new(1.0);
    /// let mut s = LrScheduler::new(&mut opt, |step| 1.0 / (1 + step) as f64);
    /// s.step(&mut opt);
    /// assert_eq!(opt.lr(), 0.5);
    /// ```
    pub fn step<T: Float, D: GradDevice<T>>(&mut self, optimizer: &mut impl Optimizer<T, D>) {
        self.step += 1;
        self.apply(optimizer);
    }

    /// The rate set last (PyTorch's `get_last_lr()`), in `f64` as PyTorch
    /// keeps it.
    ///
    /// ```
    /// use shaped::nn::{warmup_linear, LrScheduler, Sgd};
    /// let mut opt = Sgd::<f32>::new(1.0);
    /// let mut s = LrScheduler::new(&mut opt, warmup_linear(0, 4));
    /// s.step(&mut opt);
    /// assert_eq!(s.last_lr(), 0.75);
    /// ```
    pub fn last_lr(&self) -> f64 {
        self.last_lr
    }

    /// The base rate the factors multiply (PyTorch's `base_lrs`).
    ///
    /// ```
    /// use shaped::nn::{LrScheduler, Sgd};
    /// let mut opt = Sgd::<f32>::new(0.5);
    /// assert_eq!(LrScheduler::new(&mut opt, |_| 0.1).base_lr(), 0.5);
    /// ```
    pub fn base_lr(&self) -> f64 {
        self.base_lr
    }

    /// Steps taken so far (PyTorch's `last_epoch`).
    ///
    /// ```
    /// use shaped::nn::{LrScheduler, Sgd};
    /// let mut opt = Sgd::<f32>::new(1.0);
    /// assert_eq!(LrScheduler::new(&mut opt, |_| 1.0).steps(), 0);
    /// ```
    pub fn steps(&self) -> usize {
        self.step
    }

    fn apply<T: Float, D: GradDevice<T>>(&mut self, optimizer: &mut impl Optimizer<T, D>) {
        self.last_lr = self.base_lr * (self.factor)(self.step);
        optimizer.set_lr(T::from_f64(self.last_lr));
    }
}

/// Linear warm-up from 0 over `warmup` steps, then a half cosine down to 0
/// at step `total`: `transformers.get_cosine_schedule_with_warmup`'s factor
/// (one half-cycle).
///
/// ```
/// use shaped::nn::warmup_cosine;
/// let f = warmup_cosine(10, 110);
/// assert_eq!(f(5), 0.5);
/// assert_eq!(f(10), 1.0);
/// assert!((f(60) - 0.5).abs() < 1e-12);
/// ```
pub fn warmup_cosine(warmup: usize, total: usize) -> impl Fn(usize) -> f64 + Clone {
    move |step| {
        if step < warmup {
            return step as f64 / warmup.max(1) as f64;
        }
        let progress = (step - warmup) as f64 / total.saturating_sub(warmup).max(1) as f64;
        (0.5 * (1.0 + (core::f64::consts::PI * progress).cos())).max(0.0)
    }
}

/// Linear warm-up from 0 over `warmup` steps, then a linear decay to 0 at
/// step `total`: `transformers.get_linear_schedule_with_warmup`'s factor.
///
/// ```
/// use shaped::nn::warmup_linear;
/// let f = warmup_linear(2, 6);
/// assert_eq!((f(1), f(2), f(4), f(6), f(9)), (0.5, 1.0, 0.5, 0.0, 0.0));
/// ```
pub fn warmup_linear(warmup: usize, total: usize) -> impl Fn(usize) -> f64 + Clone {
    move |step| {
        if step < warmup {
            return step as f64 / warmup.max(1) as f64;
        }
        (total.saturating_sub(step) as f64 / total.saturating_sub(warmup).max(1) as f64).max(0.0)
    }
}
