//! `Linear<I, O>`: `y = x · Wᵀ + b`, with the input and output sizes in the
//! type.

use super::init::{kaiming_uniform, kaiming_uniform_bound, split_seed, uniform};
use super::params::{Parameters, param_key};
use crate::Tensor;
use crate::autograd::{GradDevice, Var};
use crate::device::{Cpu, Device};
use crate::element::Float;
use crate::ops::matmul::{Matmul, MatmulShape};
use crate::shape::{Broadcast, BroadcastShape, Dim, DynRank, FixedDim, Shape};

/// The shape of [`Linear::forward_nd`]'s result for an input of shape `S`:
/// `S @ (I, O)` broadcast with the bias `(O,)`, that is `(..., O)`.
///
/// ```
/// use shaped::nn::LinearOutput;
/// use shaped::{Const, Shape};
/// let _: LinearOutput<Shape![2, 5, 3], Const<3>, Const<4>> = Default::default();
/// let _: Shape![2, 5, 4] = <LinearOutput<Shape![2, 5, 3], Const<3>, Const<4>>>::default();
/// ```
pub type LinearOutput<S, I, O> = Broadcast<Matmul<S, (I, O)>, (O,)>;

/// A dense layer from `I` features to `O` features, as `torch.nn.Linear`:
/// the weight has PyTorch's layout `(O, I)` and the bias `(O,)`.
///
/// `I` and `O` are dimension types ([`Const<N>`](crate::Const), or
/// [`One`](crate::One) for a single feature), so a layer applied to inputs
/// of the wrong width does not compile.
///
/// ```
/// use shaped::autograd::Var;
/// use shaped::nn::Linear;
/// use shaped::{Const, Shape, Tensor};
/// let layer: Linear<Const<3>, Const<2>> = Linear::new(0);
/// let x = Var::constant(Tensor::<f32, Shape![5, 3]>::ones());
/// let y: Var<f32, Shape![5, 2]> = layer.forward(&x);
/// assert_eq!(y.dims(), &[5, 2]);
/// ```
pub struct Linear<I: Dim, O: Dim, T: Float = f32, D: Device = Cpu> {
    /// The weight, `(O, I)`.
    pub weight: Var<T, (O, I), D>,
    /// The bias, `(O,)`, or `None` for a layer without one.
    pub bias: Option<Var<T, (O,), D>>,
}

impl<I: FixedDim, O: FixedDim, T: Float> Linear<I, O, T> {
    /// A layer initialised as PyTorch initialises `nn.Linear`: weight from
    /// `kaiming_uniform_(a = √5)`, that is `U(-1/√I, 1/√I)`, and bias from
    /// `U(-1/√I, 1/√I)`, both drawn from `seed`.
    ///
    /// ```
    /// use shaped::nn::Linear;
    /// use shaped::Const;
    /// let l: Linear<Const<16>, Const<4>> = Linear::new(7);
    /// assert!(l.weight.value().to_vec().iter().all(|w| w.abs() <= 0.25));
    /// ```
    pub fn new(seed: u64) -> Self {
        let (ws, bs) = split_seed(seed);
        let weight =
            kaiming_uniform(&[O::N, I::N], 5f64.sqrt(), ws).expect("static sizes fit their shape");
        let bound = T::from_f64(kaiming_uniform_bound(I::N, 5f64.sqrt()));
        let bias = uniform(&[O::N], bound, bs).expect("static sizes fit their shape");
        Linear {
            weight: Var::param(weight),
            bias: Some(Var::param(bias)),
        }
    }
}

impl<I: Dim, O: Dim, T: Float, D: GradDevice<T>> Linear<I, O, T, D> {
    /// The same layer without its bias (`bias=False`).
    ///
    /// ```
    /// use shaped::nn::{Linear, Parameters};
    /// use shaped::Const;
    /// let l: Linear<Const<3>, Const<2>> = Linear::new(0).without_bias();
    /// assert_eq!(l.num_params(), 6);
    /// ```
    pub fn without_bias(self) -> Self {
        Linear { bias: None, ..self }
    }

