//! `DepthwiseConv2d<C, K, S, P>`: the depthwise convolution layer of
//! MobileNet-style blocks (`torch.nn.Conv2d(C, C, K, groups=C)`), each
//! channel filtered by its own `K × K` kernel; channel count and kernel
//! size as dimension types, stride and padding as constants, as
//! [`Conv2d`](super::Conv2d).

use super::conv::{Channels, OutputSize};
use super::init::{kaiming_uniform, kaiming_uniform_bound, split_seed, uniform};
use super::params::{Parameters, param_key};
use crate::Tensor;
use crate::autograd::{GradDevice, Var};
use crate::device::{Cpu, Device};
use crate::element::Float;
use crate::ops::conv::ConvOptions;
use crate::shape::{Dim, DynRank, FixedDim, One};

/// A depthwise 2-d convolution layer, as `torch.nn.Conv2d(C, C, K,
/// stride=S, padding=P, groups=C)`: weight `(C, 1, K, K)` (PyTorch's
/// layout, so a PyTorch state dict loads as it is), bias `(C,)`.
///
/// Channel `c` of the output is channel `c` of the input convolved with
/// filter `c`. An input with another channel count does not compile; the
/// output's spatial sizes are stated by the caller and, where static,
/// checked at build time against `(H + 2P - K) / S + 1`. For a channel
/// multiplier (`out_channels = m·C`), dilation or a non-square kernel,
/// call [`Var::conv2d`] with [`ConvOptions::groups`].
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::DepthwiseConv2d;
/// use shaped::{Const, Shape, Tensor};
/// // 3x3 per channel, padding 1: sizes kept, channels filtered apart.
/// let dw: DepthwiseConv2d<Const<16>, Const<3>, 1, 1> = DepthwiseConv2d::new(0);
/// let x = Var::constant(Tensor::<f32, Shape![2, 16, 8, 8]>::ones());
/// let y: Var<f32, Shape![2, 16, 8, 8]> = dw.forward(&x);
/// assert_eq!(y.dims(), &[2, 16, 8, 8]);
/// ```
///
/// Another channel count is a compile error:
///
/// ```compile_fail
/// # use shaped::autograd::Var;
/// # use shaped::nn::DepthwiseConv2d;
/// # use shaped::{Const, Shape, Tensor};
/// let dw: DepthwiseConv2d<Const<16>, Const<3>, 1, 1> = DepthwiseConv2d::new(0);
/// let x = Var::constant(Tensor::<f32, Shape![2, 8, 8, 8]>::ones());
/// let y: Var<f32, Shape![2, 16, 8, 8]> = dw.forward(&x);
/// ```
pub struct DepthwiseConv2d<
    C: Dim,
    K: Dim,
    const S: usize = 1,
    const P: usize = 0,
    T: Float = f32,
    D: Device = Cpu,
> {
    /// The filters, `(C, 1, K, K)`: one per channel.
    pub weight: Var<T, (C, One, K, K), D>,
    /// The bias, `(C,)`, or `None` (`bias=False`).
    pub bias: Option<Var<T, (C,), D>>,
}

impl<C: FixedDim, K: FixedDim, const S: usize, const P: usize, T: Float>
    DepthwiseConv2d<C, K, S, P, T>
{
    /// A layer initialised as PyTorch initialises `nn.Conv2d(C, C, K,
    /// groups=C)`: weight and bias from `U(-1/√fan_in, 1/√fan_in)`
    /// (`kaiming_uniform_(a = √5)`), the fan-in of a `(C, 1, K, K)` weight
    /// being `K × K`; drawn from `seed`.
    ///
    /// ```
    /// use shaped::nn::{DepthwiseConv2d, Parameters};
    /// use shaped::Const;
    /// let dw: DepthwiseConv2d<Const<4>, Const<3>> = DepthwiseConv2d::new(1);
    /// assert_eq!(dw.num_params(), 4 * 9 + 4);
    /// assert!(dw.weight.value().to_vec().iter().all(|w| w.abs() <= 1. / 3.));
    /// ```
    pub fn new(seed: u64) -> Self {
        let (ws, bs) = split_seed(seed);
        let dims = [C::N, 1, K::N, K::N];
        let weight = kaiming_uniform(&dims, 5f64.sqrt(), ws).expect("static sizes fit their shape");
        let bound = T::from_f64(kaiming_uniform_bound(K::N * K::N, 5f64.sqrt()));
        let bias = uniform(&[C::N], bound, bs).expect("static sizes fit their shape");
        DepthwiseConv2d {
            weight: Var::param(weight),
            bias: Some(Var::param(bias)),
        }
    }
}

