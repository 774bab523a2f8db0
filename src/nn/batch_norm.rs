//! `BatchNorm<C>` (PyTorch's `BatchNorm1d` / `BatchNorm2d`) and
//! `GroupNorm<C>`: normalisation over channels-first inputs, with a
//! learned scale and shift per channel, on any device.

use crate::tensor::pointwise;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use super::conv::Channels;
use super::erase::{erased, restored};
use super::params::{Buffer, Parameters, param_key};
use crate::Tensor;
use crate::autograd::{GradDevice, Var, no_grad};
use crate::backend::op::table::Fill;
use crate::device::{Cpu, Device};
use crate::element::Float;
use crate::shape::{Dim, DynRank, FixedDim, OrPanic, Shape, ShapeError};

/// A channels-first input of `C` channels: `(N, C)`, `(N, C, L)` or
/// `(N, C, H, W)`.
///
/// ```
/// use shaped::nn::ChannelsFirst;
/// use shaped::{Const, Shape};
/// fn takes<X: ChannelsFirst<Const<3>>>() {}
/// takes::<Shape![8, 3]>();
/// takes::<Shape![8, 3, 32, 32]>();
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a channels-first input of `{C}` channels",
    label = "expected `(N, C)`, `(N, C, L)` or `(N, C, H, W)` with `C` = `{C}`",
    note = "normalisation layers take channels-first inputs, as in PyTorch"
)]
pub trait ChannelsFirst<C: Dim>: Shape {}

impl<C: Dim, N: Dim, X: Channels<C>> ChannelsFirst<C> for (N, X) {}
impl<C: Dim, N: Dim, X: Channels<C>, L: Dim> ChannelsFirst<C> for (N, X, L) {}
impl<C: Dim, N: Dim, X: Channels<C>, H: Dim, W: Dim> ChannelsFirst<C> for (N, X, H, W) {}

/// Sizes `(C, 1, ...)` that broadcast a per-channel vector over a
/// channels-first input of rank `rank`.
fn per_channel(c: usize, rank: usize) -> Vec<isize> {
    let mut d = vec![1isize; rank.saturating_sub(1)];
    d[0] = c as isize;
    d
}

/// PyTorch's error for an input whose channel count is not the layer's.
fn check_channels(what: &str, layer: usize, x: &[usize]) -> Result<(), ShapeError> {
    if x.len() < 2 || x[1] != layer {
        return Err(ShapeError::Invalid(format!(
            "{what} should contain {} elements not {layer}",
            x.get(1).copied().unwrap_or(0)
        )));
    }
    Ok(())
}

/// `torch.nn.BatchNorm1d(C)` / `BatchNorm2d(C)`: each channel of a
/// channels-first input is shifted to mean 0 and scaled to variance 1 over
/// the batch and spatial positions, then scaled by `weight` and shifted by
/// `bias` (initially ones and zeros). In training mode the batch's
/// statistics are used and the running statistics updated (`running =
/// (1 - momentum)·running + momentum·batch`, the unbiased variance, as
/// PyTorch); in evaluation mode the running statistics are used.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::BatchNorm;
/// use shaped::{Const, Shape, Tensor};
/// let mut bn: BatchNorm<Const<2>, f64> = BatchNorm::new();
/// let x = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 10., 3., 30.]));
/// let y = bn.forward(&x).value().to_vec();
/// assert!((y[0] + 1.).abs() < 1e-4 && (y[3] - 1.).abs() < 1e-4);
/// // Running mean: 0.9·0 + 0.1·(2, 20); running variance: 0.9·1 + 0.1·(2, 200).
/// assert_eq!(bn.running_mean.to_vec(), vec![0.2, 2.0]);
/// assert!((bn.running_var.to_vec()[1] - 20.9).abs() < 1e-12);
/// bn.eval();
/// let z = bn.forward(&x).value().to_vec();
/// assert!((z[0] - (1. - 0.2) / (1.1f64 + 1e-5).sqrt()).abs() < 1e-12);
/// ```
pub struct BatchNorm<C: Dim, T: Float = f32, D: Device = Cpu> {
    /// The scale, `(C,)`.
    pub weight: Var<T, (C,), D>,
    /// The shift, `(C,)`.
    pub bias: Var<T, (C,), D>,
    /// The running mean, `(C,)` (zeros at first).
    pub running_mean: Tensor<T, (C,), D>,
    /// The running (unbiased) variance, `(C,)` (ones at first).
    pub running_var: Tensor<T, (C,), D>,
    /// Added to the variance (PyTorch's default `1e-5`).
    pub eps: T,
    /// The weight of a new batch in the running statistics (`0.1`).
    pub momentum: T,
    training: AtomicBool,
    /// Training batches seen (PyTorch's `num_batches_tracked` buffer).
    batches: Arc<AtomicU64>,
}

