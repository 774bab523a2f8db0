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
use super::graph::{BackwardFn, DynTensor};
use crate::Tensor;
use crate::backend::Backend;
use crate::backend::op::table;
use crate::backend::op::{Derivative, Map3, ScalarLhs, ScalarRhs};
use crate::element::Float;
use crate::shape::Shape;

/// The backward function for `y = f(x)`: the op table's derivative `d`
/// of the upstream gradient, the input and the result (`tanh_backward`,
/// ...), a table op rather than a closure so that any device can run it.
fn unary_backward<T: Float, D: Backend<T>, Op: Map3<T, T>>(
    x: DynTensor<T, D>,
    y: DynTensor<T, D>,
    d: Op,
) -> BackwardFn<T, D> {
    Box::new(move |g, _| Ok(smallvec![Some(pointwise::ternary(d, g, &x, &y)?)]))
}

/// The backward function of an op whose derivative is zero wherever it
/// exists: zeros of the upstream gradient's sizes (an expanded zero, no
/// memory), as PyTorch gives.
fn zero_backward<T: Float, D: Backend<T>>() -> BackwardFn<T, D> {
    Box::new(move |g, _| Ok(smallvec![Some(zeros_like(g)?)]))
}

/// `value = op(x)` recorded with the backward function of `Op`'s
/// [`Derivative`] (the input and the result kept only when the derivative
/// reads them).
fn record<T: Float, S: Shape, D: GradDevice<T>, Op: Derivative>(
    x: &Var<T, S, D>,
    value: Tensor<T, S, D>,
) -> Var<T, S, D>
where
    Op::Backward: Map3<T, T>,
{
    if Op::ZERO {
        return Var::from_op(value, &[Some(&x.node)], zero_backward::<T, D>);
    }
    let (xd, y) = (x.erased(), value.share().into_dyn());
    Var::from_op(value, &[Some(&x.node)], move || {
        unary_backward(xd, y, Op::Backward::default())
    })
}

/// Defines the variables' one-operand methods from the list of
/// one-operand ops (`ops/unary.rs`), each with the gradient its op-table
/// entry's [`Derivative`] names; each doctest checks the gradient against
/// a central difference of the eager op.
macro_rules! unary_vars {
    ($($(#[$doc:meta])* $name:ident / $try_name:ident / $name_:ident : $bound:ident, $Op:ident;)*) => {$(
        impl<T: Float, S: Shape, D: GradDevice<T>> Var<T, S, D> {
            #[doc = concat!("[`Tensor::", stringify!($name), "`] of the value, recorded with its gradient: the op table's derivative of [`", stringify!($Op), "`](table::", stringify!($Op), ") (its [`Derivative`]).")]
            ///
            /// ```
            /// use shaped::autograd::Var;
            /// use shaped::{Shape, Tensor};
            /// let at = [0.3, 0.7, 1.2];
            /// let x = Var::param(Tensor::<f64, Shape![3]>::from_vec(at.to_vec()));
            #[doc = concat!("let grad = x.", stringify!($name), "().sum().backward().wrt(&x).unwrap().to_vec();")]
            /// // A central difference of the eager op agrees.
            #[doc = concat!("let f = |v: f64| Tensor::<f64, Shape![1]>::from_vec(vec![v]).", stringify!($name), "().to_vec()[0];")]
            /// for (g, v) in grad.iter().zip(at) {
            ///     let d = (f(v + 1e-6) - f(v - 1e-6)) / 2e-6;
            ///     assert!((g - d).abs() < 1e-6 * d.abs().max(1.), "{g} vs {d}");
            /// }
            /// ```
            pub fn $name(&self) -> Var<T, S, D> {
                record::<T, S, D, table::$Op>(self, self.value.$name())
            }
        }
    )*};
}

crate::ops::unary::unary_op_list!(unary_vars);

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
                Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
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
                Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
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
            Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
                // -g · y / x
                let gy: DynTensor<T, D> = pointwise::binary(table::Mul, g, &y)?;
                let q: DynTensor<T, D> = pointwise::binary(table::Div, &gy, &x)?;
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
                Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
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
            move || Box::new(move |g: &DynTensor<T, D>, _: &[bool]| Ok(smallvec![Some(g.share())])),
        )
    }
}
