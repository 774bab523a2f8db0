//! `Conv2d<I, O, K, S, P>` and `Conv1d<I, O, K, S, P>`: convolution layers
//! whose channel counts and kernel size are dimension types and whose
//! stride and padding are constants, so that a wrong channel count fails
//! at `cargo check` and an output size the arguments do not give fails at
//! `cargo build`, with the formula's values.

use super::init::{kaiming_uniform, kaiming_uniform_bound, split_seed, uniform};
use super::params::{Parameters, param_key};
use crate::Tensor;
use crate::autograd::{GradDevice, Var};
use crate::device::{Cpu, Device};
use crate::element::Float;
use crate::ops::conv::ConvOptions;
use crate::shape::const_message::ConstMessage;
use crate::shape::{Const, Dim, Dyn, DynRank, FixedDim, One};

/// Holds when an input of `Self` channels fits a layer of `I` channels:
/// the same type, or a `Dyn` input (checked at run time). A layer of `Dyn`
/// channels takes `Dyn` inputs (as [`Linear<Dyn, _>`](super::Linear) does).
///
/// ```
/// use shaped::nn::Channels;
/// use shaped::{Const, Dyn};
/// fn fits<C: Channels<I>, I: shaped::Dim>() {}
/// fits::<Const<3>, Const<3>>();
/// fits::<Dyn, Const<3>>();
/// ```
#[diagnostic::on_unimplemented(
    message = "a layer of `{I}` channels cannot take an input of `{Self}` channels",
    label = "`{Self}` channels here, the layer takes `{I}`",
    note = "inputs are channels-first, as in PyTorch: `(N, C, H, W)` or `(N, C, L)`, and `C` must be the layer's channel count"
)]
pub trait Channels<I: Dim>: Dim {}

impl<I: Dim> Channels<I> for I {}
#[diagnostic::do_not_recommend]
impl<const N: usize> Channels<Const<N>> for Dyn {}
#[diagnostic::do_not_recommend]
impl Channels<One> for Dyn {}

/// The build-time check that a static output size `Out` is what a static
/// input size `In`, kernel `K`, stride `S` and padding `P` give:
/// `(In + 2P - K) / S + 1`.
pub(crate) struct OutputSize<In, Out, K, const S: usize, const P: usize>(
    core::marker::PhantomData<(In, Out, K)>,
);

impl<In: Dim, Out: Dim, K: FixedDim, const S: usize, const P: usize> OutputSize<In, Out, K, S, P> {
    /// Evaluates to `()`, or stops the build naming the formula's values.
    pub(crate) const CHECK: () = {
        assert!(S > 0, "a convolution's stride must be at least 1");
        if let Some(h) = In::SIZE {
            let padded = h + 2 * P;
            if padded < K::N {
                let m = ConstMessage::new()
                    .text("convolution: kernel size ")
                    .number(K::N)
                    .text(" is larger than the padded input, H + 2P = ")
                    .number(h)
                    .text(" + 2*")
                    .number(P)
                    .text(" = ")
                    .number(padded);
                panic!("{}", m.as_str());
            }
            let out = (padded - K::N) / S + 1;
            if let Some(o) = Out::SIZE
                && o != out
            {
                let m = ConstMessage::new()
                    .text("convolution: the result type says output size ")
                    .number(o)
                    .text(", but (H + 2P - K) / S + 1 = (")
                    .number(h)
                    .text(" + 2*")
                    .number(P)
                    .text(" - ")
                    .number(K::N)
                    .text(") / ")
                    .number(S)
                    .text(" + 1 = ")
                    .number(out);
                panic!("{}", m.as_str());
            }
        }
    };
}