/// `torch.nn.BatchNorm1d`: [`BatchNorm`] over `(N, C)` or `(N, C, L)`.
pub type BatchNorm1d<C, T = f32, D = Cpu> = BatchNorm<C, T, D>;
/// `torch.nn.BatchNorm2d`: [`BatchNorm`] over `(N, C, H, W)`.
pub type BatchNorm2d<C, T = f32, D = Cpu> = BatchNorm<C, T, D>;

impl<C: FixedDim, T: Float> BatchNorm<C, T> {
    /// Weight ones, bias zeros, running mean 0 and variance 1, `eps =
    /// 1e-5`, `momentum = 0.1`, in training mode, as PyTorch.
    ///
    /// ```
    /// use shaped::nn::{BatchNorm2d, Parameters};
    /// use shaped::Const;
    /// assert_eq!(BatchNorm2d::<Const<16>>::new().num_params(), 32);
    /// ```
    pub fn new() -> Self {
        Self::from_tensors(Tensor::ones(), Tensor::zeros())
    }
}

impl<C: FixedDim, T: Float> Default for BatchNorm<C, T> {
    /// [`BatchNorm::new`].
    fn default() -> Self {
        Self::new()
    }
}

impl<C: Dim, T: Float, D: GradDevice<T>> BatchNorm<C, T, D> {
    /// A layer with the given scale and shift (made parameters, on their
    /// device), running mean 0 and variance 1.
    ///
    /// # Panics
    /// When the two have different sizes.
    ///
    /// ```
    /// use shaped::nn::BatchNorm;
    /// use shaped::{Shape, Tensor};
    /// let bn = BatchNorm::from_tensors(Tensor::<f32, Shape![_]>::try_ones(&[3]).unwrap(),
    ///     Tensor::<f32, Shape![_]>::try_zeros(&[3]).unwrap());
    /// assert_eq!(bn.running_var.to_vec(), vec![1.; 3]);
    /// ```
    #[track_caller]
    pub fn from_tensors(weight: Tensor<T, (C,), D>, bias: Tensor<T, (C,), D>) -> Self {
        assert_eq!(
            weight.dims(),
            bias.dims(),
            "BatchNorm: the weight and the bias must have the same sizes"
        );
        let filled = |v: T| pointwise::unary(Fill(v), &weight).or_panic();
        let (running_mean, running_var) = (filled(T::zero()), filled(T::one()));
        BatchNorm {
            weight: Var::param(weight),
            bias: Var::param(bias),
            running_mean,
            running_var,
            eps: T::from_f64(1e-5),
            momentum: T::from_f64(0.1),
            training: AtomicBool::new(true),
            batches: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Training mode: batch statistics, running statistics updated.
    ///
    /// ```
    /// use shaped::nn::BatchNorm;
    /// use shaped::Const;
    /// let mut bn: BatchNorm<Const<2>> = BatchNorm::new();
    /// bn.eval();
    /// bn.train();
    /// assert!(bn.is_training());
    /// ```
    pub fn train(&mut self) {
        self.training.store(true, Ordering::Relaxed);
    }

    /// Evaluation mode: the running statistics.
    ///
    /// ```
    /// use shaped::nn::BatchNorm;
    /// use shaped::Const;
    /// let mut bn: BatchNorm<Const<2>> = BatchNorm::new();
    /// bn.eval();
    /// assert!(!bn.is_training());
    /// ```
    pub fn eval(&mut self) {
        self.training.store(false, Ordering::Relaxed);
    }

    /// The number of training batches that updated the running statistics
    /// (PyTorch's `num_batches_tracked`; saved and loaded with them).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::BatchNorm1d;
    /// use shaped::{Const, Shape, Tensor};
    /// let bn: BatchNorm1d<Const<2>> = BatchNorm1d::new();
    /// let x = Var::constant(Tensor::<f32, Shape![3, 2]>::randn(0));
    /// bn.forward(&x);
    /// bn.forward(&x);
    /// assert_eq!(bn.num_batches_tracked(), 2);
    /// ```
    pub fn num_batches_tracked(&self) -> u64 {
        self.batches.load(Ordering::Relaxed)
    }

    /// Whether the layer is in training mode.
    ///
    /// ```
    /// use shaped::nn::BatchNorm;
    /// use shaped::Const;
    /// assert!(BatchNorm::<Const<2>>::new().is_training());
    /// ```
    pub fn is_training(&self) -> bool {
        self.training.load(Ordering::Relaxed)
    }

    /// `x` normalised per channel, as [`BatchNorm::forward`].
    ///
    /// # Errors
    /// PyTorch's errors: a channel count other than the layer's, or a
    /// single value per channel in training mode.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::BatchNorm;
    /// use shaped::{Const, Dyn, Tensor};
    /// let bn: BatchNorm<Const<3>> = BatchNorm::new();
    /// let x = Var::constant(Tensor::<f32, (Dyn, Dyn)>::try_zeros(&[1, 3]).unwrap());
    /// let e = bn.try_forward(&x).unwrap_err();
    /// assert_eq!(e.to_string(),
    ///     "Expected more than 1 value per channel when training, got input size torch.Size([1, 3])");
    /// ```
    pub fn try_forward<X: Shape>(&self, x: &Var<T, X, D>) -> Result<Var<T, X, D>, D::Error> {
        let c = self.weight.dims()[0];
        check_channels("running_mean", c, x.dims())?;
        let d = x.dims();
        let xe = erased(x);
        if self.is_training() {
            let count = d.iter().product::<usize>() / c.max(1);
            if count <= 1 {
                let sizes: Vec<String> = d.iter().map(usize::to_string).collect();
                return Err(ShapeError::Invalid(format!(
                    "Expected more than 1 value per channel when training, got input size \
                     torch.Size([{}])",
                    sizes.join(", ")
                ))
                .into());
            }
            let (y, stats) =
                xe.batch_norm_train(&erased(&self.weight), &erased(&self.bias), self.eps)?;
            self.update_running(&stats.mean, &stats.var, count)?;
            self.batches.fetch_add(1, Ordering::Relaxed);
            return Ok(restored(&y, d));
        }
        // Evaluation: the running statistics, constants.
        let shape = per_channel(c, d.len());
        let (w, b) = (
            erased(&self.weight).try_reshape::<DynRank>(&shape)?,
            erased(&self.bias).try_reshape::<DynRank>(&shape)?,
        );
        let (rm, rv): (Tensor<T, DynRank, D>, Tensor<T, DynRank, D>) = (
            self.running_mean.try_reshape(&shape)?,
            self.running_var.try_reshape(&shape)?,
        );
        let inv = Var::constant(rv).add_scalar(self.eps).rsqrt();
        let y = xe.try_sub(&Var::constant(rm))?.try_mul(&inv)?;
        let y = y.try_mul(&w)?.try_add(&b)?;
        Ok(restored(&y, x.dims()))
    }

    /// Moves the running statistics towards the batch's `mean` and
    /// (biased) `var` over `count` values per channel.
    fn update_running(
        &self,
        mean: &Tensor<T, DynRank, D>,
        var: &Tensor<T, DynRank, D>,
        count: usize,
    ) -> Result<(), D::Error> {
        let _g = no_grad();
        let m = self.momentum;
        let keep = T::one() - m;
        let unbiased = T::from_f64(count as f64 / (count - 1) as f64);
        let c = [self.weight.dims()[0] as isize];
        let step = |batch: &Tensor<T, DynRank, D>, running: &Tensor<T, (C,), D>, scale: T| {
            Var::constant(batch.try_reshape::<DynRank>(&c)?)
                .mul_scalar(m * scale)
                .try_add(&Var::constant(running.share().into_dyn()).mul_scalar(keep))
        };
        let new_mean = step(mean, &self.running_mean, T::one())?;
        let new_var = step(var, &self.running_var, unbiased)?;
        let (new_mean, new_var) = (new_mean.value(), new_var.value());
        self.running_mean.share().try_copy_from(new_mean)?;
        self.running_var.share().try_copy_from(new_var)?;
        Ok(())
    }

    /// `x` `(N, C, ...)` normalised per channel with the batch's statistics
    /// (training mode, which also updates the running statistics) or the
    /// running ones (evaluation mode), then scaled and shifted per
    /// channel. `X` must have the layer's channel count (a compile error
    /// otherwise).
    ///
    /// # Panics
    /// With the message of [`BatchNorm::try_forward`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::BatchNorm2d;
    /// use shaped::{Const, Shape, Tensor};
    /// let bn: BatchNorm2d<Const<3>> = BatchNorm2d::new();
    /// let x = Var::param(Tensor::<f32, Shape![4, 3, 5, 5]>::randn(0));
    /// let y = bn.forward(&x);
    /// let mean = y.value().mean_dims(&[0, 2, 3], false).to_vec();
    /// assert!(mean.iter().all(|m| m.abs() < 1e-5));
    /// ```
    #[track_caller]
    pub fn forward<X: ChannelsFirst<C>>(&self, x: &Var<T, X, D>) -> Var<T, X, D> {
        self.try_forward(x).or_panic()
    }
}

impl<C: Dim, T: Float, D: GradDevice<T>> core::fmt::Debug for BatchNorm<C, T, D> {
    /// PyTorch's summary, without the weights.
    ///
    /// ```
    /// use shaped::nn::BatchNorm2d;
    /// use shaped::Const;
    /// let b: BatchNorm2d<Const<8>> = BatchNorm2d::new();
    /// assert_eq!(format!("{b:?}"),
    ///     "BatchNorm(8, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True)");
    /// ```
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "BatchNorm({}, eps={:e}, momentum={}, affine=True, track_running_stats=True)",
            self.weight.dims()[0],
            self.eps.to_f64() as f32,
            self.momentum.to_f64() as f32
        )
    }
}

