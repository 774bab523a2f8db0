//! `LayerNorm<N>`: normalisation over the last axis, with a learned scale
//! and shift, on any device.

use super::erase::{erased, restored};
use super::params::{Parameters, param_key};
use crate::Tensor;
use crate::autograd::{GradDevice, Var};
use crate::device::{Cpu, Device};
use crate::element::Float;
use crate::shape::{
    Const, Dim, Dyn, DynRank, FixedDim, One, OrPanic, Shape, ShapeError, SplitLast,
};

/// Holds when inputs whose last dimension is `Self` fit a [`LayerNorm`]
/// over `N` features: the same type, or a `Dyn` input (checked at run
/// time). A layer of `Dyn` width takes `Dyn` inputs, as
/// [`Channels`](super::Channels). A mismatch of two static widths fails at
/// `cargo check`.
///
/// ```
/// use shaped::nn::NormalizedWidth;
/// use shaped::{Const, Dyn};
/// fn fits<W: NormalizedWidth<N>, N: shaped::Dim>() {}
/// fits::<Const<8>, Const<8>>();
/// fits::<Dyn, Const<8>>();
/// fits::<Dyn, Dyn>();
/// ```
#[diagnostic::on_unimplemented(
    message = "a `LayerNorm` over `{N}` features cannot take inputs whose last dimension is `{Self}`",
    label = "inputs `(..., {Self})`, the layer normalises `{N}` features",
    note = "the input's last dimension must be the layer's width (`N` in `LayerNorm<N>`), as PyTorch's `normalized_shape`"
)]
pub trait NormalizedWidth<N: Dim>: Dim {}

impl<N: Dim> NormalizedWidth<N> for N {}
#[diagnostic::do_not_recommend]
impl<const N: usize> NormalizedWidth<Const<N>> for Dyn {}
#[diagnostic::do_not_recommend]
impl NormalizedWidth<One> for Dyn {}

/// `torch.nn.LayerNorm(N)`: each row along the last axis (of size `N`) is
/// shifted to mean 0 and scaled to variance 1 (the biased variance, plus
/// `eps`), then multiplied by `weight` and shifted by `bias` (PyTorch's
/// initial values: ones and zeros). The layer lives on the device `D` of
/// its parameters ([`LayerNorm::from_tensors`] puts it on any device); its
/// forward pass is the same table operations there.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::LayerNorm;
/// use shaped::{Const, Shape, Tensor};
/// let ln: LayerNorm<Const<2>, f64> = LayerNorm::new();
/// let x = Var::param(Tensor::<f64, Shape![1, 2]>::from_vec(vec![1., 3.]));
/// let y: Var<f64, Shape![1, 2]> = ln.forward(&x);
/// let v = y.value().to_vec();
/// assert!((v[0] + 1.).abs() < 1e-5 && (v[1] - 1.).abs() < 1e-5);
/// ```
pub struct LayerNorm<N: Dim, T: Float = f32, D: Device = Cpu> {
    /// The scale, `(N,)`.
    pub weight: Var<T, (N,), D>,
    /// The shift, `(N,)`.
    pub bias: Var<T, (N,), D>,
    /// Added to the variance (PyTorch's default `1e-5`).
    pub eps: T,
}

impl<N: FixedDim, T: Float> LayerNorm<N, T> {
    /// Weight ones, bias zeros, `eps = 1e-5`, as PyTorch.
    ///
    /// ```
    /// use shaped::nn::{LayerNorm, Parameters};
    /// use shaped::Const;
    /// assert_eq!(LayerNorm::<Const<8>>::new().num_params(), 16);
    /// ```
    pub fn new() -> Self {
        LayerNorm {
            weight: Var::param(Tensor::ones()),
            bias: Var::param(Tensor::zeros()),
            eps: T::from_f64(1e-5),
        }
    }
}

impl<N: Dim, T: Float, D: GradDevice<T>> LayerNorm<N, T, D> {
    /// A layer with the given scale and shift `(N,)` (made parameters, on
    /// their device) and `eps = 1e-5`: how a layer is put on a GPU, or
    /// given sizes known only at run time.
    ///
    /// # Panics
    /// When the two have different sizes.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::LayerNorm;
    /// use shaped::{Shape, Tensor};
    /// let w = Tensor::<f64, Shape![_]>::try_from_vec(vec![2., 2.], &[2]).unwrap();
    /// let b = Tensor::<f64, Shape![_]>::try_from_vec(vec![0., 1.], &[2]).unwrap();
    /// let ln = LayerNorm::from_tensors(w, b);
    /// let x = Var::constant(Tensor::<f64, Shape![1, 2]>::from_vec(vec![1., 3.]).into_dyn());
    /// let y = ln.forward(&x).value().to_vec();
    /// assert!((y[0] + 2.).abs() < 1e-4 && (y[1] - 3.).abs() < 1e-4);
    /// ```
    #[track_caller]
    pub fn from_tensors(weight: Tensor<T, (N,), D>, bias: Tensor<T, (N,), D>) -> Self {
        assert_eq!(
            weight.dims(),
            bias.dims(),
            "LayerNorm: the weight and the bias must have the same sizes"
        );
        LayerNorm {
            weight: Var::param(weight),
            bias: Var::param(bias),
            eps: T::from_f64(1e-5),
        }
    }

