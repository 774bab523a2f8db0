//! Gradients of the one-operand pointwise operations: the upstream gradient
//! times the derivative, an op-table entry (`tanh_backward`, ...) of the
//! gradient, the input `x` and the result `y`.
//! Rounding and `sign` are piecewise constant: their gradient is zero, given
//! as an expanded zero (no memory), as PyTorch gives zeros.

use crate::tensor::pointwise;
use smallvec::smallvec;

use crate::shape::OrPanic;

use super::Var;
use super::device::{GradDevice, zeros_like};
use super::graph::{BackwardFn, Dyn};
use crate::backend::Backend;
use crate::backend::op::table;
use crate::backend::op::{Map3, ScalarLhs, ScalarRhs};
use crate::element::Float;
use crate::shape::Shape;

/// The backward function for `y = f(x)`: the op table's derivative `d`
/// of the upstream gradient, the input and the result (`tanh_backward`,
/// ...), a table op rather than a closure so that any device can run it.
fn unary_backward<T: Float, D: Backend<T>, Op: Map3<T, T>>(
    x: Dyn<T, D>,
    y: Dyn<T, D>,
    d: Op,
) -> BackwardFn<T, D> {
    Box::new(move |g, _| Ok(smallvec![Some(pointwise::ternary(d, g, &x, &y)?)]))
}