impl<C: Dim, T: Float, D: GradDevice<T>> Parameters<T, D> for BatchNorm<C, T, D> {
    /// The weight, then the bias (the running statistics are not
    /// parameters).
    fn visit_params(&self, f: &mut dyn FnMut(&Var<T, DynRank, D>)) {
        self.weight.visit_params(f);
        self.bias.visit_params(f);
    }

    /// `prefix.weight`, `prefix.bias`, as PyTorch names them.
    fn visit_named_params(&self, prefix: &str, f: &mut dyn FnMut(&str, &Var<T, DynRank, D>)) {
        self.weight
            .visit_named_params(&param_key(prefix, "weight"), f);
        self.bias.visit_named_params(&param_key(prefix, "bias"), f);
    }

    /// `prefix.running_mean`, `prefix.running_var` and
    /// `prefix.num_batches_tracked`, PyTorch's buffers.
    fn visit_named_buffers(&self, prefix: &str, f: &mut dyn FnMut(&str, Buffer<T, D>)) {
        let stat = |t: &Tensor<T, (C,), D>| Buffer::Values(t.share().into_dyn());
        f(&param_key(prefix, "running_mean"), stat(&self.running_mean));
        f(&param_key(prefix, "running_var"), stat(&self.running_var));
        f(
            &param_key(prefix, "num_batches_tracked"),
            Buffer::Count(Arc::clone(&self.batches)),
        );
    }
}

