//! Gradients of the two- and three-operand pointwise operations. Each
//! input's gradient is the upstream gradient times the partial derivative,
//! computed at the broadcast shape, then summed back to the input's own
//! sizes with `sum_to` (seeds 003 and 004); an input that was not broadcast
//! is passed through without a copy.

use crate::shape::OrPanic;
use smallvec::smallvec;

use super::Var;
pub(crate) use super::device::sum_to_like;
use super::device::{GradDevice, combine, compare, map2, map3, masked, scalar_like};
use super::graph::{BackwardFn, DynTensor};
use crate::Tensor;
use crate::backend::Backend;
use crate::backend::op::table;
use crate::device::Device;
use crate::element::Float;
use crate::shape::{Broadcast, Broadcast3, BroadcastShape, DynRank, Shape};

/// `f()` when `need`, else `None`: a gradient computed only for the inputs
/// that need one, its error passed on.
pub(crate) fn when<T: Float, D: Device>(
    need: bool,
    f: impl FnOnce() -> Result<DynTensor<T, D>, D::Error>,
) -> Result<Option<DynTensor<T, D>>, D::Error> {
    need.then(f).transpose()
}

/// `g` summed to the sizes of `like`, if present.
pub(crate) fn sum_to_opt<T: Float, D: Backend<T>>(
    g: Option<DynTensor<T, D>>,
    like: &[usize],
) -> Result<Option<DynTensor<T, D>>, D::Error> {
    g.map(|t| sum_to_like(t, like)).transpose()
}

/// The two-operand operations with a gradient.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    Pow,
    Maximum,
    Minimum,
    Atan2,
}

/// The backward function of `a op b`: each partial derivative is an
/// op-table entry (`div_backward_other`, ...) of the upstream gradient and
/// the operands.
fn binary_backward<T: Float, D: GradDevice<T>>(
    op: Binary,
    a: DynTensor<T, D>,
    b: DynTensor<T, D>,
) -> BackwardFn<T, D> {
    Box::new(move |g, needs| {
        let (da, db) = (needs[0], needs[1]);
        let (ga, gb) = match op {
            Binary::Add => (da.then(|| g.share()), db.then(|| g.share())),
            Binary::Sub => (
                da.then(|| g.share()),
                // Negate before summing, as PyTorch: the sign of a zero sum
                // depends on the order.
                when(db, || sum_to_like(g.try_neg()?, b.dims()))?,
            ),
            Binary::Mul => (when(da, || g.try_mul(&b))?, when(db, || g.try_mul(&a))?),
            Binary::Div => (
                when(da, || g.try_div(&b))?,
                when(db, || map3(table::DivBackwardOther, g, &a, &b))?,
            ),
            Binary::Pow => (
                when(da, || map3(table::PowBackwardSelf, g, &a, &b))?,
                when(db, || map3(table::PowBackwardExponent, g, &a, &b))?,
            ),
            // Ties split the gradient, as PyTorch does.
            Binary::Maximum => (
                when(da, || map3(table::MaximumBackward, g, &a, &b))?,
                when(db, || map3(table::MaximumBackward, g, &b, &a))?,
            ),
            Binary::Minimum => (
                when(da, || map3(table::MinimumBackward, g, &a, &b))?,
                when(db, || map3(table::MinimumBackward, g, &b, &a))?,
            ),
            Binary::Atan2 => (
                when(da, || map3(table::Atan2BackwardSelf, g, &a, &b))?,
                when(db, || map3(table::Atan2BackwardOther, g, &a, &b))?,
            ),
        };
        Ok(smallvec![
            sum_to_opt(ga, a.dims())?,
            sum_to_opt(gb, b.dims())?,
        ])
    })
}

