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
use crate::element::{Element, Float, Numeric};
use crate::ops::scalar;
use crate::shape::OrPanic;
use crate::shape::{Broadcast, Broadcast3, BroadcastShape, ExpandsTo, Shape, ShapeError};

/// The result of broadcasting three tensors with shapes `A`, `B`, `C`.
type Out3<T, A, B, C> = Tensor<T, <A as Broadcast3<B, C>>::Output>;

impl<T: Numeric, S: Shape> Tensor<T, S> {
    /// `self + value * t1 * t2`, as `torch.addcmul`.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let s = Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]);
    /// let t = Tensor::<f64, Shape![1]>::from_vec(vec![3.]);
    /// assert_eq!(s.addcmul(&t, &t, 2.).to_vec(), vec![19., 20.]);
    /// ```
    #[track_caller]
    pub fn addcmul<S1: Shape, S2: Shape>(
        &self,
        t1: &Tensor<T, S1>,
        t2: &Tensor<T, S2>,
        value: T,
    ) -> Out3<T, S, S1, S2>
    where
        S: Broadcast3<S1, S2>,
    {
        self.try_addcmul(t1, t2, value).or_panic()
    }

    /// The fallible form of [`Tensor::addcmul`].
    ///
    /// # Errors
    /// PyTorch's broadcast error when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let s = Tensor::<f64, DynRank>::try_ones(&[2, 3]).unwrap();
    /// let t = Tensor::<f64, DynRank>::try_ones(&[2]).unwrap();
    /// assert_eq!(s.try_addcmul(&t, &t, 1.).unwrap_err().to_string(),
    ///     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1");
    /// ```
    pub fn try_addcmul<S1: Shape, S2: Shape>(
        &self,
        t1: &Tensor<T, S1>,
        t2: &Tensor<T, S2>,
        value: T,
    ) -> Result<Out3<T, S, S1, S2>, ShapeError>
    where
        S: Broadcast3<S1, S2>,
    {
        self.try_zip_map3(t1, t2, move |s, a, b| s.wadd(value.wmul(a.wmul(b))))
    }

    /// `addcmul` in place, as `Tensor.addcmul_`: `t1` and `t2` broadcast to
    /// `self`'s shape.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_addcmul_`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut s = Tensor::<i32, Shape![2]>::from_vec(vec![1, 2]);
    /// let t = Tensor::<i32, Shape![1]>::from_vec(vec![3]);
    /// s.addcmul_(&t, &t, 2);
    /// assert_eq!(s.to_vec(), vec![19, 20]);
    /// ```
    #[track_caller]
    pub fn addcmul_<S1, S2>(&mut self, t1: &Tensor<T, S1>, t2: &Tensor<T, S2>, value: T)
    where
        S1: ExpandsTo<S>,
        S2: ExpandsTo<S>,
    {
        self.try_addcmul_(t1, t2, value).or_panic()
    }

    /// The fallible form of [`Tensor::addcmul_`].
    ///
    /// # Errors
    /// As PyTorch's in-place operations: the broadcast error, or "output
    /// with shape [..] doesn't match the broadcast shape [..]"; elements of
    /// `self` that share memory.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut s = Tensor::<f32, Shape![2, 2]>::zeros();
    /// let t = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// s.try_addcmul_(&t, &t, 1.).unwrap();
    /// assert_eq!(s.to_vec(), vec![1., 4., 1., 4.]);
    /// ```
    pub fn try_addcmul_<S1, S2>(
        &mut self,
        t1: &Tensor<T, S1>,
        t2: &Tensor<T, S2>,
        value: T,
    ) -> Result<(), ShapeError>
    where
        S1: ExpandsTo<S>,
        S2: ExpandsTo<S>,
    {
        self.try_zip_map3_(t1, t2, move |s, a, b| s.wadd(value.wmul(a.wmul(b))))
    }

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
    pub fn clamp_tensor<S1: Shape, S2: Shape>(
        &self,
        min: &Tensor<T, S1>,
        max: &Tensor<T, S2>,
    ) -> Out3<T, S, S1, S2>
    where
        S: Broadcast3<S1, S2>,
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
    pub fn try_clamp_tensor<S1: Shape, S2: Shape>(
        &self,
        min: &Tensor<T, S1>,
        max: &Tensor<T, S2>,
    ) -> Result<Out3<T, S, S1, S2>, ShapeError>
    where
        S: Broadcast3<S1, S2>,
    {
        self.try_zip_map3(min, max, scalar::clamp)
    }