    /// `(x - mean) / √(var + eps) · weight + bias` along the last axis of
    /// `x`, which must have size `N`: a static width other than `N` does
    /// not compile ([`NormalizedWidth`]); a `Dyn` one is checked at run time
    /// ([`LayerNorm::try_forward`]'s error).
    ///
    /// # Panics
    /// With the message of [`LayerNorm::try_forward`]'s error.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::LayerNorm;
    /// use shaped::{Const, Shape, Tensor};
    /// let ln: LayerNorm<Const<3>> = LayerNorm::new();
    /// let x = Var::constant(Tensor::<f32, Shape![2, 4, 3]>::ones());
    /// assert_eq!(ln.forward(&x).dims(), &[2, 4, 3]);
    /// ```
    #[track_caller]
    pub fn forward<S>(&self, x: &Var<T, S, D>) -> Var<T, S, D>
    where
        S: SplitLast,
        S::Last: NormalizedWidth<N>,
    {
        self.try_forward(x).or_panic()
    }

    /// [`LayerNorm::forward`] for inputs of any shape, the width checked at
    /// run time.
    ///
    /// # Errors
    /// PyTorch's error when the input's last dimension is not `N` (or it
    /// has none).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::LayerNorm;
    /// use shaped::{Const, DynRank, Tensor};
    /// let ln: LayerNorm<Const<32>> = LayerNorm::new();
    /// let x = Var::constant(Tensor::<f32, DynRank>::try_zeros(&[8, 16]).unwrap());
    /// assert_eq!(ln.try_forward(&x).unwrap_err().to_string(),
    ///     "Given normalized_shape=[32], expected input with shape [*, 32], but got input of size[8, 16]");
    /// ```
    pub fn try_forward<S: Shape>(&self, x: &Var<T, S, D>) -> Result<Var<T, S, D>, D::Error> {
        let n = self.weight.dims()[0];
        if x.dims().last() != Some(&n) {
            let sizes: Vec<String> = x.dims().iter().map(usize::to_string).collect();
            return Err(ShapeError::Invalid(format!(
                "Given normalized_shape=[{n}], expected input with shape [*, {n}], but got \
                 input of size[{}]",
                sizes.join(", ")
            ))
            .into());
        }
        let x = erased(x);
        let mean = x.mean_dims(&[-1], true);
        let centred = x.try_sub(&mean)?;
        let var = centred.square().mean_dims(&[-1], true);
        let y = centred
            .try_mul(&var.add_scalar(self.eps).rsqrt())?
            .try_mul(&erased(&self.weight))?
            .try_add(&erased(&self.bias))?;
        Ok(restored(&y, x.dims()))
    }
}

impl<N: FixedDim, T: Float> Default for LayerNorm<N, T> {
    /// [`LayerNorm::new`].
    fn default() -> Self {
        LayerNorm::new()
    }
}

impl<N: Dim, T: Float, D: GradDevice<T>> core::fmt::Debug for LayerNorm<N, T, D> {
    /// PyTorch's summary, without the weights.
    ///
    /// ```
    /// use shaped::nn::LayerNorm;
    /// use shaped::Const;
    /// let l: LayerNorm<Const<8>> = LayerNorm::new();
    /// assert_eq!(format!("{l:?}"), "LayerNorm((8,), eps=1e-5, elementwise_affine=True)");
    /// ```
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // The shortest form that reads back as the element type's value:
        // `1e-5` for an `f32` eps, not its `f64` widening.
        let eps = self.eps.to_f64();
        let eps = if f64::from(eps as f32) == eps {
            format!("{:e}", eps as f32)
        } else {
            format!("{eps:e}")
        };
        write!(
            f,
            "LayerNorm(({},), eps={eps}, elementwise_affine=True)",
            self.weight.dims()[0]
        )
    }
}

impl<N: Dim, T: Float, D: GradDevice<T>> Parameters<T, D> for LayerNorm<N, T, D> {
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