/// A 2-d convolution layer, as `torch.nn.Conv2d(I, O, K, stride=S,
/// padding=P)`: weight `(O, I, K, K)` (PyTorch's layout), bias `(O,)`.
///
/// `I`, `O` and the kernel size `K` are dimension types (`One` for a 1×1
/// kernel); the stride `S` and padding `P` are constants (defaults 1 and
/// 0). An input with another channel count does not compile. The output's
/// spatial sizes are stated by the caller (in the result type), and where
/// the input's and the output's are static the build checks them against
/// `(H + 2P - K) / S + 1`. For groups, dilation, `"same"` padding or a
/// non-square kernel, call [`Var::conv2d`] with the layer's tensors.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::Conv2d;
/// use shaped::{Const, One, Shape, Tensor};
/// // 1 channel in, 8 out, 3x3 kernel, stride 1, padding 1: sizes kept.
/// let conv: Conv2d<One, Const<8>, Const<3>, 1, 1> = Conv2d::new(0);
/// let x = Var::constant(Tensor::<f32, Shape![4, 1, 28, 28]>::ones());
/// let y: Var<f32, Shape![4, 8, 28, 28]> = conv.forward(&x);
/// assert_eq!(y.dims(), &[4, 8, 28, 28]);
/// ```
///
/// A wrong output size is a build error naming the formula's values:
///
/// ```compile_fail
/// # use shaped::autograd::Var;
/// # use shaped::nn::Conv2d;
/// # use shaped::{Const, One, Shape, Tensor};
/// let conv: Conv2d<One, Const<8>, Const<3>, 2> = Conv2d::new(0);
/// let x = Var::constant(Tensor::<f32, Shape![4, 1, 28, 28]>::ones());
/// let y: Var<f32, Shape![4, 8, 14, 14]> = conv.forward(&x); // (28 - 3) / 2 + 1 = 13
/// ```
pub struct Conv2d<
    I: Dim,
    O: Dim,
    K: Dim,
    const S: usize = 1,
    const P: usize = 0,
    T: Float = f32,
    D: Device = Cpu,
> {
    /// The filters, `(O, I, K, K)`.
    pub weight: Var<T, (O, I, K, K), D>,
    /// The bias, `(O,)`, or `None` (`bias=False`).
    pub bias: Option<Var<T, (O,), D>>,
}

/// A 1-d convolution layer, as `torch.nn.Conv1d(I, O, K, stride=S,
/// padding=P)`: weight `(O, I, K)`, bias `(O,)`; inputs `(N, I, L)`.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::Conv1d;
/// use shaped::{Const, Dyn, Shape, Tensor};
/// let conv: Conv1d<Const<2>, Const<4>, Const<5>, 2> = Conv1d::new(0);
/// let x = Var::constant(Tensor::<f32, Shape![3, 2, _]>::try_ones(&[3, 2, 11]).unwrap());
/// let y: Var<f32, (Const<3>, Const<4>, Dyn)> = conv.forward(&x);
/// assert_eq!(y.dims(), &[3, 4, 4]); // (11 - 5) / 2 + 1
/// ```
pub struct Conv1d<
    I: Dim,
    O: Dim,
    K: Dim,
    const S: usize = 1,
    const P: usize = 0,
    T: Float = f32,
    D: Device = Cpu,
> {
    /// The filters, `(O, I, K)`.
    pub weight: Var<T, (O, I, K), D>,
    /// The bias, `(O,)`, or `None` (`bias=False`).
    pub bias: Option<Var<T, (O,), D>>,
}