/// `torch.nn.GroupNorm(G, C)`: the channels of a channels-first input are
/// split into `groups` groups, each normalised over its channels and
/// positions (mean 0, biased variance 1, plus `eps`), then scaled and
/// shifted per channel. Statistics are per sample, so training and
/// evaluation compute the same thing.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::GroupNorm;
/// use shaped::{Const, Shape, Tensor};
/// let gn: GroupNorm<Const<4>, f64> = GroupNorm::new(2);
/// let x = Var::param(Tensor::<f64, Shape![1, 4, 1]>::from_vec(vec![1., 3., 10., 30.]));
/// let y = gn.forward(&x).value().to_vec();
/// assert!((y[0] + 1.).abs() < 1e-4 && (y[3] - 1.).abs() < 1e-4);
/// ```
pub struct GroupNorm<C: Dim, T: Float = f32, D: Device = Cpu> {
    /// The scale, `(C,)`.
    pub weight: Var<T, (C,), D>,
    /// The shift, `(C,)`.
    pub bias: Var<T, (C,), D>,
    /// Added to the variance (PyTorch's default `1e-5`).
    pub eps: T,
    groups: usize,
}

impl<C: FixedDim, T: Float> GroupNorm<C, T> {
    /// `groups` groups over `C` channels, weight ones, bias zeros, `eps =
    /// 1e-5`.
    ///
    /// # Panics
    /// As PyTorch, when `groups` does not divide `C`.
    ///
    /// ```
    /// use shaped::nn::GroupNorm;
    /// use shaped::Const;
    /// assert_eq!(GroupNorm::<Const<32>>::new(8).groups(), 8);
    /// ```
    #[track_caller]
    pub fn new(groups: usize) -> Self {
        Self::from_tensors(groups, Tensor::ones(), Tensor::zeros())
    }
}

