//! Activation layers: unit structs for the activations that `Var` has as
//! methods, so that a model can hold them as fields (they have no
//! parameters).

use super::params::Parameters;
use crate::autograd::{GradDevice, Var};
use crate::element::Float;
use crate::shape::{DynRank, Shape};

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
