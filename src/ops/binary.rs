//! Two-operand pointwise operations with broadcasting (PyTorch's "pointwise
//! two tensor operand math functions") on every device: each is one line
//! below, giving its names, the element family it needs, the precondition
//! on its right operand and its op-table entry (`table.rs`).
//!
//! Every operation `op` comes as `a.op(&b)`, which panics with PyTorch's
//! message when a run-time size does not match, and `a.try_op(&b)`, which
//! returns it. Static sizes are checked by the compiler.
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<f32, Shape![5, 1, 4, 1]>::ones();
//! let b = Tensor::<f32, Shape![3, 1, 1]>::ones();
//! let c: Tensor<f32, Shape![5, 3, 4, 1]> = a.add(&b);
//! assert!(c.to_vec().iter().all(|&x| x == 2.0));
//! ```

use crate::DynRank;
use crate::Tensor;
use crate::backend::Backend;
use crate::backend::op::table;
use crate::device::Device;
use crate::element::{Element, Float, Numeric};
use crate::ops::operand::SecondOperand;
use crate::shape::OrPanic;
use crate::shape::{Broadcast, BroadcastShape, ExpandsTo, Shape, ShapeError};
use crate::tensor::host;
use crate::tensor::pointwise;

/// Defines every form of a two-operand operation from its scalar function:
/// `op`, `try_op`, `op_out` (PyTorch's `out=`), `op_` (in place) and
/// `try_op_`, and the operation's line in [`binary_op_table`].
macro_rules! binary_ops {
    ($(
        $(#[$doc:meta])*
        $name:ident / $try_name:ident / $out_name:ident / $inplace:ident / $try_inplace:ident : $bound:ident, $check:ident, $Op:ident;
    )*) => {
        $(
        impl<T: $bound, S: Shape, D: Backend<T>> Tensor<T, S, D> {
            $(#[$doc])*
            ///
            /// # Panics
            /// With PyTorch's message when a run-time size does not match.
            #[track_caller]
            pub fn $name<R>(&self, other: &R) -> Tensor<T, Broadcast<S, R::Shape>, D>
            where
                R: SecondOperand<T, D>,
                S: BroadcastShape<R::Shape>,
            {
                self.$try_name(other).or_panic()
            }

            #[doc = concat!("The fallible form of [`Tensor::", stringify!($name), "`].")]
            ///
            /// # Errors
            /// PyTorch's broadcast error when a run-time size does not match.
            ///
            /// ```
            /// use shaped::{DynRank, Tensor};
            /// let a = Tensor::<f64, DynRank>::try_ones(&[2, 3]).unwrap();
            /// let b = Tensor::<f64, DynRank>::try_ones(&[2]).unwrap();
            #[doc = concat!("assert!(a.", stringify!($try_name), "(&b).is_err());")]
            #[doc = concat!("assert!(a.", stringify!($try_name), "(&a).is_ok());")]
            /// ```
            pub fn $try_name<R>(&self, other: &R) -> Result<Tensor<T, Broadcast<S, R::Shape>, D>, D::Error>
            where
                R: SecondOperand<T, D>,
                S: BroadcastShape<R::Shape>,
            {
                let other = other.operand();
                $check(other)?;
                pointwise::binary(table::$Op, self, other)
            }

            #[doc = concat!("[`Tensor::", stringify!($name), "`] written into `out`, as PyTorch's `out=` argument (`out` is not resized).")]
            ///
            /// # Errors
            /// PyTorch's broadcast error, or when `out`'s sizes are not the
            /// broadcast sizes, or elements of `out` share memory.
            ///
            /// ```
            /// use shaped::{DynRank, Tensor};
            /// let a = Tensor::<f64, DynRank>::try_ones(&[2, 3]).unwrap();
            /// let mut out = Tensor::<f64, DynRank>::try_zeros(&[2, 3]).unwrap();
            #[doc = concat!("a.", stringify!($out_name), "(&a, &mut out).unwrap();")]
            #[doc = concat!("assert_eq!(out.to_vec(), a.", stringify!($name), "(&a).to_vec());")]
            /// ```
            pub fn $out_name<R>(&self, other: &R, out: &mut Tensor<T, Broadcast<S, R::Shape>, D>) -> Result<(), D::Error>
            where
                R: SecondOperand<T, D>,
                S: BroadcastShape<R::Shape>,
            {
                let other = other.operand();
                $check(other)?;
                pointwise::binary_into(table::$Op, self, other, out)
            }

            #[doc = concat!("[`Tensor::", stringify!($name), "`] in place, as `Tensor.", stringify!($inplace), "`: `other` broadcasts to `self`'s shape, which never changes.")]
            ///
            /// # Panics
            /// With the message of the `try_` form's error.
            ///
            /// ```
            /// use shaped::{Shape, Tensor};
            /// let mut a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
            /// let b = Tensor::<f64, Shape![2]>::from_vec(vec![5., 6.]);
            #[doc = concat!("let want = a.", stringify!($name), "(&b).to_vec();")]
            #[doc = concat!("a.", stringify!($inplace), "(&b);")]
            /// assert_eq!(a.to_vec(), want);
            /// ```
            #[track_caller]
            pub fn $inplace<R>(&mut self, other: &R)
            where
                R: SecondOperand<T, D>,
                R::Shape: ExpandsTo<S>,
                <R::Shape as ExpandsTo<S>>::Expanded: Shape,
            {
                self.$try_inplace(other).or_panic()
            }

            #[doc = concat!("The fallible form of [`Tensor::", stringify!($inplace), "`].")]
            ///
            /// # Errors
            /// As current PyTorch: the broadcast error when `self` and `other`
            /// do not broadcast, "output with shape [..] doesn't match the
            /// broadcast shape [..]" when they broadcast to another shape than
            /// `self`'s; or when elements of `self` share memory.
            ///
            /// ```
            /// use shaped::{DynRank, Tensor};
            /// let mut a = Tensor::<f64, DynRank>::try_ones(&[1, 4]).unwrap();
            /// let b = Tensor::<f64, DynRank>::try_ones(&[3, 4]).unwrap();
            #[doc = concat!("assert_eq!(a.", stringify!($try_inplace), "(&b).unwrap_err().to_string(),")]
            ///     "output with shape [1, 4] doesn't match the broadcast shape [3, 4]");
            /// ```
            pub fn $try_inplace<R>(&mut self, other: &R) -> Result<(), D::Error>
            where
                R: SecondOperand<T, D>,
                R::Shape: ExpandsTo<S>,
                <R::Shape as ExpandsTo<S>>::Expanded: Shape,
            {
                let other = other.operand();
                $check(other)?;
                pointwise::binary_(table::$Op, self, other)
            }
        }
        )*

        /// The two-operand op table: every operation of `binary.rs` with each
        /// of its forms, for `T` on shapes of dynamic rank, in the order of
        /// the table. Generated by the macro that defines the operations, so
        /// tests can walk every operation and all of its forms.
        ///
        /// ```
        /// use shaped::ops::binary_op_table;
        /// use shaped::{DynRank, Tensor};
        /// let a = Tensor::<f64, DynRank>::try_from_vec(vec![1., 2.], &[2]).unwrap();
        /// let add = binary_op_table::<f64>().into_iter().find(|f| f.name == "add").unwrap();
        /// assert_eq!((add.op)(&a, &a).to_vec(), vec![2., 4.]);
        /// ```
        pub fn binary_op_table<T: Float>() -> Vec<BinaryOpForms<T>> {
            vec![$(
                BinaryOpForms {
                    name: stringify!($name),
                    op: |a, b| a.$name(b),
                    try_op: |a, b| a.$try_name(b),
                    out: |a, b, out| a.$out_name(b, out),
                    inplace: |a, b| a.$inplace(b),
                    try_inplace: |a, b| a.$try_inplace(b),
                },
            )*]
        }
    };
}

/// A tensor of dynamic rank, as the op table's forms take them.
type DynT<T> = Tensor<T, DynRank>;

/// One line of [`binary_op_table`]: an operation's name and each of its forms.
///
/// ```
/// use shaped::ops::binary_op_table;
/// let names: Vec<_> = binary_op_table::<f32>().iter().map(|f| f.name).collect();
/// assert!(names.contains(&"atan2"));
/// ```
#[derive(Clone, Copy)]
#[allow(clippy::type_complexity)]
pub struct BinaryOpForms<T: Element> {
    /// The operation's name (`add`, ...).
    pub name: &'static str,
    /// `a.op(b)`.
    pub op: fn(&DynT<T>, &DynT<T>) -> DynT<T>,
    /// `a.try_op(b)`.
    pub try_op: fn(&DynT<T>, &DynT<T>) -> Result<DynT<T>, ShapeError>,
    /// `a.op_out(b, out)`.
    pub out: fn(&DynT<T>, &DynT<T>, &mut DynT<T>) -> Result<(), ShapeError>,
    /// `a.op_(b)`.
    pub inplace: fn(&mut DynT<T>, &DynT<T>),
    /// `a.try_op_(b)`.
    pub try_inplace: fn(&mut DynT<T>, &DynT<T>) -> Result<(), ShapeError>,
}

/// No precondition on the divisor.
pub(super) fn any<T: Element, S: Shape, D: Device>(_: &Tensor<T, S, D>) -> Result<(), D::Error> {
    Ok(())
}

/// Integer division by zero is an error, as in PyTorch ("ZeroDivisionError");
/// floats follow IEEE 754 (inf or NaN).
///
/// On CUDA this copies an integer divisor to the host to look (a kernel
/// cannot raise); float divisors are never read.
pub(super) fn nonzero_divisor<T: Numeric, S: Shape, D: Backend<T>>(
    divisor: &Tensor<T, S, D>,
) -> Result<(), D::Error> {
    if !T::IS_FLOAT && host::to_host(divisor)?.contains(&T::zero()) {
        return Err(ShapeError::Invalid("ZeroDivisionError".into()).into());
    }
    Ok(())
}

/// An integer power with a negative exponent is an error, as in NumPy and in
/// PyTorch's `pow` with a scalar exponent ("Integers to negative integer
/// powers are not allowed."): the exact result is a fraction. (PyTorch's
/// tensor-tensor integer kernel returns 0 there instead; NumPy and the
/// scalar form agree on the error, and silently returning 0 hides a bug.)
pub(super) fn nonnegative_exponent<T: Numeric, S: Shape, D: Backend<T>>(
    exponent: &Tensor<T, S, D>,
) -> Result<(), D::Error> {
    if !T::IS_FLOAT && host::to_host(exponent)?.iter().any(|&e| e < T::zero()) {
        return Err(ShapeError::Invalid(
            "Integers to negative integer powers are not allowed.".into(),
        )
        .into());
    }
    Ok(())
}

binary_ops! {
    /// `self + other`, as `torch.add` (integers wrap on overflow).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![2, 1]>::from_vec(vec![1, 2]);
    /// let b = Tensor::<i32, Shape![3]>::from_vec(vec![10, 20, 30]);
    /// assert_eq!(a.add(&b).to_vec(), vec![11, 21, 31, 12, 22, 32]);
    /// ```
    add / try_add / add_out / add_ / try_add_: Numeric, any, Add;

    /// `self - other`, as `torch.sub`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2]>::from_vec(vec![5., 7.]);
    /// assert_eq!(a.sub(&a).to_vec(), vec![0., 0.]);
    /// ```
    sub / try_sub / sub_out / sub_ / try_sub_: Numeric, any, Sub;

    /// `self * other`, as `torch.mul`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<u8, Shape![2]>::from_vec(vec![3, 4]);
    /// assert_eq!(a.mul(&a).to_vec(), vec![9, 16]);
    /// ```
    mul / try_mul / mul_out / mul_ / try_mul_: Numeric, any, Mul;

    /// True division `self / other`, as `torch.div` on floats (integer
    /// tensors use [`Tensor::div_trunc`] or [`Tensor::div_floor`]).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f64, Shape![2]>::from_vec(vec![1., -1.]);
    /// let z = Tensor::<f64, Shape![1]>::zeros();
    /// assert_eq!(a.div(&z).to_vec(), vec![f64::INFINITY, f64::NEG_INFINITY]);
    /// ```
    div / try_div / div_out / div_ / try_div_: Float, any, Div;

    /// `self / other` rounded toward zero, as `torch.div(.., rounding_mode="trunc")`.
    /// Integer division by zero is an error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![2]>::from_vec(vec![7, -7]);
    /// let b = Tensor::<i32, Shape![1]>::from_vec(vec![2]);
    /// assert_eq!(a.div_trunc(&b).to_vec(), vec![3, -3]);
    /// assert_eq!(a.try_div_trunc(&Tensor::<i32, Shape![1]>::zeros()).unwrap_err().to_string(), "ZeroDivisionError");
    /// ```
    div_trunc / try_div_trunc / div_trunc_out / div_trunc_ / try_div_trunc_: Numeric, nonzero_divisor, DivTrunc;

    /// `self / other` rounded toward negative infinity, as
    /// `torch.div(.., rounding_mode="floor")` (Python's `//`).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2]>::from_vec(vec![7., -7.]);
    /// let b = Tensor::<f32, Shape![1]>::from_vec(vec![2.]);
    /// assert_eq!(a.div_floor(&b).to_vec(), vec![3., -4.]);
    /// ```
    div_floor / try_div_floor / div_floor_out / div_floor_ / try_div_floor_: Numeric, nonzero_divisor, DivFloor;

    /// The remainder with the sign of the dividend, as `torch.fmod`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i64, Shape![2]>::from_vec(vec![-3, 3]);
    /// let b = Tensor::<i64, Shape![1]>::from_vec(vec![2]);
    /// assert_eq!(a.fmod(&b).to_vec(), vec![-1, 1]);
    /// ```
    fmod / try_fmod / fmod_out / fmod_ / try_fmod_: Numeric, nonzero_divisor, Fmod;

    /// The remainder with the sign of the divisor, as `torch.remainder`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2]>::from_vec(vec![-3., 3.]);
    /// let b = Tensor::<f32, Shape![1]>::from_vec(vec![2.]);
    /// assert_eq!(a.remainder(&b).to_vec(), vec![1., 1.]);
    /// ```
    remainder / try_remainder / remainder_out / remainder_ / try_remainder_: Numeric, nonzero_divisor, Remainder;

    /// `self ^ other`, as `torch.pow` (integers by repeated squaring,
    /// wrapping on overflow). A negative integer exponent is an error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![3]>::from_vec(vec![2, 3, 4]);
    /// let e = Tensor::<i32, Shape![1]>::from_vec(vec![3]);
    /// assert_eq!(a.pow(&e).to_vec(), vec![8, 27, 64]);
    /// let n = Tensor::<i32, Shape![1]>::from_vec(vec![-1]);
    /// assert_eq!(a.try_pow(&n).unwrap_err().to_string(), "Integers to negative integer powers are not allowed.");
    /// ```
    pow / try_pow / pow_out / pow_ / try_pow_: Numeric, nonnegative_exponent, Pow;

    /// The four-quadrant arctangent of `self / other`, as `torch.atan2`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let y = Tensor::<f64, Shape![1]>::from_vec(vec![1.]);
    /// let x = Tensor::<f64, Shape![1]>::from_vec(vec![-1.]);
    /// assert_eq!(y.atan2(&x).to_vec(), vec![3.0 * std::f64::consts::FRAC_PI_4]);
    /// ```
    atan2 / try_atan2 / atan2_out / atan2_ / try_atan2_: Float, any, Atan2;

    /// The elementwise maximum, NaN if either is NaN, as `torch.maximum`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![2]>::from_vec(vec![1, 5]);
    /// let b = Tensor::<i32, Shape![1]>::from_vec(vec![3]);
    /// assert_eq!(a.maximum(&b).to_vec(), vec![3, 5]);
    /// ```
    maximum / try_maximum / maximum_out / maximum_ / try_maximum_: Numeric, any, Maximum;

    /// The elementwise minimum, NaN if either is NaN, as `torch.minimum`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![2]>::from_vec(vec![1, 5]);
    /// let b = Tensor::<i32, Shape![1]>::from_vec(vec![3]);
    /// assert_eq!(a.minimum(&b).to_vec(), vec![1, 3]);
    /// ```
    minimum / try_minimum / minimum_out / minimum_ / try_minimum_: Numeric, any, Minimum;
}

impl<T: Numeric, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// `self + alpha * other`, as `torch.add(self, other, alpha=alpha)`.
    ///
    /// # Errors
    /// PyTorch's broadcast error when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// assert_eq!(a.try_add_alpha(&a, 10.).unwrap().to_vec(), vec![11., 22.]);
    /// ```
    pub fn try_add_alpha<S2: Shape>(
        &self,
        other: &Tensor<T, S2, D>,
        alpha: T,
    ) -> Result<Tensor<T, Broadcast<S, S2>, D>, D::Error>
    where
        S: BroadcastShape<S2>,
    {
        pointwise::binary(table::AddAlpha(alpha), self, other)
    }

    /// `self - alpha * other`, as `torch.sub(self, other, alpha=alpha)`.
    ///
    /// # Errors
    /// PyTorch's broadcast error when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// assert_eq!(a.try_sub_alpha(&a, 2.).unwrap().to_vec(), vec![-1., -2.]);
    /// ```
    pub fn try_sub_alpha<S2: Shape>(
        &self,
        other: &Tensor<T, S2, D>,
        alpha: T,
    ) -> Result<Tensor<T, Broadcast<S, S2>, D>, D::Error>
    where
        S: BroadcastShape<S2>,
    {
        pointwise::binary(table::SubAlpha(alpha), self, other)
    }
}

impl<T: Float, S: Shape, D: Backend<T>> Tensor<T, S, D> {
    /// The `p`-norm of `self - other` (broadcast together), as `torch.dist`:
    /// [`Tensor::norm`] of the difference, so `p = 0` counts nonzeros and `p
    /// = inf` takes the largest magnitude. On any device
    /// (a subtraction, then the norm's reduction). Floats only, as PyTorch
    /// ("norm(): input dtype should be either floating point or complex").
    ///
    /// # Errors
    /// PyTorch's broadcast error when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2]>::from_vec(vec![3., 0.]);
    /// let b = Tensor::<f32, Shape![2]>::from_vec(vec![0., 4.]);
    /// assert_eq!(a.try_dist(&b, 2.0).unwrap().item(), 5.0);
    /// assert_eq!(a.try_dist(&b, f64::INFINITY).unwrap().item(), 4.0);
    /// assert_eq!(a.dist(&b, 0.0).item(), 2.0);
    /// ```
    pub fn try_dist<R>(&self, other: &R, p: f64) -> Result<Tensor<T, (), D>, D::Error>
    where
        R: SecondOperand<T, D>,
        S: BroadcastShape<R::Shape>,
    {
        self.try_sub(other)?.try_norm(p)
    }

    /// [`Tensor::try_dist`], panicking on error.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not match.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
    /// let b = Tensor::<f64, Shape![2]>::from_vec(vec![1., 1.]);
    /// assert_eq!(a.dist(&b, 1.0).item(), 6.0);
    /// ```
    #[track_caller]
    pub fn dist<R>(&self, other: &R, p: f64) -> Tensor<T, (), D>
    where
        R: SecondOperand<T, D>,
        S: BroadcastShape<R::Shape>,
    {
        self.try_dist(other, p).or_panic()
    }
}

/// Comparisons and logical operations give `bool` tensors.
macro_rules! predicate_ops {
    ($(
        $(#[$doc:meta])*
        $name:ident / $try_name:ident, $Op:ident;
    )*) => {$(
        impl<T: Element, S: Shape, D: Backend<T> + Backend<bool>> Tensor<T, S, D> {
            $(#[$doc])*
            ///
            /// # Panics
            /// With PyTorch's message when a run-time size does not match.
            #[track_caller]
            pub fn $name<R>(&self, other: &R) -> Tensor<bool, Broadcast<S, R::Shape>, D>
            where
                R: SecondOperand<T, D>,
                S: BroadcastShape<R::Shape>,
            {
                self.$try_name(other).or_panic()
            }

            #[doc = concat!("The fallible form of [`Tensor::", stringify!($name), "`].")]
            ///
            /// # Errors
            /// PyTorch's broadcast error when a run-time size does not match.
            ///
            /// ```
            /// use shaped::{DynRank, Tensor};
            /// let a = Tensor::<f64, DynRank>::try_ones(&[2, 3]).unwrap();
            /// let b = Tensor::<f64, DynRank>::try_ones(&[2]).unwrap();
            #[doc = concat!("assert!(a.", stringify!($try_name), "(&b).is_err());")]
            /// ```
            pub fn $try_name<R>(&self, other: &R) -> Result<Tensor<bool, Broadcast<S, R::Shape>, D>, <D as Device>::Error>
            where
                R: SecondOperand<T, D>,
                S: BroadcastShape<R::Shape>,
            {
                pointwise::compare(table::$Op, self, other.operand())
            }
        }
    )*};
}

predicate_ops! {
    /// `self == other` elementwise, as `torch.eq`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![3]>::from_vec(vec![1, 2, 3]);
    /// let b = Tensor::<i32, Shape![1]>::from_vec(vec![2]);
    /// assert_eq!(a.eq(&b).to_vec(), vec![false, true, false]);
    /// ```
    eq / try_eq, Equal;
    /// `self != other` elementwise, as `torch.ne`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![2]>::from_vec(vec![1, 2]);
    /// assert_eq!(a.ne(&a).to_vec(), vec![false, false]);
    /// ```
    ne / try_ne, NotEqual;
    /// `self < other` elementwise, as `torch.lt`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// let b = Tensor::<f32, Shape![1]>::from_vec(vec![1.5]);
    /// assert_eq!(a.lt(&b).to_vec(), vec![true, false]);
    /// ```
    lt / try_lt, Less;
    /// `self <= other` elementwise, as `torch.le`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// assert_eq!(a.le(&a).to_vec(), vec![true, true]);
    /// ```
    le / try_le, LessEqual;
    /// `self > other` elementwise, as `torch.gt`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
    /// let b = Tensor::<f32, Shape![1]>::from_vec(vec![1.5]);
    /// assert_eq!(a.gt(&b).to_vec(), vec![false, true]);
    /// ```
    gt / try_gt, Greater;
    /// `self >= other` elementwise, as `torch.ge`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<u8, Shape![2]>::from_vec(vec![1, 2]);
    /// let b = Tensor::<u8, Shape![1]>::from_vec(vec![2]);
    /// assert_eq!(a.ge(&b).to_vec(), vec![false, true]);
    /// ```
    ge / try_ge, GreaterEqual;
    /// Both nonzero (true), as `torch.logical_and`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<i32, Shape![3]>::from_vec(vec![0, 1, 2]);
    /// let b = Tensor::<i32, Shape![1]>::from_vec(vec![5]);
    /// assert_eq!(a.logical_and(&b).to_vec(), vec![false, true, true]);
    /// ```
    logical_and / try_logical_and, LogicalAnd;
    /// Either nonzero (true), as `torch.logical_or`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<bool, Shape![2]>::from_vec(vec![false, true]);
    /// let b = Tensor::<bool, Shape![1]>::from_vec(vec![false]);
    /// assert_eq!(a.logical_or(&b).to_vec(), vec![false, true]);
    /// ```
    logical_or / try_logical_or, LogicalOr;
    /// Exactly one nonzero (true), as `torch.logical_xor`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<bool, Shape![2]>::from_vec(vec![false, true]);
    /// let b = Tensor::<bool, Shape![1]>::from_vec(vec![true]);
    /// assert_eq!(a.logical_xor(&b).to_vec(), vec![true, false]);
    /// ```
    logical_xor / try_logical_xor, LogicalXor;
}