macro_rules! conv_layer {
    ($name:ident, $torch:literal, $rank:literal, [$($k:ident),+], $kernel:literal) => {
        impl<I: FixedDim, O: FixedDim, K: FixedDim, const S: usize, const P: usize, T: Float>
            $name<I, O, K, S, P, T>
        {
            #[doc = concat!("A layer initialised as PyTorch initialises `nn.", $torch, "`: weight and bias from `U(-1/√fan_in, 1/√fan_in)` (`kaiming_uniform_(a = √5)`), `fan_in = I × ", $kernel, "`, drawn from `seed`.")]
            ///
            /// ```
            /// use shaped::nn::{Conv2d, Parameters};
            /// use shaped::Const;
            /// let c: Conv2d<Const<2>, Const<4>, Const<3>> = Conv2d::new(1);
            /// assert_eq!(c.num_params(), 4 * 2 * 9 + 4);
            /// let bound = 1. / (18f32).sqrt();
            /// assert!(c.weight.value().to_vec().iter().all(|w| w.abs() <= bound));
            /// ```
            pub fn new(seed: u64) -> Self {
                let (ws, bs) = split_seed(seed);
                let dims = [O::N, I::N $(, $k::N)+];
                let weight = kaiming_uniform(&dims, 5f64.sqrt(), ws)
                    .expect("static sizes fit their shape");
                let fan_in: usize = dims[1..].iter().product();
                let bound = T::from_f64(kaiming_uniform_bound(fan_in, 5f64.sqrt()));
                let bias = uniform(&[O::N], bound, bs).expect("static sizes fit their shape");
                $name {
                    weight: Var::param(weight),
                    bias: Some(Var::param(bias)),
                }
            }
        }

        impl<I: Dim, O: Dim, K: Dim, const S: usize, const P: usize, T: Float, D: GradDevice<T>>
            $name<I, O, K, S, P, T, D>
        {
            /// The same layer without its bias (`bias=False`).
            ///
            /// ```
            /// use shaped::nn::{Conv1d, Parameters};
            /// use shaped::Const;
            /// let c: Conv1d<Const<2>, Const<4>, Const<3>> = Conv1d::new(0).without_bias();
            /// assert_eq!(c.num_params(), 24);
            /// ```
            pub fn without_bias(self) -> Self {
                $name { bias: None, ..self }
            }

            /// A layer with the given weight and bias (made parameters):
            /// trained or reference values, or a layer on another device.
            ///
            /// ```
            /// use shaped::nn::Conv1d;
            /// use shaped::{Const, One, Shape, Tensor};
            /// let w = Tensor::<f32, Shape![1, 1, 2]>::from_vec(vec![1., -1.]);
            /// let c: Conv1d<One, One, Const<2>> = Conv1d::from_tensors(w, None);
            /// assert!(c.bias.is_none());
            /// ```
            #[allow(clippy::type_complexity)]
            pub fn from_tensors(
                weight: Tensor<T, (O, I $(, $k)+), D>,
                bias: Option<Tensor<T, (O,), D>>,
            ) -> Self {
                $name {
                    weight: Var::param(weight),
                    bias: bias.map(Var::param),
                }
            }

            /// The layer's arguments for the functional form (stride `S`,
            /// padding `P`).
            ///
            /// ```
            /// use shaped::nn::Conv2d;
            /// use shaped::Const;
            /// let c: Conv2d<Const<3>, Const<8>, Const<3>, 2, 1> = Conv2d::new(0);
            /// assert_eq!(c.options().stride, [2, 2]);
            /// ```
            pub fn options(&self) -> ConvOptions<$rank> {
                ConvOptions::new().stride(S).padding(P)
            }
        }

        impl<I: Dim, O: Dim, K: Dim, const S: usize, const P: usize, T: Float, D: GradDevice<T>>
            core::fmt::Debug for $name<I, O, K, S, P, T, D>
        {
            /// PyTorch's summary, without the weights.
            ///
            /// ```
            /// use shaped::nn::Conv2d;
            /// use shaped::{Const, One};
            /// let c: Conv2d<One, Const<8>, Const<3>, 2, 1> = Conv2d::new(0);
            /// assert_eq!(format!("{c:?}"), "Conv2d(1, 8, kernel_size=(3, 3), stride=(2, 2), padding=(1, 1))");
            /// ```
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                let d = self.weight.dims();
                let axes = |v: usize| {
                    let s = vec![v.to_string(); $rank].join(", ");
                    if $rank == 1 { format!("({s},)") } else { format!("({s})") }
                };
                write!(
                    f,
                    "{}({}, {}, kernel_size={}, stride={}",
                    $torch, d[1], d[0], axes(d[2]), axes(S)
                )?;
                if P != 0 {
                    write!(f, ", padding={}", axes(P))?;
                }
                if self.bias.is_none() {
                    write!(f, ", bias=False")?;
                }
                write!(f, ")")
            }
        }

        impl<I: Dim, O: Dim, K: Dim, const S: usize, const P: usize, T: Float, D: GradDevice<T>>
            Parameters<T, D> for $name<I, O, K, S, P, T, D>
        {
            /// The weight, then the bias (PyTorch's order).
            fn visit_params(&self, f: &mut dyn FnMut(&Var<T, DynRank, D>)) {
                self.weight.visit_params(f);
                self.bias.visit_params(f);
            }

            /// `prefix.weight`, `prefix.bias`, as PyTorch names them.
            fn visit_named_params(
                &self,
                prefix: &str,
                f: &mut dyn FnMut(&str, &Var<T, DynRank, D>),
            ) {
                self.weight.visit_named_params(&param_key(prefix, "weight"), f);
                self.bias.visit_named_params(&param_key(prefix, "bias"), f);
            }
        }

        impl<I: Dim, O: Dim, K: Dim, const S: usize, const P: usize, T: Float, D: Device> Clone
            for $name<I, O, K, S, P, T, D>
        {
            /// Another handle on the same parameters.
            fn clone(&self) -> Self {
                $name {
                    weight: self.weight.clone(),
                    bias: self.bias.clone(),
                }
            }
        }
    };
}