    /// A layer with the given weight `(O, I)` and bias `(O,)`, both made
    /// parameters (to load trained or reference values).
    ///
    /// ```
    /// use shaped::nn::Linear;
    /// use shaped::{Const, One, Shape, Tensor};
    /// let w = Tensor::<f32, Shape![1, 2]>::from_vec(vec![1., 2.]);
    /// let l: Linear<Const<2>, One> = Linear::from_tensors(w, None);
    /// assert!(l.bias.is_none());
    /// ```
    pub fn from_tensors(weight: Tensor<T, (O, I), D>, bias: Option<Tensor<T, (O,), D>>) -> Self {
        Linear {
            weight: Var::param(weight),
            bias: bias.map(Var::param),
        }
    }

    /// `x · Wᵀ + b` for a batch `x` of shape `(B, I)`, any batch dimension
    /// `B` (static or `Dyn`).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::Linear;
    /// use shaped::{Const, Dyn, Shape, Tensor};
    /// let l: Linear<Const<3>, Const<2>> = Linear::new(0);
    /// let x = Var::constant(Tensor::<f32, Shape![_, 3]>::try_ones(&[7, 3]).unwrap());
    /// let y: Var<f32, (Dyn, Const<2>)> = l.forward(&x);
    /// assert_eq!(y.dims(), &[7, 2]);
    /// // Widths known at run time only.
    /// let w = Tensor::<f32, Shape![_, _]>::try_ones(&[2, 3]).unwrap();
    /// let d: Linear<Dyn, Dyn> = Linear::from_tensors(w, None);
    /// let x = Var::constant(Tensor::<f32, Shape![4, _]>::try_ones(&[4, 3]).unwrap());
    /// assert_eq!(d.forward(&x).value().to_vec(), vec![3.0; 8]);
    /// ```
    #[track_caller]
    pub fn forward<X>(&self, x: &Var<T, X, D>) -> Var<T, X::Output, D>
    where
        X: LinearInput<I, O>,
        X::Output: Shape,
    {
        X::forward(self, x)
    }

    /// `x · Wᵀ + b` for `x` of any shape `(..., I)`, as PyTorch's `Linear`
    /// on extra leading dimensions.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::nn::Linear;
    /// use shaped::{Const, Shape, Tensor};
    /// let l: Linear<Const<3>, Const<2>> = Linear::new(0);
    /// let x = Var::constant(Tensor::<f32, Shape![4, 5, 3]>::ones());
    /// let y: Var<f32, Shape![4, 5, 2]> = l.forward_nd(&x);
    /// assert_eq!(y.dims(), &[4, 5, 2]);
    /// ```
    #[track_caller]
    pub fn forward_nd<S>(&self, x: &Var<T, S, D>) -> Var<T, LinearOutput<S, I, O>, D>
    where
        S: Shape + MatmulShape<(I, O)>,
        Matmul<S, (I, O)>: BroadcastShape<(O,)>,
    {
        let y = x.matmul(&self.weight.transpose::<0, 1>());
        match &self.bias {
            Some(b) => y.add(b),
            // Without a bias the product already has the result's sizes; only
            // its type is restated (a view, no copy).
            None => {
                let sizes: Vec<isize> = y.dims().iter().map(|&d| d as isize).collect();
                y.try_reshape(&sizes).expect("the product's own sizes")
            }
        }
    }
}

impl<I: Dim, O: Dim, T: Float, D: GradDevice<T>> core::fmt::Debug for Linear<I, O, T, D> {
    /// PyTorch's summary, without the weights.
    ///
    /// ```
    /// use shaped::nn::Linear;
    /// use shaped::Const;
    /// let l: Linear<Const<3>, Const<2>> = Linear::new(0);
    /// assert_eq!(format!("{l:?}"), "Linear(in_features=3, out_features=2, bias=True)");
    /// ```
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let d = self.weight.dims();
        let bias = if self.bias.is_some() { "True" } else { "False" };
        write!(
            f,
            "Linear(in_features={}, out_features={}, bias={bias})",
            d[1], d[0]
        )
    }
}