impl<C: Dim, T: Float, D: GradDevice<T>> GroupNorm<C, T, D> {
    /// `groups` groups with the given scale and shift (made parameters).
    ///
    /// # Panics
    /// When `groups` is 0 or does not divide the channel count (PyTorch's
    /// message), or the two tensors have different sizes.
    ///
    /// ```
    /// use shaped::nn::GroupNorm;
    /// use shaped::{Shape, Tensor};
    /// let w = Tensor::<f32, Shape![6]>::ones();
    /// let gn = GroupNorm::from_tensors(3, w.clone(), w.zeros_like());
    /// assert_eq!(gn.groups(), 3);
    /// ```
    #[track_caller]
    pub fn from_tensors(
        groups: usize,
        weight: Tensor<T, (C,), D>,
        bias: Tensor<T, (C,), D>,
    ) -> Self {
        assert_eq!(
            weight.dims(),
            bias.dims(),
            "GroupNorm: the weight and the bias must have the same sizes"
        );
        assert!(
            groups > 0 && weight.dims()[0].is_multiple_of(groups),
            "num_channels must be divisible by num_groups"
        );
        GroupNorm {
            weight: Var::param(weight),
            bias: Var::param(bias),
            eps: T::from_f64(1e-5),
            groups,
        }
    }

    /// The number of groups.
    ///
    /// ```
    /// use shaped::nn::GroupNorm;
    /// use shaped::Const;
    /// assert_eq!(GroupNorm::<Const<4>>::new(4).groups(), 4);
    /// ```
    pub fn groups(&self) -> usize {
        self.groups
    }

