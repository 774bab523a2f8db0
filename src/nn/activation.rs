//! Activation layers: unit structs for the activations that `Var` has as
//! methods, so that a model can hold them as fields (they have no
//! parameters).

use super::erase::{erased, restored};
use super::params::Parameters;
use crate::autograd::{GradDevice, Var};
use crate::element::Float;
use crate::shape::{DynRank, OrPanic, Shape};

macro_rules! activations {
    ($($(#[$doc:meta])* $name:ident => $method:ident;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default)]
        pub struct $name;

        impl $name {
            #[doc = concat!("[`Var::", stringify!($method), "`] of `x`, on `x`'s device.")]
            pub fn forward<T: Float, S: Shape, D: GradDevice<T>>(&self, x: &Var<T, S, D>) -> Var<T, S, D> {
                x.$method()
            }
        }

        impl<T: Float, D: GradDevice<T>> Parameters<T, D> for $name {
            /// None.
            fn visit_params(&self, _: &mut dyn FnMut(&Var<T, DynRank, D>)) {}
        }
    )*};
}

activations! {
    /// `torch.nn.ReLU`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::Relu;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::constant(Tensor::<f32, Shape![2]>::from_vec(vec![-1., 2.]));
    /// assert_eq!(Relu.forward(&x).value().to_vec(), vec![0., 2.]);
    /// ```
    Relu => relu;
    /// `torch.nn.GELU` (the erf form).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::Gelu;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::constant(Tensor::<f32, Shape![1]>::zeros());
    /// assert_eq!(Gelu.forward(&x).value().to_vec(), vec![0.]);
    /// ```
    Gelu => gelu;
    /// `torch.nn.SiLU`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::Silu;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::constant(Tensor::<f32, Shape![1]>::zeros());
    /// assert_eq!(Silu.forward(&x).value().to_vec(), vec![0.]);
    /// ```
    Silu => silu;
    /// `torch.nn.Sigmoid`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::Sigmoid;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::constant(Tensor::<f32, Shape![1]>::zeros());
    /// assert_eq!(Sigmoid.forward(&x).value().to_vec(), vec![0.5]);
    /// ```
    Sigmoid => sigmoid;
    /// `torch.nn.Tanh`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::Tanh;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::constant(Tensor::<f32, Shape![1]>::zeros());
    /// assert_eq!(Tanh.forward(&x).value().to_vec(), vec![0.]);
    /// ```
    Tanh => tanh;
}

/// `torch.nn.functional.gelu(x, approximate="tanh")`:
/// `0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))`, the GELU of GPT-2 and
/// many BERT variants (`hidden_act = "gelu_new"`), with its gradient
/// (through the composed operations, on `x`'s device).
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::gelu_tanh;
/// use shaped::{Shape, Tensor};
/// let x = Var::param(Tensor::<f64, Shape![7]>::from_vec(vec![-3., -1., -0.5, 0., 0.5, 1., 3.]));
/// let y = gelu_tanh(&x);
/// // PyTorch 2.15's values and gradients, float64.
/// let want = [-0.0036373920817729943, -0.15880800939172324, -0.15428599017485606, 0.0,
///             0.34571400982514394, 0.8411919906082768, 2.996362607918227];
/// let dwant = [-0.011584166630969648, -0.08296408384578252, 0.13263009646535764, 0.5,
///              0.8673699035346424, 1.0829640838457826, 1.0115841666309695];
/// let g = y.sum().backward().wrt(&x).unwrap().to_vec();
/// for i in 0..7 {
///     assert!((y.value().to_vec()[i] - want[i]).abs() < 1e-12);
///     assert!((g[i] - dwant[i]).abs() < 1e-12);
/// }
/// ```
#[track_caller]
pub fn gelu_tanh<T: Float, S: Shape, D: GradDevice<T>>(x: &Var<T, S, D>) -> Var<T, S, D> {
    let e = erased(x);
    let beta = T::from_f64((2.0 / core::f64::consts::PI).sqrt());
    let kappa = T::from_f64(0.044715);
    let y = e
        .square()
        .try_mul(&e)
        .and_then(|cube| cube.mul_scalar(kappa).try_add(&e))
        .and_then(|inner| {
            inner
                .mul_scalar(beta)
                .tanh()
                .add_scalar(T::one())
                .try_mul(&e)
        })
        .or_panic()
        .mul_scalar(T::from_f64(0.5));
    restored(&y, x.dims())
}

/// `torch.nn.GELU(approximate="tanh")` as a layer: [`gelu_tanh`].
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::GeluTanh;
/// use shaped::{Shape, Tensor};
/// let x = Var::constant(Tensor::<f32, Shape![1]>::zeros());
/// assert_eq!(GeluTanh.forward(&x).value().to_vec(), vec![0.]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct GeluTanh;

impl GeluTanh {
    /// [`gelu_tanh`] of `x`, on `x`'s device.
    pub fn forward<T: Float, S: Shape, D: GradDevice<T>>(&self, x: &Var<T, S, D>) -> Var<T, S, D> {
        gelu_tanh(x)
    }
}

impl<T: Float, D: GradDevice<T>> Parameters<T, D> for GeluTanh {
    /// None.
    fn visit_params(&self, _: &mut dyn FnMut(&Var<T, DynRank, D>)) {}
}