macro_rules! unary_vars {
    ($($(#[$doc:meta])* $name:ident, $d:ident;)*) => {$(
        impl<T: Float, S: Shape, D: GradDevice<T>> Var<T, S, D> {
            $(#[$doc])*
            pub fn $name(&self) -> Var<T, S, D> {
                let value = self.value.$name();
                let (x, y) = (self.erased(), value.share().into_dyn());
                Var::from_op(value, &[Some(&self.node)], move || unary_backward(x, y, table::$d))
            }
        }
    )*};
}

macro_rules! zero_grad_vars {
    ($($(#[$doc:meta])* $name:ident;)*) => {$(
        impl<T: Float, S: Shape, D: GradDevice<T>> Var<T, S, D> {
            $(#[$doc])*
            pub fn $name(&self) -> Var<T, S, D> {
                let value = self.value.$name();
                Var::from_op(value, &[Some(&self.node)], move || {
                    // The upstream gradient has the input's sizes.
                    Box::new(move |g: &Dyn<T, D>, _: &[bool]| Ok(smallvec![Some(zeros_like(g)?)]))
                })
            }
        }
    )*};
}

unary_vars! {
    /// `-x`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![1]>::ones());
    /// assert_eq!(x.neg().sum().backward().wrt(&x).unwrap().to_vec(), vec![-1.]);
    /// ```
    neg, NegBackward;
    /// `|x|`; the gradient at 0 is 0, as PyTorch's `sgn`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![3]>::from_vec(vec![-2., 0., 2.]));
    /// assert_eq!(x.abs().sum().backward().wrt(&x).unwrap().to_vec(), vec![-1., 0., 1.]);
    /// ```
    abs, AbsBackward;
    /// `e^x`, whose derivative is itself.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1]>::zeros());
    /// assert_eq!(x.exp().sum().backward().wrt(&x).unwrap().to_vec(), vec![1.]);
    /// ```
    exp, ExpBackward;
    /// `ln x`, derivative `1/x`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![4.]));
    /// assert_eq!(x.log().sum().backward().wrt(&x).unwrap().to_vec(), vec![0.25]);
    /// ```
    log, LogBackward;
    /// `ln(1 + x)`, derivative `1/(1 + x)`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![1.]));
    /// assert_eq!(x.log1p().sum().backward().wrt(&x).unwrap().to_vec(), vec![0.5]);
    /// ```
    log1p, Log1pBackward;
    /// `e^x - 1`, derivative `e^x`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1]>::zeros());
    /// assert_eq!(x.expm1().sum().backward().wrt(&x).unwrap().to_vec(), vec![1.]);
    /// ```
    expm1, Expm1Backward;
    /// `√x`, derivative `1/(2√x)`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![4.]));
    /// assert_eq!(x.sqrt().sum().backward().wrt(&x).unwrap().to_vec(), vec![0.25]);
    /// ```
    sqrt, SqrtBackward;
    /// `1/√x`, derivative `-y³/2`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![4.]));
    /// assert_eq!(x.rsqrt().sum().backward().wrt(&x).unwrap().to_vec(), vec![-1. / 16.]);
    /// ```
    rsqrt, RsqrtBackward;
    /// `sin x`, derivative `cos x`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1]>::zeros());
    /// assert_eq!(x.sin().sum().backward().wrt(&x).unwrap().to_vec(), vec![1.]);
    /// ```
    sin, SinBackward;
    /// `cos x`, derivative `-sin x`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1]>::zeros());
    /// assert_eq!(x.cos().sum().backward().wrt(&x).unwrap().to_vec(), vec![0.]);
    /// ```
    cos, CosBackward;
    /// `tan x`, derivative `1 + tan² x`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1]>::zeros());
    /// assert_eq!(x.tan().sum().backward().wrt(&x).unwrap().to_vec(), vec![1.]);
    /// ```
    tan, TanBackward;
    /// `tanh x`, derivative `1 - tanh² x`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1]>::zeros());
    /// assert_eq!(x.tanh().sum().backward().wrt(&x).unwrap().to_vec(), vec![1.]);
    /// ```
    tanh, TanhBackward;
    /// `σ(x)`, derivative `σ(x)(1 - σ(x))`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1]>::zeros());
    /// assert_eq!(x.sigmoid().sum().backward().wrt(&x).unwrap().to_vec(), vec![0.25]);
    /// ```
    sigmoid, SigmoidBackward;
    /// `max(x, 0)`; the gradient passes where the result is positive.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![2]>::from_vec(vec![-1., 2.]));
    /// assert_eq!(x.relu().sum().backward().wrt(&x).unwrap().to_vec(), vec![0., 1.]);
    /// ```
    relu, ReluBackward;
    /// The exact GELU `x Φ(x)`, derivative `Φ(x) + x φ(x)`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1]>::zeros());
    /// assert_eq!(x.gelu().sum().backward().wrt(&x).unwrap().to_vec(), vec![0.5]);
    /// ```
    gelu, GeluBackward;
    /// `x σ(x)`, derivative `σ(x)(1 + x(1 - σ(x)))`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1]>::zeros());
    /// assert_eq!(x.silu().sum().backward().wrt(&x).unwrap().to_vec(), vec![0.5]);
    /// ```
    silu, SiluBackward;
    /// `x²`, derivative `2x`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![3.]));
    /// assert_eq!(x.square().sum().backward().wrt(&x).unwrap().to_vec(), vec![6.]);
    /// ```
    square, SquareBackward;
    /// `1/x`, derivative `-1/x²`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![2.]));
    /// assert_eq!(x.reciprocal().sum().backward().wrt(&x).unwrap().to_vec(), vec![-0.25]);
    /// ```
    reciprocal, ReciprocalBackward;
}

zero_grad_vars! {
    /// Rounds down; zero gradient.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![1]>::from_vec(vec![1.5]));
    /// assert_eq!(x.floor().sum().backward().wrt(&x).unwrap().to_vec(), vec![0.]);
    /// ```
    floor;
    /// Rounds up; zero gradient.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![1]>::from_vec(vec![1.5]));
    /// assert_eq!(x.ceil().sum().backward().wrt(&x).unwrap().to_vec(), vec![0.]);
    /// ```
    ceil;
    /// Rounds half to even; zero gradient.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![1]>::from_vec(vec![1.5]));
    /// assert_eq!(x.round().sum().backward().wrt(&x).unwrap().to_vec(), vec![0.]);
    /// ```
    round;
    /// Rounds toward zero; zero gradient.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![1]>::from_vec(vec![1.5]));
    /// assert_eq!(x.trunc().sum().backward().wrt(&x).unwrap().to_vec(), vec![0.]);
    /// ```
    trunc;
    /// `-1`, `0` or `1`; zero gradient.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![1]>::from_vec(vec![-3.]));
    /// assert_eq!(x.sign().sum().backward().wrt(&x).unwrap().to_vec(), vec![0.]);
    /// ```
    sign;
}

impl<T: Float, S: Shape, D: GradDevice<T>> Var<T, S, D> {
    /// `self * c` for a scalar `c`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![2]>::ones());
    /// assert_eq!(x.mul_scalar(3.).sum().backward().wrt(&x).unwrap().to_vec(), vec![3., 3.]);
    /// ```
    ///
    /// # Panics
    /// When the device cannot allocate the result.
    #[track_caller]
    pub fn mul_scalar(&self, c: T) -> Var<T, S, D> {
        let times = ScalarRhs(table::Mul, c);
        Var::from_op(
            pointwise::unary(times, &self.value).or_panic(),
            &[Some(&self.node)],
            move || {
                Box::new(move |g: &Dyn<T, D>, _: &[bool]| {
                    Ok(smallvec![Some(pointwise::unary(times, g)?)])
                })
            },
        )
    }

    /// `self / c` for a scalar `c` (a division, as PyTorch's `x / c`, not
    /// a product with `1 / c`, so the values are PyTorch's to the bit).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![2]>::from_vec(vec![1., 3.]));
    /// let y = x.div_scalar(4.);
    /// assert_eq!(y.value().to_vec(), vec![0.25, 0.75]);
    /// assert_eq!(y.sum().backward().wrt(&x).unwrap().to_vec(), vec![0.25, 0.25]);
    /// ```
    ///
    /// # Panics
    /// When the device cannot allocate the result.
    #[track_caller]
    pub fn div_scalar(&self, c: T) -> Var<T, S, D> {
        let over = ScalarRhs(table::Div, c);
        Var::from_op(
            pointwise::unary(over, &self.value).or_panic(),
            &[Some(&self.node)],
            move || {
                Box::new(move |g: &Dyn<T, D>, _: &[bool]| {
                    Ok(smallvec![Some(pointwise::unary(over, g)?)])
                })
            },
        )
    }

    /// `c / self` for a scalar `c`, with gradient `-c / x²` (computed as
    /// `-y / x` from the result `y`).
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]));
    /// let y = x.rdiv_scalar(2.);
    /// assert_eq!(y.value().to_vec(), vec![2., 1.]);
    /// assert_eq!(y.sum().backward().wrt(&x).unwrap().to_vec(), vec![-2., -0.5]);
    /// ```
    ///
    /// # Panics
    /// When the device cannot allocate the result.
    #[track_caller]
    pub fn rdiv_scalar(&self, c: T) -> Var<T, S, D> {
        let value = pointwise::unary(ScalarLhs(table::Div, c), &self.value).or_panic();
        let (x, y) = (self.erased(), value.share().into_dyn());
        Var::from_op(value, &[Some(&self.node)], move || {
            Box::new(move |g: &Dyn<T, D>, _: &[bool]| {
                // -g · y / x
                let gy: Dyn<T, D> = pointwise::binary(table::Mul, g, &y)?;
                let q: Dyn<T, D> = pointwise::binary(table::Div, &gy, &x)?;
                Ok(smallvec![Some(pointwise::unary(table::Neg, &q)?)])
            })
        })
    }

    /// `c - self` for a scalar `c`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![2]>::ones());
    /// let y = x.rsub_scalar(3.);
    /// assert_eq!(y.value().to_vec(), vec![2., 2.]);
    /// assert_eq!(y.sum().backward().wrt(&x).unwrap().to_vec(), vec![-1., -1.]);
    /// ```
    ///
    /// # Panics
    /// When the device cannot allocate the result.
    #[track_caller]
    pub fn rsub_scalar(&self, c: T) -> Var<T, S, D> {
        Var::from_op(
            pointwise::unary(ScalarLhs(table::Sub, c), &self.value).or_panic(),
            &[Some(&self.node)],
            move || {
                Box::new(move |g: &Dyn<T, D>, _: &[bool]| {
                    Ok(smallvec![Some(pointwise::unary(table::Neg, g)?)])
                })
            },
        )
    }

    /// `self + c` for a scalar `c`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![2]>::ones());
    /// assert_eq!(x.add_scalar(3.).value().to_vec(), vec![4., 4.]);
    /// ```
    ///
    /// # Panics
    /// When the device cannot allocate the result.
    #[track_caller]
    pub fn add_scalar(&self, c: T) -> Var<T, S, D> {
        Var::from_op(
            pointwise::unary(ScalarRhs(table::Add, c), &self.value).or_panic(),
            &[Some(&self.node)],
            move || Box::new(move |g: &Dyn<T, D>, _: &[bool]| Ok(smallvec![Some(g.share())])),
        )
    }
}