    /// `x` normalised per group, as [`GroupNorm::forward`].
    ///
    /// # Errors
    /// PyTorch's error when the input's channel count is not divisible by
    /// the group count, or differs from the layer's.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::GroupNorm;
    /// use shaped::{Dyn, Shape, Tensor};
    /// let w = Tensor::<f32, Shape![_]>::try_ones(&[4]).unwrap();
    /// let gn = GroupNorm::from_tensors(4, w.clone(), w.zeros_like());
    /// let x = Var::constant(Tensor::<f32, (Dyn, Dyn, Dyn, Dyn)>::try_zeros(&[2, 6, 5, 5]).unwrap());
    /// assert_eq!(gn.try_forward(&x).unwrap_err().to_string(), "Expected number of channels in \
    ///     input to be divisible by num_groups, but got input of shape [2, 6, 5, 5] and num_groups=4");
    /// ```
    pub fn try_forward<X: Shape>(&self, x: &Var<T, X, D>) -> Result<Var<T, X, D>, D::Error> {
        let d = x.dims();
        let c = self.weight.dims()[0];
        if d.len() < 2 || !d[1].is_multiple_of(self.groups) {
            return Err(ShapeError::Invalid(format!(
                "Expected number of channels in input to be divisible by num_groups, but got \
                 input of shape {d:?} and num_groups={}",
                self.groups
            ))
            .into());
        }
        check_channels("weight", c, d)?;
        let grouped: Var<T, DynRank, D> =
            erased(x).try_reshape(&[d[0] as isize, self.groups as isize, -1])?;
        let mean = grouped.try_mean_dims(&[-1], true)?;
        let centred = grouped.try_sub(&mean)?;
        let var = centred.square().try_mean_dims(&[-1], true)?;
        let normed = centred.try_mul(&var.add_scalar(self.eps).rsqrt())?;
        let sizes: Vec<isize> = d.iter().map(|&v| v as isize).collect();
        let shape = per_channel(c, d.len());
        let y = normed
            .try_reshape::<DynRank>(&sizes)?
            .try_mul(&erased(&self.weight).try_reshape::<DynRank>(&shape)?)?
            .try_add(&erased(&self.bias).try_reshape::<DynRank>(&shape)?)?;
        Ok(restored(&y, d))
    }

    /// `x` `(N, C, ...)` normalised over each group of `C / groups`
    /// channels and all positions, then scaled and shifted per channel.
    /// `X` must have the layer's channel count (a compile error
    /// otherwise).
    ///
    /// # Panics
    /// With the message of [`GroupNorm::try_forward`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::GroupNorm;
    /// use shaped::{Const, Shape, Tensor};
    /// let gn: GroupNorm<Const<8>> = GroupNorm::new(4);
    /// let x = Var::param(Tensor::<f32, Shape![2, 8, 3, 3]>::randn(0));
    /// assert_eq!(gn.forward(&x).dims(), &[2, 8, 3, 3]);
    /// ```
    #[track_caller]
    pub fn forward<X: ChannelsFirst<C>>(&self, x: &Var<T, X, D>) -> Var<T, X, D> {
        self.try_forward(x).or_panic()
    }
}

impl<C: Dim, T: Float, D: GradDevice<T>> core::fmt::Debug for GroupNorm<C, T, D> {
    /// PyTorch's summary, without the weights.
    ///
    /// ```
    /// use shaped::nn::GroupNorm;
    /// use shaped::Const;
    /// let g: GroupNorm<Const<8>> = GroupNorm::new(2);
    /// assert_eq!(format!("{g:?}"), "GroupNorm(2, 8, eps=1e-5, affine=True)");
    /// ```
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "GroupNorm({}, {}, eps={:e}, affine=True)",
            self.groups,
            self.weight.dims()[0],
            self.eps.to_f64() as f32
        )
    }
}

impl<C: Dim, T: Float, D: GradDevice<T>> Parameters<T, D> for GroupNorm<C, T, D> {
    /// The weight, then the bias.
    fn visit_params(&self, f: &mut dyn FnMut(&Var<T, DynRank, D>)) {
        self.weight.visit_params(f);
        self.bias.visit_params(f);
    }

    /// `prefix.weight`, `prefix.bias`, as PyTorch names them.
    fn visit_named_params(&self, prefix: &str, f: &mut dyn FnMut(&str, &Var<T, DynRank, D>)) {
        self.weight
            .visit_named_params(&param_key(prefix, "weight"), f);
        self.bias.visit_named_params(&param_key(prefix, "bias"), f);
    }
}