    /// Clamps into `[min, max]` with scalar bounds, as `torch.clamp`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let x = Tensor::<f32, Shape![3]>::from_vec(vec![-5., 0.5, 5.]);
    /// assert_eq!(x.clamp(0., 1.).to_vec(), vec![0., 0.5, 1.]);
    /// ```
    pub fn clamp(&self, min: T, max: T) -> Tensor<T, S> {
        self.map(move |x| scalar::clamp(x, min, max))
    }
}

impl<T: Float, S: Shape> Tensor<T, S> {
    /// `self + value * t1 / t2`, as `torch.addcdiv`.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let s = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// let a = Tensor::<f32, Shape![1]>::from_vec(vec![3.]);
    /// let b = Tensor::<f32, Shape![2, 1]>::from_vec(vec![1., 2.]);
    /// assert_eq!(s.addcdiv(&a, &b, 2.).to_vec(), vec![7., 8., 4., 5.]);
    /// ```
    #[track_caller]
    pub fn addcdiv<S1: Shape, S2: Shape>(
        &self,
        t1: &Tensor<T, S1>,
        t2: &Tensor<T, S2>,
        value: T,
    ) -> Out3<T, S, S1, S2>
    where
        S: Broadcast3<S1, S2>,
    {
        self.try_addcdiv(t1, t2, value).or_panic()
    }

    /// The fallible form of [`Tensor::addcdiv`].
    ///
    /// # Errors
    /// PyTorch's broadcast error when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let s = Tensor::<f32, DynRank>::try_ones(&[2, 3]).unwrap();
    /// let t = Tensor::<f32, DynRank>::try_ones(&[2]).unwrap();
    /// assert!(s.try_addcdiv(&t, &t, 1.).is_err());
    /// assert_eq!(s.try_addcdiv(&s, &s, 2.).unwrap().to_vec(), vec![3.; 6]);
    /// ```
    pub fn try_addcdiv<S1: Shape, S2: Shape>(
        &self,
        t1: &Tensor<T, S1>,
        t2: &Tensor<T, S2>,
        value: T,
    ) -> Result<Out3<T, S, S1, S2>, ShapeError>
    where
        S: Broadcast3<S1, S2>,
    {
        self.try_zip_map3(t1, t2, move |s, a, b| s + value * a / b)
    }

    /// `addcdiv` in place, as `Tensor.addcdiv_`: `t1` and `t2` broadcast to
    /// `self`'s shape.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_addcdiv_`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut s = Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]);
    /// let t = Tensor::<f64, Shape![1]>::from_vec(vec![4.]);
    /// s.addcdiv_(&t, &t, 3.);
    /// assert_eq!(s.to_vec(), vec![4., 5.]);
    /// ```
    #[track_caller]
    pub fn addcdiv_<S1, S2>(&mut self, t1: &Tensor<T, S1>, t2: &Tensor<T, S2>, value: T)
    where
        S1: ExpandsTo<S>,
        S2: ExpandsTo<S>,
    {
        self.try_addcdiv_(t1, t2, value).or_panic()
    }

    /// The fallible form of [`Tensor::addcdiv_`].
    ///
    /// # Errors
    /// As [`Tensor::try_addcmul_`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut s = Tensor::<f64, Shape![2]>::zeros();
    /// let t = Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]);
    /// s.try_addcdiv_(&t, &t, 3.).unwrap();
    /// assert_eq!(s.to_vec(), vec![3., 3.]);
    /// ```
    pub fn try_addcdiv_<S1, S2>(
        &mut self,
        t1: &Tensor<T, S1>,
        t2: &Tensor<T, S2>,
        value: T,
    ) -> Result<(), ShapeError>
    where
        S1: ExpandsTo<S>,
        S2: ExpandsTo<S>,
    {
        self.try_zip_map3_(t1, t2, move |s, a, b| s + value * a / b)
    }

    /// `self + weight * (end - self)` with a tensor weight, all broadcast
    /// together, as `torch.lerp`.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![1]>::from_vec(vec![0.]);
    /// let b = Tensor::<f32, Shape![1]>::from_vec(vec![10.]);
    /// let w = Tensor::<f32, Shape![3]>::from_vec(vec![0., 0.5, 1.]);
    /// assert_eq!(a.lerp(&b, &w).to_vec(), vec![0., 5., 10.]);
    /// ```
    #[track_caller]
    pub fn lerp<S1: Shape, S2: Shape>(
        &self,
        end: &Tensor<T, S1>,
        weight: &Tensor<T, S2>,
    ) -> Out3<T, S, S1, S2>
    where
        S: Broadcast3<S1, S2>,
    {
        self.try_lerp(end, weight).or_panic()
    }

