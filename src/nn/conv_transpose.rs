//! `ConvTranspose2d<I, O, K, S, P, OP>`: the transposed convolution layer
//! (a decoder's upsampling step), with channel counts and kernel size as
//! dimension types and stride, padding and output padding as constants,
//! as [`Conv2d`](super::Conv2d).

use super::conv::Channels;
use super::init::{kaiming_uniform, kaiming_uniform_bound, split_seed, uniform};
use super::params::{Parameters, param_key};
use crate::Tensor;
use crate::autograd::{GradDevice, Var};
use crate::device::{Cpu, Device};
use crate::element::Float;
use crate::ops::conv::ConvTransposeOptions;
use crate::shape::const_message::ConstMessage;
use crate::shape::{Dim, DynRank, FixedDim, OrPanic};

/// The build-time check that a static output size `Out` is what a static
/// input size `In` gives through a transposed convolution with kernel `K`,
/// stride `S`, padding `P` and output padding `OP`:
/// `(In - 1)·S - 2P + K + OP`.
struct TransposedSize<In, Out, K, const S: usize, const P: usize, const OP: usize>(
    core::marker::PhantomData<(In, Out, K)>,
);

impl<In: Dim, Out: Dim, K: FixedDim, const S: usize, const P: usize, const OP: usize>
    TransposedSize<In, Out, K, S, P, OP>
{
    /// Evaluates to `()`, or stops the build naming the formula's values.
    const CHECK: () = {
        assert!(
            S > 0,
            "a transposed convolution's stride must be at least 1"
        );
        assert!(
            OP < S,
            "output padding must be smaller than the stride (PyTorch's rule for dilation 1)"
        );
        if let Some(h) = In::SIZE {
            let full = if h == 0 { 0 } else { (h - 1) * S } + K::N + OP;
            if full <= 2 * P {
                let m = ConstMessage::new()
                    .text(
                        "transposed convolution: the output would be empty, (H - 1)*S + K + OP = ",
                    )
                    .number(full)
                    .text(" is not larger than 2P = ")
                    .number(2 * P);
                panic!("{}", m.as_str());
            }
            let out = full - 2 * P;
            if let Some(o) = Out::SIZE
                && o != out
            {
                let m = ConstMessage::new()
                    .text("transposed convolution: the result type says output size ")
                    .number(o)
                    .text(", but (H - 1)*S - 2P + K + OP = (")
                    .number(h)
                    .text(" - 1)*")
                    .number(S)
                    .text(" - 2*")
                    .number(P)
                    .text(" + ")
                    .number(K::N)
                    .text(" + ")
                    .number(OP)
                    .text(" = ")
                    .number(out);
                panic!("{}", m.as_str());
            }
        }
    };
}

/// A 2-d transposed convolution layer, as `torch.nn.ConvTranspose2d(I, O,
/// K, stride=S, padding=P, output_padding=OP)`: weight `(I, O, K, K)`
/// (PyTorch's layout for the transposed form), bias `(O,)`.
///
/// An input with another channel count does not compile. The output's
/// spatial sizes are stated by the caller and, where static, checked at
/// build time against `(H - 1)·S - 2P + K + OP`. For groups, dilation or a
/// non-square kernel, call [`Var::conv_transpose2d`] with the layer's
/// tensors.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::ConvTranspose2d;
/// use shaped::{Const, Shape, Tensor};
/// // DCGAN's upsampling: kernel 4, stride 2, padding 1 doubles the size.
/// let up: ConvTranspose2d<Const<8>, Const<4>, Const<4>, 2, 1> = ConvTranspose2d::new(0);
/// let x = Var::constant(Tensor::<f32, Shape![2, 8, 7, 7]>::ones());
/// let y: Var<f32, Shape![2, 4, 14, 14]> = up.forward(&x);
/// assert_eq!(y.dims(), &[2, 4, 14, 14]);
/// ```
///
/// A wrong output size is a build error naming the formula's values:
///
/// ```compile_fail
/// # use shaped::autograd::Var;
/// # use shaped::nn::ConvTranspose2d;
/// # use shaped::{Const, Shape, Tensor};
/// let up: ConvTranspose2d<Const<8>, Const<4>, Const<3>, 2, 1> = ConvTranspose2d::new(0);
/// let x = Var::constant(Tensor::<f32, Shape![2, 8, 7, 7]>::ones());
/// let y: Var<f32, Shape![2, 4, 14, 14]> = up.forward(&x); // (7 - 1)*2 - 2 + 3 = 13
/// ```
pub struct ConvTranspose2d<
    I: Dim,
    O: Dim,
    K: Dim,
    const S: usize = 1,
    const P: usize = 0,
    const OP: usize = 0,
    T: Float = f32,
    D: Device = Cpu,
