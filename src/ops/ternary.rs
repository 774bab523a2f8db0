//! Three-operand pointwise operations. Out of place, all three operands
//! broadcast together (as PyTorch documents: equivalent to breaking the operation into
//! two-operand steps); in place, the other two broadcast to `self`'s shape.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let c = Tensor::<f32, Shape![3, 1]>::zeros();
//! let a = Tensor::<f32, Shape![4]>::ones();
//! let b = Tensor::<f32, Shape![2, 1, 1]>::full(2.0);
//! let r: Tensor<f32, Shape![2, 3, 4]> = c.addcmul(&a, &b, 0.5);
//! assert!(r.to_vec().iter().all(|&x| x == 1.0));
//! ```

use crate::Tensor;
use crate::backend::Backend;
use crate::backend::op::ScalarRhs;
use crate::backend::op::table;
use crate::device::{Cpu, Device};
use crate::element::{Element, Float, Numeric};
use crate::ops::operand::SecondOperand;
use crate::shape::OrPanic;
use crate::shape::{Broadcast, Broadcast3, BroadcastShape, ExpandsTo, Shape};
use crate::tensor::pointwise;

/// The result of broadcasting three tensors with shapes `A`, `B`, `C` on
/// device `D`.
type Out3<T, A, B, C, D = Cpu> = Tensor<T, <A as Broadcast3<B, C>>::Output, D>;