impl<I: Dim, O: Dim, T: Float, D: GradDevice<T>> Parameters<T, D> for Linear<I, O, T, D> {
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

impl<I: Dim, O: Dim, T: Float, D: Device> Clone for Linear<I, O, T, D> {
    /// Another handle on the same parameters.
    fn clone(&self) -> Self {
        Linear {
            weight: self.weight.clone(),
            bias: self.bias.clone(),
        }
    }
}

/// The inputs [`Linear::forward`] takes: rows `(B, W)` whose width `W` is
/// the layer's input width `I` ([`InputWidth`]); `Output` is `(B, O)`.
/// Stated on the input's shape, so a wrong width is one error at the call
/// that names both widths.
///
/// ```
/// use shaped::nn::LinearInput;
/// use shaped::{Const, Dyn, Shape};
/// let _: <(Dyn, Const<3>) as LinearInput<Const<3>, Const<2>>>::Output = <Shape![_, 2]>::default();
/// ```
pub trait LinearInput<I: Dim, O: Dim>: Shape {
    /// The shape of the layer's output, `(B, O)`.
    type Output: Shape;
    /// `layer.forward(x)`.
    #[doc(hidden)]
    fn forward<T: Float, D: GradDevice<T>>(
        layer: &Linear<I, O, T, D>,
        x: &Var<T, Self, D>,
    ) -> Var<T, Self::Output, D>;
}

/// Rows of the layer's width, any batch dimension. (The impl is over every
/// shape `X`, reading its two dimensions from [`Rows`]: rustc then reports
/// a width mismatch alone, without quoting this impl.)
impl<X: Rows, I: Dim, O: Dim> LinearInput<I, O> for X
where
    X::Width: InputWidth<I>,
    (X::Batch, I): MatmulShape<(I, O), Output = (X::Batch, O)>,
    (X::Batch, O): BroadcastShape<(O,), Output = (X::Batch, O)>,
{
    type Output = (X::Batch, O);
    #[track_caller]
    fn forward<T: Float, D: GradDevice<T>>(
        layer: &Linear<I, O, T, D>,
        x: &Var<T, X, D>,
    ) -> Var<T, (X::Batch, O), D> {
        layer.forward_nd(X::Width::rows(X::rows(x)))
    }
}

/// A 2-d shape `(B, W)`: rows of `W` features, `B` of them.
///
/// ```
/// use shaped::nn::Rows;
/// use shaped::{Const, Shape};
/// let _: <Shape![4, 3] as Rows>::Width = Const::<3>;
/// ```
#[diagnostic::on_unimplemented(
    message = "`Linear::forward` takes rows `(B, I)`, not `{Self}`",
    label = "not a 2-d shape",
    note = "`Linear::forward_nd` takes inputs of any rank `(..., I)`"
)]
pub trait Rows: Shape {
    /// `B`.
    type Batch: Dim;
    /// `W`.
    type Width: Dim;
    /// The input typed as `(B, W)` (the identity).
    #[doc(hidden)]
    fn rows<T: Float, D: Device>(x: &Var<T, Self, D>) -> &Var<T, (Self::Batch, Self::Width), D>;
}

impl<B: Dim, W: Dim> Rows for (B, W) {
    type Batch = B;
    type Width = W;
    fn rows<T: Float, D: Device>(x: &Var<T, (B, W), D>) -> &Var<T, (B, W), D> {
        x
    }
}

/// Holds when rows of `Self` features fit a layer of `I` inputs: only when
/// the two widths are the same type.
///
/// ```
/// use shaped::nn::InputWidth;
/// use shaped::Const;
/// fn fits<W: InputWidth<I>, I: shaped::Dim>() {}
/// fits::<Const<3>, Const<3>>();
/// ```
#[diagnostic::on_unimplemented(
    message = "a `Linear` layer of `{I}` inputs cannot take rows of `{Self}` features",
    label = "rows of `{Self}` features, the layer takes `{I}`",
    note = "the input's last dimension must be the layer's input width (`I` in `Linear<I, O>`)"
)]
pub trait InputWidth<I: Dim>: Dim {
    /// The rows seen with width `I` (the identity).
    #[doc(hidden)]
    fn rows<T: Float, B: Dim, D: Device>(x: &Var<T, (B, Self), D>) -> &Var<T, (B, I), D>;
}

impl<I: Dim> InputWidth<I> for I {
    fn rows<T: Float, B: Dim, D: Device>(x: &Var<T, (B, I), D>) -> &Var<T, (B, I), D> {
        x
    }
}