> {
    /// The filters, `(I, O, K, K)`.
    pub weight: Var<T, (I, O, K, K), D>,
    /// The bias, `(O,)`, or `None` (`bias=False`).
    pub bias: Option<Var<T, (O,), D>>,
}

impl<
    I: FixedDim,
    O: FixedDim,
    K: FixedDim,
    const S: usize,
    const P: usize,
    const OP: usize,
    T: Float,
> ConvTranspose2d<I, O, K, S, P, OP, T>
{
    /// A layer initialised as PyTorch initialises `nn.ConvTranspose2d`:
    /// weight and bias from `U(-1/√fan_in, 1/√fan_in)`
    /// (`kaiming_uniform_(a = √5)`), where PyTorch's fan-in of the
    /// `(I, O, K, K)` weight is `O × K × K`; drawn from `seed`.
    ///
    /// ```
    /// use shaped::nn::{ConvTranspose2d, Parameters};
    /// use shaped::Const;
    /// let c: ConvTranspose2d<Const<2>, Const<4>, Const<3>> = ConvTranspose2d::new(1);
    /// assert_eq!(c.num_params(), 2 * 4 * 9 + 4);
    /// let bound = 1. / (36f32).sqrt();
    /// assert!(c.weight.value().to_vec().iter().all(|w| w.abs() <= bound));
    /// ```
    pub fn new(seed: u64) -> Self {
        let (ws, bs) = split_seed(seed);
        let dims = [I::N, O::N, K::N, K::N];
        let weight = kaiming_uniform(&dims, 5f64.sqrt(), ws).expect("static sizes fit their shape");
        let fan_in: usize = dims[1..].iter().product();
        let bound = T::from_f64(kaiming_uniform_bound(fan_in, 5f64.sqrt()));
        let bias = uniform(&[O::N], bound, bs).expect("static sizes fit their shape");
        ConvTranspose2d {
            weight: Var::param(weight),
            bias: Some(Var::param(bias)),
        }
    }
}

impl<
    I: Dim,
    O: Dim,
    K: Dim,
    const S: usize,
    const P: usize,
    const OP: usize,
    T: Float,
    D: GradDevice<T>,