impl<T: Float, S: Shape, D: GradDevice<T>> Var<T, S, D> {
    /// Records `self op other` whose value is `value`.
    fn binary<S2: Shape, SO: Shape>(
        &self,
        other: &Var<T, S2, D>,
        value: Tensor<T, SO, D>,
        op: Binary,
    ) -> Var<T, SO, D> {
        Var::from_op(value, &[Some(&self.node), Some(&other.node)], || {
            binary_backward(op, self.erased(), other.erased())
        })
    }
}

/// Defines `op` and `try_op` on `Var` from the tensor operation of the same
/// name.
macro_rules! binary_vars {
    ($($(#[$doc:meta])* $name:ident / $try_name:ident => $op:ident;)*) => {$(
        impl<T: Float, S: Shape, D: GradDevice<T>> Var<T, S, D> {
            $(#[$doc])*
            ///
            /// # Panics
            /// With PyTorch's message when a run-time size does not match.
            #[track_caller]
            pub fn $name<S2: Shape>(&self, other: &Var<T, S2, D>) -> Var<T, Broadcast<S, S2>, D>
            where
                S: BroadcastShape<S2>,
            {
                self.$try_name(other).or_panic()
            }

            #[doc = concat!("The fallible form of [`Var::", stringify!($name), "`].")]
            ///
            /// # Errors
            /// PyTorch's broadcast error when a run-time size does not match.
            ///
            /// ```
            /// use shaped::autograd::Var;
            /// use shaped::{DynRank, Tensor};
            /// let a = Var::param(Tensor::<f64, DynRank>::try_ones(&[2, 3]).unwrap());
            /// let b = Var::param(Tensor::<f64, DynRank>::try_ones(&[2]).unwrap());
            #[doc = concat!("assert!(a.", stringify!($try_name), "(&b).is_err());")]
            /// ```
            pub fn $try_name<S2: Shape>(&self, other: &Var<T, S2, D>) -> Result<Var<T, Broadcast<S, S2>, D>, D::Error>
            where
                S: BroadcastShape<S2>,
            {
                let value = self.value.$try_name(&other.value)?;
                Ok(self.binary(other, value, Binary::$op))
            }
        }
    )*};
}

binary_vars! {
    /// `self + other`, broadcasting; each gradient is summed back to its
    /// input's shape.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let a = Var::param(Tensor::<f32, Shape![2, 1]>::ones());
    /// let b = Var::param(Tensor::<f32, Shape![2, 2]>::ones());
    /// let g = a.add(&b).sum().backward();
    /// assert_eq!(g.wrt(&a).unwrap().to_vec(), vec![2., 2.]);
    /// ```
    add / try_add => Add;
    /// `self - other`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let a = Var::param(Tensor::<f32, Shape![2]>::ones());
    /// let b = Var::param(Tensor::<f32, Shape![1]>::ones());
    /// assert_eq!(a.sub(&b).sum().backward().wrt(&b).unwrap().to_vec(), vec![-2.]);
    /// ```
    sub / try_sub => Sub;
    /// `self * other`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let a = Var::param(Tensor::<f32, Shape![2]>::from_vec(vec![2., 3.]));
    /// let b = Var::param(Tensor::<f32, Shape![2]>::from_vec(vec![5., 7.]));
    /// assert_eq!(a.mul(&b).sum().backward().wrt(&a).unwrap().to_vec(), vec![5., 7.]);
    /// ```
    mul / try_mul => Mul;
    /// `self / other`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let a = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![1.]));
    /// let b = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![2.]));
    /// let g = a.div(&b).sum().backward();
    /// assert_eq!(g.wrt(&b).unwrap().to_vec(), vec![-0.25]);
    /// ```
    div / try_div => Div;
    /// `self ^ other`; the exponent's gradient is 0 where the base is 0, as
    /// in PyTorch.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![3.]));
    /// let e = Var::constant(Tensor::<f64, Shape![1]>::from_vec(vec![2.]));
    /// assert_eq!(x.pow(&e).sum().backward().wrt(&x).unwrap().to_vec(), vec![6.]);
    /// ```
    pow / try_pow => Pow;
    /// The elementwise maximum; ties split the gradient in halves.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let a = Var::param(Tensor::<f32, Shape![2]>::from_vec(vec![1., 5.]));
    /// let b = Var::constant(Tensor::<f32, Shape![1]>::from_vec(vec![3.]));
    /// assert_eq!(a.maximum(&b).sum().backward().wrt(&a).unwrap().to_vec(), vec![0., 1.]);
    /// ```
    maximum / try_maximum => Maximum;
    /// The elementwise minimum; ties split the gradient in halves.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let a = Var::param(Tensor::<f32, Shape![2]>::from_vec(vec![3., 5.]));
    /// let b = Var::constant(Tensor::<f32, Shape![1]>::from_vec(vec![3.]));
    /// assert_eq!(a.minimum(&b).sum().backward().wrt(&a).unwrap().to_vec(), vec![0.5, 0.]);
    /// ```
    minimum / try_minimum => Minimum;
    /// The four-quadrant arctangent of `self / other`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let y = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![0.]));
    /// let x = Var::constant(Tensor::<f64, Shape![1]>::from_vec(vec![2.]));
    /// assert_eq!(y.atan2(&x).sum().backward().wrt(&y).unwrap().to_vec(), vec![0.5]);
    /// ```
    atan2 / try_atan2 => Atan2;
}

/// The three-operand operations with a gradient.
#[derive(Clone, Copy, Debug)]
enum Ternary<T> {
    Addcmul(T),
    Addcdiv(T),
    Lerp,
    ClampTensor,
}

/// The backward function of a three-operand operation on `s`, `a`, `b`.
fn ternary_backward<T: Float, D: GradDevice<T>>(
    op: Ternary<T>,
    s: DynTensor<T, D>,
    a: DynTensor<T, D>,
    b: DynTensor<T, D>,
) -> BackwardFn<T, D> {
    Box::new(move |g, needs| {
        let (ds, da, db) = (needs[0], needs[1], needs[2]);
        let (gs, ga, gb) = match op {
            Ternary::Addcmul(v) => (
                ds.then(|| g.share()),
                when(da, || map2(table::AddcmulBackward(v), g, &b))?,
                when(db, || map2(table::AddcmulBackward(v), g, &a))?,
            ),
            Ternary::Addcdiv(v) => (
                ds.then(|| g.share()),
                when(da, || map2(table::AddcdivBackwardTensor1(v), g, &b))?,
                when(db, || map3(table::AddcdivBackwardTensor2(v), g, &a, &b))?,
            ),
            // lerp(s, a = end, b = weight) = s + b (a - s).
            Ternary::Lerp => (
                when(ds, || map2(table::LerpBackwardSelf, g, &b))?,
                when(da, || g.try_mul(&b))?,
                when(db, || map3(table::LerpBackwardWeight, g, &s, &a))?,
            ),
            // clamp(s, a = min, b = max), as PyTorch's clamp_backward_min_max:
            // the gradient goes to `s` inside the bounds, to `min` below it
            // (when min < max) and to `max` above it (or when max < min).
            Ternary::ClampTensor => {
                use table::{Greater, GreaterEqual, Less, LessEqual, LogicalAnd, LogicalOr};
                let pick = |c: Result<Tensor<bool, DynRank, D>, D::Error>| masked(g, &c?, true);
                (
                    when(ds, || {
                        pick(combine(
                            LogicalAnd,
                            &compare(GreaterEqual, &s, &a)?,
                            &compare(LessEqual, &s, &b)?,
                        ))
                    })?,
                    when(da, || {
                        pick(combine(
                            LogicalAnd,
                            &compare(Less, &s, &a)?,
                            &compare(Less, &a, &b)?,
                        ))
                    })?,
                    when(db, || {
                        pick(combine(
                            LogicalOr,
                            &compare(Greater, &s, &b)?,
                            &compare(Less, &b, &a)?,
                        ))
                    })?,
                )
            }
        };
        Ok(smallvec![
            sum_to_opt(gs, s.dims())?,
            sum_to_opt(ga, a.dims())?,
            sum_to_opt(gb, b.dims())?,
        ])
    })
}

/// The result of broadcasting three shapes.
type Out3<T, A, B, C, D> = Var<T, <A as Broadcast3<B, C>>::Output, D>;

impl<T: Float, S: Shape, D: GradDevice<T>> Var<T, S, D> {
    /// Records a three-operand operation whose value is `value`.
    fn ternary<S1: Shape, S2: Shape, SO: Shape>(
        &self,
        a: &Var<T, S1, D>,
        b: &Var<T, S2, D>,
        value: Tensor<T, SO, D>,
        op: Ternary<T>,
    ) -> Var<T, SO, D> {
        Var::from_op(
            value,
            &[Some(&self.node), Some(&a.node), Some(&b.node)],
            || ternary_backward(op, self.erased(), a.erased(), b.erased()),
        )
    }

    /// `self + value * t1 * t2`, as `torch.addcmul`, all three broadcast
    /// together.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not match.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let s = Var::param(Tensor::<f64, Shape![2]>::zeros());
    /// let a = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![3.]));
    /// let b = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]));
    /// let g = s.addcmul(&a, &b, 2.).sum().backward();
    /// assert_eq!(g.wrt(&a).unwrap().to_vec(), vec![6.]);
    /// assert_eq!(g.wrt(&s).unwrap().to_vec(), vec![1., 1.]);
    /// ```
    #[track_caller]
    pub fn addcmul<S1: Shape, S2: Shape>(
        &self,
        t1: &Var<T, S1, D>,
        t2: &Var<T, S2, D>,
        value: T,
    ) -> Out3<T, S, S1, S2, D>
    where
        S: Broadcast3<S1, S2>,
    {
        let v = self.value.addcmul(&t1.value, &t2.value, value);
        self.ternary(t1, t2, v, Ternary::Addcmul(value))
    }

    /// `self + value * t1 / t2`, as `torch.addcdiv`.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not match.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let s = Var::param(Tensor::<f64, Shape![1]>::zeros());
    /// let a = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![3.]));
    /// let b = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![2.]));
    /// let g = s.addcdiv(&a, &b, 1.).sum().backward();
    /// assert_eq!(g.wrt(&b).unwrap().to_vec(), vec![-0.75]);
    /// ```
    #[track_caller]
    pub fn addcdiv<S1: Shape, S2: Shape>(
        &self,
        t1: &Var<T, S1, D>,
        t2: &Var<T, S2, D>,
        value: T,
    ) -> Out3<T, S, S1, S2, D>
    where
        S: Broadcast3<S1, S2>,
    {
        let v = self.value.addcdiv(&t1.value, &t2.value, value);
        self.ternary(t1, t2, v, Ternary::Addcdiv(value))
    }

    /// `self + weight * (end - self)`, as `torch.lerp`.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not match.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let a = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![0.]));
    /// let b = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![10.]));
    /// let w = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![0.25]));
    /// let g = a.lerp(&b, &w).sum().backward();
    /// assert_eq!(g.wrt(&a).unwrap().to_vec(), vec![0.75]);
    /// assert_eq!(g.wrt(&w).unwrap().to_vec(), vec![10.]);
    /// ```
    #[track_caller]
    pub fn lerp<S1: Shape, S2: Shape>(
        &self,
        end: &Var<T, S1, D>,
        weight: &Var<T, S2, D>,
    ) -> Out3<T, S, S1, S2, D>
    where
        S: Broadcast3<S1, S2>,
    {
        let v = self.value.lerp(&end.value, &weight.value);
        self.ternary(end, weight, v, Ternary::Lerp)
    }

    /// Clamps into `[min, max]` with tensor bounds, as `torch.clamp`; the
    /// gradient goes to whichever of the three the result came from.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not match.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![-5., 0., 5.]));
    /// let lo = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![-1.]));
    /// let hi = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![1.]));
    /// let g = x.clamp_tensor(&lo, &hi).sum().backward();
    /// assert_eq!(g.wrt(&x).unwrap().to_vec(), vec![0., 1., 0.]);
    /// assert_eq!(g.wrt(&lo).unwrap().to_vec(), vec![1.]);
    /// ```
    #[track_caller]
    pub fn clamp_tensor<S1: Shape, S2: Shape>(
        &self,
        min: &Var<T, S1, D>,
        max: &Var<T, S2, D>,
    ) -> Out3<T, S, S1, S2, D>
    where
        S: Broadcast3<S1, S2>,
    {
        let v = self.value.clamp_tensor(&min.value, &max.value);
        self.ternary(min, max, v, Ternary::ClampTensor)
    }

    /// Clamps into `[min, max]`, as `torch.clamp`; the gradient passes where
    /// `min <= x <= max`.
    ///
    /// ```
    /// use shaped::autograd::Var;
    /// use shaped::{Shape, Tensor};
    /// let x = Var::param(Tensor::<f32, Shape![3]>::from_vec(vec![-5., 0.5, 5.]));
    /// assert_eq!(x.clamp(0., 1.).sum().backward().wrt(&x).unwrap().to_vec(), vec![0., 1., 0.]);
    /// ```
    pub fn clamp(&self, min: T, max: T) -> Var<T, S, D> {
        let x = self.erased();
        Var::from_op(self.value.clamp(min, max), &[Some(&self.node)], move || {
            Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
                if g.numel() == 0 {
                    return Ok(smallvec![Some(g.share())]);
                }
                let (lo, hi) = (scalar_like(g, min)?, scalar_like(g, max)?);
                let inside = combine(
                    table::LogicalAnd,
                    &compare(table::GreaterEqual, &x, &lo)?,
                    &compare(table::LessEqual, &x, &hi)?,
                )?;
                Ok(smallvec![Some(masked(g, &inside, true)?)])
            })
        })
    }
}

