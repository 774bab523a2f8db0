//! `LayerNorm<D>`: normalisation over the last axis, with a learned scale
//! and shift.

use super::erase::{erased, restored};
use super::params::Parameters;
use crate::Tensor;
use crate::autograd::Var;
use crate::element::Float;
use crate::shape::OrPanic;
use crate::shape::{DynRank, FixedDim, Shape};

/// `torch.nn.LayerNorm(D)`: each row along the last axis (of size `D`) is
/// shifted to mean 0 and scaled to variance 1 (the biased variance, plus
/// `eps`), then multiplied by `weight` and shifted by `bias` (PyTorch's
/// initial values: ones and zeros).
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
pub struct LayerNorm<D: FixedDim, T: Float = f32> {
    /// The scale, `(D,)`.
    pub weight: Var<T, (D,)>,
    /// The shift, `(D,)`.
    pub bias: Var<T, (D,)>,
    /// Added to the variance (PyTorch's default `1e-5`).
    pub eps: T,
}

impl<D: FixedDim, T: Float> LayerNorm<D, T> {
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

    /// `(x - mean) / √(var + eps) · weight + bias` along the last axis of
    /// `x`, which must have size `D` (checked at run time for `DynRank`
    /// inputs; the panic is the broadcast error).
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
    pub fn forward<S: Shape>(&self, x: &Var<T, S>) -> Var<T, S> {
        let x = erased(x);
        let mean = x.mean_dims(&[-1], true);
        let centred = x.try_sub(&mean).or_panic();
        let var = centred.square().mean_dims(&[-1], true);
        let y = centred
            .try_mul(&var.add_scalar(self.eps).rsqrt())
            .and_then(|y| y.try_mul(&erased(&self.weight)))
            .and_then(|y| y.try_add(&erased(&self.bias)))
            .or_panic();
        restored(&y, x.dims())
    }
}

impl<D: FixedDim, T: Float> Default for LayerNorm<D, T> {
    /// [`LayerNorm::new`].
    fn default() -> Self {
        LayerNorm::new()
    }
}

impl<D: FixedDim, T: Float> Parameters<T> for LayerNorm<D, T> {
    /// The weight, then the bias.
    fn visit_params(&self, f: &mut dyn FnMut(&Var<T, DynRank>)) {
        self.weight.visit_params(f);
        self.bias.visit_params(f);
    }
}