conv_layer!(Conv2d, "Conv2d", 2, [K, K], "K × K");
conv_layer!(Conv1d, "Conv1d", 1, [K], "K");

impl<I: Dim, O: Dim, K: FixedDim, const S: usize, const P: usize, T: Float, D: GradDevice<T>>
    Conv2d<I, O, K, S, P, T, D>
{
    /// The convolution of `x` `(N, C, H, W)`, `C` the layer's `I`, into
    /// `(N, O, HO, WO)`. Where `H` and `HO` (or `W` and `WO`) are static,
    /// the build checks `HO = (H + 2P - K) / S + 1`; otherwise the run
    /// does.
    ///
    /// # Panics
    /// When a run-time size does not fit (a `Dyn` channel count, or a
    /// `Dyn` spatial size that gives another output), with PyTorch's
    /// message.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::Conv2d;
    /// use shaped::{Const, Dyn, Shape, Tensor};
    /// let conv: Conv2d<Const<3>, Const<16>, Const<3>, 2, 1> = Conv2d::new(0);
    /// let x = Var::constant(Tensor::<f32, Shape![_, 3, _, _]>::try_ones(&[2, 3, 32, 24]).unwrap());
    /// let y: Var<f32, (Dyn, Const<16>, Dyn, Dyn)> = conv.forward(&x);
    /// assert_eq!(y.dims(), &[2, 16, 16, 12]);
    /// ```
    #[track_caller]
    pub fn forward<N: Dim, C: Channels<I>, H: Dim, W: Dim, HO: Dim, WO: Dim>(
        &self,
        x: &Var<T, (N, C, H, W), D>,
    ) -> Var<T, (N, O, HO, WO), D> {
        let () = OutputSize::<H, HO, K, S, P>::CHECK;
        let () = OutputSize::<W, WO, K, S, P>::CHECK;
        x.conv2d(&self.weight, self.bias.as_ref(), &self.options())
    }
}

impl<I: Dim, O: Dim, K: FixedDim, const S: usize, const P: usize, T: Float, D: GradDevice<T>>
    Conv1d<I, O, K, S, P, T, D>
{
    /// The convolution of `x` `(N, C, L)`, `C` the layer's `I`, into
    /// `(N, O, LO)`; a static `L` and `LO` are checked at build time
    /// against `(L + 2P - K) / S + 1`.
    ///
    /// # Panics
    /// When a run-time size does not fit, with PyTorch's message.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::Conv1d;
    /// use shaped::{Const, Shape, Tensor};
    /// let conv: Conv1d<Const<4>, Const<4>, Const<3>, 1, 1> = Conv1d::new(0);
    /// let x = Var::constant(Tensor::<f32, Shape![2, 4, 50]>::ones());
    /// let y: Var<f32, Shape![2, 4, 50]> = conv.forward(&x);
    /// assert_eq!(y.dims(), &[2, 4, 50]);
    /// ```
    #[track_caller]
    pub fn forward<N: Dim, C: Channels<I>, L: Dim, LO: Dim>(
        &self,
        x: &Var<T, (N, C, L), D>,
    ) -> Var<T, (N, O, LO), D> {
        let () = OutputSize::<L, LO, K, S, P>::CHECK;
        x.conv1d(&self.weight, self.bias.as_ref(), &self.options())
    }
}