/// Defines the four forms of a three-operand op from its op-table entry:
/// `op` and `try_op` (all three operands broadcast together), `op_` and
/// `try_op_` (the other two broadcast to `self`'s shape). `; value = 1.`
/// adds a scalar parameter (the literal is the one the generated examples
/// pass).
macro_rules! ternary_ops {
    ($(
        $(#[$doc:meta])*
        $name:ident / $try_name:ident / $inplace:ident / $try_inplace:ident
        ($b:ident, $c:ident $(; $v:ident = $ex:literal)?) : $bound:ident => $op:expr;
    )*) => {$(
        impl<T: $bound, S: Shape, D: Backend<T>> Tensor<T, S, D> {
            $(#[$doc])*
            ///
            /// # Panics
            /// With PyTorch's message when a run-time size does not match.
            #[track_caller]
            pub fn $name<R1, R2>(
                &self,
                $b: &R1,
                $c: &R2,
                $($v: T,)?
            ) -> Out3<T, S, R1::Shape, R2::Shape, D>
            where
                R1: SecondOperand<T, D>,
                R2: SecondOperand<T, D>,
                S: Broadcast3<R1::Shape, R2::Shape>,
            {
                self.$try_name($b, $c $(, $v)?).or_panic()
            }

            #[doc = concat!("The fallible form of [`Tensor::", stringify!($name), "`].")]
            ///
            /// # Errors
            /// PyTorch's broadcast error when a run-time size does not match.
            ///
            /// ```
            /// use shaped::{DynRank, Tensor};
            /// let s = Tensor::<f64, DynRank>::try_ones(&[2, 3]).unwrap();
            /// let t = Tensor::<f64, DynRank>::try_ones(&[2]).unwrap();
            #[doc = concat!("assert_eq!(s.", stringify!($try_name), "(&t, &t", $(", ", stringify!($ex),)? ").unwrap_err().to_string(),")]
            ///     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
            /// ```
            pub fn $try_name<R1, R2>(
                &self,
                $b: &R1,
                $c: &R2,
                $($v: T,)?
            ) -> Result<Out3<T, S, R1::Shape, R2::Shape, D>, D::Error>
            where
                R1: SecondOperand<T, D>,
                R2: SecondOperand<T, D>,
                S: Broadcast3<R1::Shape, R2::Shape>,
            {
                pointwise::ternary($op, self, $b.operand(), $c.operand())
            }

            #[doc = concat!("[`Tensor::", stringify!($name), "`] in place, as `Tensor.", stringify!($inplace), "`: the other two operands broadcast to `self`'s shape, which never changes.")]
            ///
            /// # Panics
            #[doc = concat!("With the message of [`Tensor::", stringify!($try_inplace), "`]'s error.")]
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let mut s = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
            /// let t = Tensor::<f64, Shape![2]>::from_vec(vec![0.25, 2.]);
            #[doc = concat!("let want = s.", stringify!($name), "(&t, &t", $(", ", stringify!($ex),)? ").to_vec();")]
            #[doc = concat!("s.", stringify!($inplace), "(&t, &t", $(", ", stringify!($ex),)? ");")]
            /// assert_eq!(s.to_vec(), want);
            /// ```
            #[track_caller]
            pub fn $inplace<R1, R2>(&mut self, $b: &R1, $c: &R2 $(, $v: T)?)
            where
                R1: SecondOperand<T, D>,
                R2: SecondOperand<T, D>,
                R1::Shape: ExpandsTo<S>,
                <R1::Shape as ExpandsTo<S>>::Expanded: Shape,
                R2::Shape: ExpandsTo<S>,
                <R2::Shape as ExpandsTo<S>>::Expanded: Shape,
            {
                self.$try_inplace($b, $c $(, $v)?).or_panic()
            }

            #[doc = concat!("The fallible form of [`Tensor::", stringify!($inplace), "`].")]
            ///
            /// # Errors
            /// As PyTorch's in-place operations: the broadcast error, or
            /// "output with shape [..] doesn't match the broadcast shape
            /// [..]"; elements of `self` that share memory.
            ///
            /// ```
            /// use shaped::{DynRank, Tensor};
            /// let mut s = Tensor::<f64, DynRank>::try_ones(&[1, 4]).unwrap();
            /// let t = Tensor::<f64, DynRank>::try_ones(&[3, 4]).unwrap();
            #[doc = concat!("assert_eq!(s.", stringify!($try_inplace), "(&t, &t", $(", ", stringify!($ex),)? ").unwrap_err().to_string(),")]
            ///     "output with shape [1, 4] doesn't match the broadcast shape [3, 4]");
            /// ```
            pub fn $try_inplace<R1, R2>(
                &mut self,
                $b: &R1,
                $c: &R2,
                $($v: T,)?
            ) -> Result<(), D::Error>
            where
                R1: SecondOperand<T, D>,
                R2: SecondOperand<T, D>,
                R1::Shape: ExpandsTo<S>,
                <R1::Shape as ExpandsTo<S>>::Expanded: Shape,
                R2::Shape: ExpandsTo<S>,
                <R2::Shape as ExpandsTo<S>>::Expanded: Shape,
            {
                pointwise::ternary_($op, self, $b.operand(), $c.operand())
            }
        }
    )*};
}

ternary_ops! {
    /// `self + value * t1 * t2`, as `torch.addcmul`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let s = Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]);
    /// let t = Tensor::<f64, Shape![1]>::from_vec(vec![3.]);
    /// assert_eq!(s.addcmul(&t, &t, 2.).to_vec(), vec![19., 20.]);
    /// ```
    addcmul / try_addcmul / addcmul_ / try_addcmul_ (t1, t2; value = 2.): Numeric => table::Addcmul(value);

    /// `self + value * t1 / t2`, as `torch.addcdiv`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let s = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// let a = Tensor::<f32, Shape![1]>::from_vec(vec![3.]);
    /// let b = Tensor::<f32, Shape![2, 1]>::from_vec(vec![1., 2.]);
    /// assert_eq!(s.addcdiv(&a, &b, 2.).to_vec(), vec![7., 8., 4., 5.]);
    /// ```
    addcdiv / try_addcdiv / addcdiv_ / try_addcdiv_ (t1, t2; value = 2.): Float => table::Addcdiv(value);

    /// `self + weight * (end - self)` with a tensor weight, all broadcast
    /// together, as `torch.lerp`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![1]>::from_vec(vec![0.]);
    /// let b = Tensor::<f32, Shape![1]>::from_vec(vec![10.]);
    /// let w = Tensor::<f32, Shape![3]>::from_vec(vec![0., 0.5, 1.]);
    /// assert_eq!(a.lerp(&b, &w).to_vec(), vec![0., 5., 10.]);
    /// ```
    lerp / try_lerp / lerp_ / try_lerp_ (end, weight): Float => table::Lerp;
}

impl<T: Numeric, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// Clamps into `[min, max]` with tensor bounds, all broadcast together, as
    /// `torch.clamp(self, min, max)`: `max` wins where `min > max`; NaN stays.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![3]>::from_vec(vec![-5, 0, 5]);
    /// let lo = Tensor::<i32, Shape![1]>::from_vec(vec![-1]);
    /// let hi = Tensor::<i32, Shape![2, 1]>::from_vec(vec![1, 2]);
    /// assert_eq!(x.clamp_tensor(&lo, &hi).to_vec(), vec![-1, 0, 1, -1, 0, 2]);
    /// ```
    #[track_caller]
    pub fn clamp_tensor<R1, R2>(&self, min: &R1, max: &R2) -> Out3<T, S, R1::Shape, R2::Shape, D>
    where
        R1: SecondOperand<T, D>,
        R2: SecondOperand<T, D>,
        S: Broadcast3<R1::Shape, R2::Shape>,
    {
        self.try_clamp_tensor(min, max).or_panic()
    }

    /// The fallible form of [`Tensor::clamp_tensor`].
    ///
    /// # Errors
    /// PyTorch's broadcast error when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let x = Tensor::<f32, DynRank>::try_zeros(&[2, 3]).unwrap();
    /// let lo = Tensor::<f32, DynRank>::try_zeros(&[2]).unwrap();
    /// assert!(x.try_clamp_tensor(&lo, &x).is_err());
    /// ```
    #[allow(clippy::type_complexity)]
    pub fn try_clamp_tensor<R1, R2>(
        &self,
        min: &R1,
        max: &R2,
    ) -> Result<Out3<T, S, R1::Shape, R2::Shape, D>, D::Error>
    where
        R1: SecondOperand<T, D>,
        R2: SecondOperand<T, D>,
        S: Broadcast3<R1::Shape, R2::Shape>,
    {
        pointwise::ternary(table::Clamp, self, min.operand(), max.operand())
    }

    /// Clamps into `[min, max]` with scalar bounds, as `torch.clamp`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![3]>::from_vec(vec![-5., 0.5, 5.]);
    /// assert_eq!(x.clamp(0., 1.).to_vec(), vec![0., 0.5, 1.]);
    /// ```
    ///
    /// # Panics
    /// When the result cannot be allocated, or on a driver error.
    #[track_caller]
    pub fn clamp(&self, min: T, max: T) -> Tensor<T, S, D> {
        self.try_clamp(min, max).or_panic()
    }

    /// The fallible form of [`Tensor::clamp`]: [`Tensor::try_clamp_min`],
    /// then `clamp_max` in place on the result.
    ///
    /// # Errors
    /// When the result cannot be allocated, or a driver error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i32, Shape![3]>::from_vec(vec![-5, 1, 5]);
    /// assert_eq!(x.try_clamp(3, 0).unwrap().to_vec(), vec![0, 0, 0]);
    /// ```
    pub fn try_clamp(&self, min: T, max: T) -> Result<Tensor<T, S, D>, D::Error> {
        let mut out = self.try_clamp_min(min)?;
        pointwise::unary_(ScalarRhs(table::ClampMax, max), &mut out)?;
        Ok(out)
    }

    /// `max(self, min)` with NaN kept, as `torch.clamp_min` with a number.
    ///
    /// # Errors
    /// When the result cannot be allocated, or a driver error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![3]>::from_vec(vec![-5., f32::NAN, 5.]);
    /// let y = x.try_clamp_min(0.).unwrap().to_vec();
    /// assert!(y[0] == 0. && y[1].is_nan() && y[2] == 5.);
    /// ```
    pub fn try_clamp_min(&self, min: T) -> Result<Tensor<T, S, D>, D::Error> {
        pointwise::unary(ScalarRhs(table::ClampMin, min), self)
    }

    /// `min(self, max)` with NaN kept, as `torch.clamp_max` with a number.
    ///
    /// # Errors
    /// When the result cannot be allocated, or a driver error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<i64, Shape![3]>::from_vec(vec![-5, 0, 5]);
    /// assert_eq!(x.try_clamp_max(1).unwrap().to_vec(), vec![-5, 0, 1]);
    /// ```
    pub fn try_clamp_max(&self, max: T) -> Result<Tensor<T, S, D>, D::Error> {
        pointwise::unary(ScalarRhs(table::ClampMax, max), self)
    }
}

impl<T: Float, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// `self + weight * (end - self)` with a scalar weight, the two tensors
    /// broadcast together, as `torch.lerp(self, end, weight)` with a number.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f64, Shape![2, 1]>::from_vec(vec![0., 10.]);
    /// let b = Tensor::<f64, Shape![2]>::from_vec(vec![20., 30.]);
    /// assert_eq!(a.lerp_scalar(&b, 0.5).to_vec(), vec![10., 15., 15., 20.]);
    /// ```
    #[track_caller]
    pub fn lerp_scalar<S1: Shape>(
        &self,
        end: &Tensor<T, S1, D>,
        weight: T,
    ) -> Tensor<T, Broadcast<S, S1>, D>
    where
        S: BroadcastShape<S1>,
    {
        self.try_lerp_scalar(end, weight).or_panic()
    }

    /// The fallible form of [`Tensor::lerp_scalar`].
    ///
    /// # Errors
    /// PyTorch's broadcast error when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let a = Tensor::<f64, DynRank>::try_zeros(&[2, 3]).unwrap();
    /// let b = Tensor::<f64, DynRank>::try_zeros(&[2]).unwrap();
    /// assert!(a.try_lerp_scalar(&b, 0.5).is_err());
    /// ```
    pub fn try_lerp_scalar<S1: Shape>(
        &self,
        end: &Tensor<T, S1, D>,
        weight: T,
    ) -> Result<Tensor<T, Broadcast<S, S1>, D>, D::Error>
    where
        S: BroadcastShape<S1>,
    {
        pointwise::binary(table::LerpScalar(weight), self, end)
    }

    /// [`Tensor::lerp_scalar`] in place, as `Tensor.lerp_` with a number:
    /// `end` broadcasts to `self`'s shape.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_lerp_scalar_`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut a = Tensor::<f32, Shape![2]>::from_vec(vec![0., 4.]);
    /// a.lerp_scalar_(&Tensor::<f32, Shape![1]>::from_vec(vec![8.]), 0.25);
    /// assert_eq!(a.to_vec(), vec![2., 5.]);
    /// ```
    #[track_caller]
    pub fn lerp_scalar_<S1>(&mut self, end: &Tensor<T, S1, D>, weight: T)
    where
        S1: ExpandsTo<S>,
        S1::Expanded: Shape,
    {
        self.try_lerp_scalar_(end, weight).or_panic()
    }

    /// The fallible form of [`Tensor::lerp_scalar_`].
    ///
    /// # Errors
    /// As [`Tensor::try_addcmul_`].
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let mut a = Tensor::<f64, DynRank>::try_zeros(&[2, 3]).unwrap();
    /// let b = Tensor::<f64, DynRank>::try_zeros(&[2]).unwrap();
    /// assert_eq!(a.try_lerp_scalar_(&b, 0.5).unwrap_err().to_string(),
    ///     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
    /// ```
    pub fn try_lerp_scalar_<S1>(
        &mut self,
        end: &Tensor<T, S1, D>,
        weight: T,
    ) -> Result<(), D::Error>
    where
        S1: ExpandsTo<S>,
        S1::Expanded: Shape,
    {
        pointwise::binary_(table::LerpScalar(weight), self, end)
    }
}