> ConvTranspose2d<I, O, K, S, P, OP, T, D>
{
    /// The same layer without its bias (`bias=False`).
    ///
    /// ```
    /// use shaped::nn::{ConvTranspose2d, Parameters};
    /// use shaped::Const;
    /// let c: ConvTranspose2d<Const<2>, Const<4>, Const<3>> = ConvTranspose2d::new(0).without_bias();
    /// assert_eq!(c.num_params(), 72);
    /// ```
    pub fn without_bias(self) -> Self {
        ConvTranspose2d { bias: None, ..self }
    }

    /// A layer with the given weight `(I, O, K, K)` and bias (made
    /// parameters): trained or reference values, or a layer on another
    /// device.
    ///
    /// ```
    /// use shaped::nn::ConvTranspose2d;
    /// use shaped::{Const, One, Shape, Tensor};
    /// let w = Tensor::<f32, Shape![1, 1, 2, 2]>::ones();
    /// let c: ConvTranspose2d<One, One, Const<2>, 2> = ConvTranspose2d::from_tensors(w, None);
    /// assert!(c.bias.is_none());
    /// ```
    pub fn from_tensors(
        weight: Tensor<T, (I, O, K, K), D>,
        bias: Option<Tensor<T, (O,), D>>,
    ) -> Self {
        ConvTranspose2d {
            weight: Var::param(weight),
            bias: bias.map(Var::param),
        }
    }

    /// The layer's arguments for the functional form (stride `S`, padding
    /// `P`, output padding `OP`).
    ///
    /// ```
    /// use shaped::nn::ConvTranspose2d;
    /// use shaped::Const;
    /// let c: ConvTranspose2d<Const<3>, Const<8>, Const<3>, 2, 1, 1> = ConvTranspose2d::new(0);
    /// assert_eq!(c.options().output_padding, [1, 1]);
    /// ```
    pub fn options(&self) -> ConvTransposeOptions<2> {
        ConvTransposeOptions::new()
            .stride(S)
            .padding(P)
            .output_padding(OP)
    }

    /// The transposed convolution of `x` `(N, C, H, W)`, `C` the layer's
    /// `I`, into `(N, O, HO, WO)`. Where `H` and `HO` (or `W` and `WO`)
    /// are static, the build checks `HO = (H - 1)·S - 2P + K + OP`;
    /// otherwise the run does.
    ///
    /// # Panics
    /// When a run-time size does not fit (a `Dyn` channel count, or a
    /// `Dyn` spatial size that gives another output), with PyTorch's
    /// message.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::ConvTranspose2d;
    /// use shaped::{Const, Dyn, One, Shape, Tensor};
    /// let up: ConvTranspose2d<Const<3>, Const<2>, Const<3>, 2, 1, 1> = ConvTranspose2d::new(0);
    /// let x = Var::constant(Tensor::<f32, Shape![1, _, _, _]>::try_ones(&[1, 3, 5, 4]).unwrap());
    /// let y: Var<f32, (One, Const<2>, Dyn, Dyn)> = up.forward(&x);
    /// assert_eq!(y.dims(), &[1, 2, 10, 8]);
    /// ```
    #[track_caller]
    pub fn forward<N: Dim, C: Channels<I>, H: Dim, W: Dim, HO: Dim, WO: Dim>(
        &self,
        x: &Var<T, (N, C, H, W), D>,
    ) -> Var<T, (N, O, HO, WO), D>
    where
        K: FixedDim,
    {
        let () = TransposedSize::<H, HO, K, S, P, OP>::CHECK;
        let () = TransposedSize::<W, WO, K, S, P, OP>::CHECK;
        // The weight seen with the input's channel type (the same type, or
        // `Dyn`: the operation checks the count at run time).
        let weight: Var<T, (C, O, K, K), D> = self.weight.try_into_shape().or_panic();
        x.conv_transpose2d(&weight, self.bias.as_ref(), &self.options())
    }
}

impl<
    I: Dim,
    O: Dim,
    K: Dim,
    const S: usize,
    const P: usize,
    const OP: usize,
    T: Float,
    D: GradDevice<T>,
> core::fmt::Debug for ConvTranspose2d<I, O, K, S, P, OP, T, D>
{
    /// PyTorch's summary, without the weights.
    ///
    /// ```
    /// use shaped::nn::ConvTranspose2d;
    /// use shaped::Const;
    /// let c: ConvTranspose2d<Const<8>, Const<4>, Const<4>, 2, 1> = ConvTranspose2d::new(0);
    /// assert_eq!(format!("{c:?}"),
    ///     "ConvTranspose2d(8, 4, kernel_size=(4, 4), stride=(2, 2), padding=(1, 1))");
    /// ```
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let d = self.weight.dims();
        write!(
            f,
            "ConvTranspose2d({}, {}, kernel_size=({k}, {k}), stride=({S}, {S})",
            d[0],
            d[1],
            k = d[2]
        )?;
        if P != 0 {
            write!(f, ", padding=({P}, {P})")?;
        }
        if OP != 0 {
            write!(f, ", output_padding=({OP}, {OP})")?;
        }
        if self.bias.is_none() {
            write!(f, ", bias=False")?;
        }
        write!(f, ")")
    }
}

impl<
    I: Dim,
    O: Dim,
    K: Dim,
    const S: usize,
    const P: usize,
    const OP: usize,
    T: Float,
    D: GradDevice<T>,
> Parameters<T, D> for ConvTranspose2d<I, O, K, S, P, OP, T, D>
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

impl<I: Dim, O: Dim, K: Dim, const S: usize, const P: usize, const OP: usize, T: Float, D: Device>
    Clone for ConvTranspose2d<I, O, K, S, P, OP, T, D>
{
    /// Another handle on the same parameters.
    fn clone(&self) -> Self {
        ConvTranspose2d {
            weight: self.weight.clone(),
            bias: self.bias.clone(),
        }
    }
}