impl<C: Dim, K: Dim, const S: usize, const P: usize, T: Float, D: GradDevice<T>>
    DepthwiseConv2d<C, K, S, P, T, D>
{
    /// The same layer without its bias (`bias=False`).
    ///
    /// ```
    /// use shaped::nn::{DepthwiseConv2d, Parameters};
    /// use shaped::Const;
    /// let dw: DepthwiseConv2d<Const<4>, Const<3>> = DepthwiseConv2d::new(0).without_bias();
    /// assert_eq!(dw.num_params(), 36);
    /// ```
    pub fn without_bias(self) -> Self {
        DepthwiseConv2d { bias: None, ..self }
    }

    /// A layer with the given weight `(C, 1, K, K)` and bias (made
    /// parameters): trained or reference values, or a layer on another
    /// device.
    ///
    /// ```
    /// use shaped::nn::DepthwiseConv2d;
    /// use shaped::{Const, Shape, Tensor};
    /// let w = Tensor::<f32, Shape![2, 1, 3, 3]>::ones();
    /// let dw: DepthwiseConv2d<Const<2>, Const<3>> = DepthwiseConv2d::from_tensors(w, None);
    /// assert!(dw.bias.is_none());
    /// ```
    pub fn from_tensors(
        weight: Tensor<T, (C, One, K, K), D>,
        bias: Option<Tensor<T, (C,), D>>,
    ) -> Self {
        DepthwiseConv2d {
            weight: Var::param(weight),
            bias: bias.map(Var::param),
        }
    }

    /// The layer's arguments for the functional form: stride `S`, padding
    /// `P`, one group per channel.
    ///
    /// ```
    /// use shaped::nn::DepthwiseConv2d;
    /// use shaped::Const;
    /// let dw: DepthwiseConv2d<Const<8>, Const<3>, 2, 1> = DepthwiseConv2d::new(0);
    /// assert_eq!((dw.options().stride, dw.options().groups), ([2, 2], 8));
    /// ```
    pub fn options(&self) -> ConvOptions<2> {
        ConvOptions::new()
            .stride(S)
            .padding(P)
            .groups(self.weight.dims()[0])
    }

    /// The depthwise convolution of `x` `(N, C', H, W)`, `C'` the layer's
    /// `C`, into `(N, C, HO, WO)`. Where `H` and `HO` (or `W` and `WO`)
    /// are static, the build checks `HO = (H + 2P - K) / S + 1`; otherwise
    /// the run does.
    ///
    /// # Panics
    /// When a run-time size does not fit (a `Dyn` channel count, or a
    /// `Dyn` spatial size that gives another output), with PyTorch's
    /// message.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::DepthwiseConv2d;
    /// use shaped::{Const, Dyn, Shape, Tensor};
    /// let dw: DepthwiseConv2d<Const<3>, Const<3>, 2, 1> = DepthwiseConv2d::new(0);
    /// let x = Var::constant(Tensor::<f32, Shape![_, 3, _, _]>::try_ones(&[2, 3, 9, 6]).unwrap());
    /// let y: Var<f32, (Dyn, Const<3>, Dyn, Dyn)> = dw.forward(&x);
    /// assert_eq!(y.dims(), &[2, 3, 5, 3]);
    /// ```
    #[track_caller]
    pub fn forward<N: Dim, CI: Channels<C>, H: Dim, W: Dim, HO: Dim, WO: Dim>(
        &self,
        x: &Var<T, (N, CI, H, W), D>,
    ) -> Var<T, (N, C, HO, WO), D>
    where
        K: FixedDim,
    {
        let () = OutputSize::<H, HO, K, S, P>::CHECK;
        let () = OutputSize::<W, WO, K, S, P>::CHECK;
        x.conv2d(&self.weight, self.bias.as_ref(), &self.options())
    }
}

impl<C: Dim, K: Dim, const S: usize, const P: usize, T: Float, D: GradDevice<T>> core::fmt::Debug
    for DepthwiseConv2d<C, K, S, P, T, D>
{
    /// PyTorch's summary of the equivalent `Conv2d`, without the weights.
    ///
    /// ```
    /// use shaped::nn::DepthwiseConv2d;
    /// use shaped::Const;
    /// let dw: DepthwiseConv2d<Const<8>, Const<3>, 1, 1> = DepthwiseConv2d::new(0);
    /// assert_eq!(format!("{dw:?}"),
    ///     "Conv2d(8, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1), groups=8)");
    /// ```
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let d = self.weight.dims();
        write!(
            f,
            "Conv2d({c}, {c}, kernel_size=({k}, {k}), stride=({S}, {S})",
            c = d[0],
            k = d[2]
        )?;
        if P != 0 {
            write!(f, ", padding=({P}, {P})")?;
        }
        write!(f, ", groups={}", d[0])?;
        if self.bias.is_none() {
            write!(f, ", bias=False")?;
        }
        write!(f, ")")
    }
}

impl<C: Dim, K: Dim, const S: usize, const P: usize, T: Float, D: GradDevice<T>> Parameters<T, D>
    for DepthwiseConv2d<C, K, S, P, T, D>
{
    /// The weight, then the bias (PyTorch's order).
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

impl<C: Dim, K: Dim, const S: usize, const P: usize, T: Float, D: Device> Clone
    for DepthwiseConv2d<C, K, S, P, T, D>
{
    /// Another handle on the same parameters.
    fn clone(&self) -> Self {
        DepthwiseConv2d {
            weight: self.weight.clone(),
            bias: self.bias.clone(),
        }
    }
}