/// `x` where `cond` holds, else `y`, all three broadcast together, as
/// `torch.where(cond, x, y)`: the gradient goes to `x` where `cond` holds
/// and to `y` elsewhere.
///
/// # Panics
/// With PyTorch's message when a run-time size does not match.
///
/// ```
/// use shaped::autograd::{where_cond, Var};
/// use shaped::{Shape, Tensor};
/// let c = Tensor::<bool, Shape![2]>::from_vec(vec![true, false]);
/// let x = Var::param(Tensor::<f32, Shape![2]>::ones());
/// let y = Var::param(Tensor::<f32, Shape![1]>::ones());
/// let g = where_cond(&c, &x, &y).sum().backward();
/// assert_eq!(g.wrt(&x).unwrap().to_vec(), vec![1., 0.]);
/// assert_eq!(g.wrt(&y).unwrap().to_vec(), vec![1.]);
/// ```
#[track_caller]
pub fn where_cond<T: Float, SC, SX: Shape, SY: Shape, D: GradDevice<T>>(
    cond: &Tensor<bool, SC, D>,
    x: &Var<T, SX, D>,
    y: &Var<T, SY, D>,
) -> Var<T, <SC as Broadcast3<SX, SY>>::Output, D>
where
    SC: Shape + Broadcast3<SX, SY>,
{
    let value = crate::where_cond(cond, &x.value, &y.value);
    let (c, dx, dy) = (
        cond.share().into_dyn(),
        x.value.dims().to_vec(),
        y.value.dims().to_vec(),
    );
    Var::from_op(value, &[Some(&x.node), Some(&y.node)], move || {
        Box::new(move |g: &DynTensor<T, D>, needs: &[bool]| {
            Ok(smallvec![
                when(needs[0], || sum_to_like(masked(g, &c, true)?, &dx))?,
                when(needs[1], || sum_to_like(masked(g, &c, false)?, &dy))?,
            ])
        })
    })
}