    /// The fallible form of [`Tensor::lerp`].
    ///
    /// # Errors
    /// PyTorch's broadcast error when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let a = Tensor::<f64, DynRank>::try_zeros(&[2, 3]).unwrap();
    /// let w = Tensor::<f64, DynRank>::try_zeros(&[2]).unwrap();
    /// assert!(a.try_lerp(&a, &w).is_err());
    /// ```
    pub fn try_lerp<S1: Shape, S2: Shape>(
        &self,
        end: &Tensor<T, S1>,
        weight: &Tensor<T, S2>,
    ) -> Result<Out3<T, S, S1, S2>, ShapeError>
    where
        S: Broadcast3<S1, S2>,
    {
        self.try_zip_map3(end, weight, lerp)
    }

    /// `lerp` in place, as `Tensor.lerp_`: `end` and `weight` broadcast to
    /// `self`'s shape.
    ///
    /// # Panics
    /// With the message of [`Tensor::try_lerp_`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut a = Tensor::<f32, Shape![3]>::zeros();
    /// let b = Tensor::<f32, Shape![1]>::from_vec(vec![10.]);
    /// a.lerp_(&b, &Tensor::<f32, Shape![3]>::from_vec(vec![0., 0.5, 1.]));
    /// assert_eq!(a.to_vec(), vec![0., 5., 10.]);
    /// ```
    #[track_caller]
    pub fn lerp_<S1, S2>(&mut self, end: &Tensor<T, S1>, weight: &Tensor<T, S2>)
    where
        S1: ExpandsTo<S>,
        S2: ExpandsTo<S>,
    {
        self.try_lerp_(end, weight).or_panic()
    }

    /// The fallible form of [`Tensor::lerp_`].
    ///
    /// # Errors
    /// As [`Tensor::try_addcmul_`].
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let mut a = Tensor::<f64, DynRank>::try_zeros(&[1, 4]).unwrap();
    /// let b = Tensor::<f64, DynRank>::try_zeros(&[3, 4]).unwrap();
    /// assert_eq!(a.try_lerp_(&b, &a.clone()).unwrap_err().to_string(),
    ///     "output with shape [1, 4] doesn't match the broadcast shape [3, 4]");
    /// ```
    pub fn try_lerp_<S1, S2>(
        &mut self,
        end: &Tensor<T, S1>,
        weight: &Tensor<T, S2>,
    ) -> Result<(), ShapeError>
    where
        S1: ExpandsTo<S>,
        S2: ExpandsTo<S>,
    {
        self.try_zip_map3_(end, weight, lerp)
    }

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
        end: &Tensor<T, S1>,
        weight: T,
    ) -> Tensor<T, Broadcast<S, S1>>
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
        end: &Tensor<T, S1>,
        weight: T,
    ) -> Result<Tensor<T, Broadcast<S, S1>>, ShapeError>
    where
        S: BroadcastShape<S1>,
    {
        self.try_zip_map(end, move |a, b| lerp(a, b, weight))
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
    pub fn lerp_scalar_<S1>(&mut self, end: &Tensor<T, S1>, weight: T)
    where
        S1: ExpandsTo<S>,
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
    pub fn try_lerp_scalar_<S1>(&mut self, end: &Tensor<T, S1>, weight: T) -> Result<(), ShapeError>
    where
        S1: ExpandsTo<S>,
    {
        self.try_zip_map_(end, move |a, b| lerp(a, b, weight))
    }
}

/// PyTorch's lerp: from the nearer end, so that `weight = 1` gives `end`
/// exactly.
fn lerp<T: Float>(start: T, end: T, w: T) -> T {
    let half = T::from_f64(0.5);
    if w.abs() < half {
        start + w * (end - start)
    } else {
        end - (end - start) * (T::one() - w)
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
pub fn where_cond<T: Element, SC, SX: Shape, SY: Shape>(
    cond: &Tensor<bool, SC>,
    x: &Tensor<T, SX>,
    y: &Tensor<T, SY>,
) -> Out3<T, SC, SX, SY>
where
    SC: Broadcast3<SX, SY>,
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
pub fn try_where_cond<T: Element, SC, SX: Shape, SY: Shape>(
    cond: &Tensor<bool, SC>,
    x: &Tensor<T, SX>,
    y: &Tensor<T, SY>,
) -> Result<Out3<T, SC, SX, SY>, ShapeError>
where
    SC: Broadcast3<SX, SY>,
{
    cond.try_zip_map3(x, y, |c, a, b| if c { a } else { b })
}