/// `x` where `cond` holds, else `y`, all three broadcast together, as
/// `torch.where(cond, x, y)`.
///
/// # Panics
/// With PyTorch's message when a run-time size does not match.
///
/// ```
/// use shaped::{where_cond, Shape, Tensor};
/// let c = Tensor::<bool, Shape![2, 1]>::from_vec(vec![true, false]);
/// let x = Tensor::<i32, Shape![3]>::from_vec(vec![1, 2, 3]);
/// let y = Tensor::<i32, Shape![1]>::from_vec(vec![0]);
/// assert_eq!(where_cond(&c, &x, &y).to_vec(), vec![1, 2, 3, 0, 0, 0]);
/// ```
#[track_caller]
pub fn where_cond<T: Element, SC, SX: Shape, R, D: Backend<T> + Backend<bool>>(
    cond: &Tensor<bool, SC, D>,
    x: &Tensor<T, SX, D>,
    y: &R,
) -> Out3<T, SC, SX, R::Shape, D>
where
    R: SecondOperand<T, D>,
    SC: Broadcast3<SX, R::Shape>,
    SC::Output: Shape,
{
    try_where_cond(cond, x, y).or_panic()
}

/// The fallible form of [`where_cond`].
///
/// # Errors
/// PyTorch's broadcast error when a run-time size does not match.
///
/// ```
/// use shaped::{try_where_cond, DynRank, Tensor};
/// let c = Tensor::<bool, DynRank>::try_full(&[2], true).unwrap();
/// let x = Tensor::<f32, DynRank>::try_zeros(&[3]).unwrap();
/// assert!(try_where_cond(&c, &x, &x).is_err());
/// ```
#[allow(clippy::type_complexity)]
pub fn try_where_cond<T: Element, SC, SX: Shape, R, D: Backend<T> + Backend<bool>>(
    cond: &Tensor<bool, SC, D>,
    x: &Tensor<T, SX, D>,
    y: &R,
) -> Result<Out3<T, SC, SX, R::Shape, D>, <D as Device>::Error>
where
    R: SecondOperand<T, D>,
    SC: Broadcast3<SX, R::Shape>,
    SC::Output: Shape,
{
    pointwise::select(table::Where, cond, x, y.operand())
}
