//! Element types a tensor can hold: `f32`, `f64`, `i32`, `i64`, `u8` and
//! `bool`, and the numeric families the operations need.
//!
//! ```
//! use shaped::element::{Element, Float};
//! fn mean<T: Float>(xs: &[T]) -> T {
//!     xs.iter().fold(T::zero(), |a, &b| a + b) / T::from(xs.len()).unwrap()
//! }
//! assert_eq!(mean(&[1.0f32, 3.0]), 2.0);
//! assert_eq!(<f64 as Element>::NAME, "float64");
//! ```

use core::fmt::{Debug, Display};

/// A type a tensor can hold.
///
/// ```
/// use shaped::element::Element;
/// assert_eq!(<bool as Element>::NAME, "bool");
/// ```
pub trait Element:
    Copy + Send + Sync + Debug + Display + PartialEq + PartialOrd + Default + 'static
{
    /// PyTorch's name for the dtype (`float32`, `int64`, ...).
    const NAME: &'static str;
}

/// A numeric element: every type but `bool`.
///
/// ```
/// use shaped::element::Numeric;
/// fn double<T: Numeric>(x: T) -> T { x + x }
/// assert_eq!(double(3i64), 6);
/// ```
pub trait Numeric:
    Element + num_traits::Num + num_traits::NumCast + PartialOrd + num_traits::Bounded
{
    /// Whether this is a floating-point type.
    const IS_FLOAT: bool;
    /// Converts from `f64` (rounding toward zero and saturating for integers).
    fn from_f64(v: f64) -> Self;
    /// Converts to `f64`.
    fn to_f64(self) -> f64;
    /// `self + o`, wrapping on integer overflow as PyTorch does.
    fn wadd(self, o: Self) -> Self;
    /// `self - o`, wrapping on integer overflow.
    fn wsub(self, o: Self) -> Self;
    /// `self * o`, wrapping on integer overflow.
    fn wmul(self, o: Self) -> Self;
    /// `self ^ e`: `powf` for floats; for integers exponentiation by squaring
    /// (wrapping), and for a negative exponent 0 unless the base is 1 or -1,
    /// as PyTorch's integer kernel.
    fn pow_elem(self, e: Self) -> Self;
}

/// A signed numeric element (`f32`, `f64`, `i32`, `i64`).
///
/// ```
/// use shaped::element::Signed;
/// fn flip<T: Signed>(x: T) -> T { -x }
/// assert_eq!(flip(2i32), -2);
/// ```
pub trait Signed: Numeric + num_traits::Signed {}

/// An integer element (`i32`, `i64`, `u8`).
///
/// ```
/// use shaped::element::Integer;
/// fn is_int<T: Integer>() {}
/// is_int::<u8>();
/// ```
pub trait Integer: Numeric + num_traits::PrimInt {}

/// A floating-point element (`f32`, `f64`).
///
/// ```
/// use shaped::element::Float;
/// fn half<T: Float>() -> T { T::one() / (T::one() + T::one()) }
/// assert_eq!(half::<f32>(), 0.5f32);
/// ```
pub trait Float: Signed + num_traits::Float + num_traits::FloatConst {}

macro_rules! element {
    ($($t:ty => $name:literal),*) => {$(
        impl Element for $t {
            const NAME: &'static str = $name;
        }
    )*};
}
element!(f32 => "float32", f64 => "float64", i32 => "int32", i64 => "int64", u8 => "uint8", bool => "bool");

macro_rules! numeric {
    ($($t:ty: $float:tt),*) => {$(
        impl Numeric for $t {
            const IS_FLOAT: bool = $float;
            #[inline(always)]
            fn from_f64(v: f64) -> Self { v as $t }
            #[inline(always)]
            fn to_f64(self) -> f64 { self as f64 }
            numeric!(@$float $t);
        }
    )*};
    (@true $t:ty) => {
        #[inline(always)]
        fn wadd(self, o: Self) -> Self { self + o }
        #[inline(always)]
        fn wsub(self, o: Self) -> Self { self - o }
        #[inline(always)]
        fn wmul(self, o: Self) -> Self { self * o }
        #[inline(always)]
        fn pow_elem(self, e: Self) -> Self { self.powf(e) }
    };
    (@false $t:ty) => {
        #[inline(always)]
        fn wadd(self, o: Self) -> Self { self.wrapping_add(o) }
        #[inline(always)]
        fn wsub(self, o: Self) -> Self { self.wrapping_sub(o) }
        #[inline(always)]
        fn wmul(self, o: Self) -> Self { self.wrapping_mul(o) }
        #[allow(unused_comparisons)]
        fn pow_elem(self, e: Self) -> Self {
            if e < 0 {
                return if self == 1 { 1 } else if self.wrapping_add(1) == 0 && self != 0 {
                    if e % 2 == 0 { 1 } else { self }
                } else { 0 };
            }
            let (mut base, mut exp, mut acc): (Self, Self, Self) = (self, e, 1);
            while exp > 0 {
                if exp & 1 == 1 { acc = acc.wrapping_mul(base); }
                base = base.wrapping_mul(base);
                exp >>= 1;
            }
            acc
        }
    };
}
numeric!(f32: true, f64: true, i32: false, i64: false, u8: false);

impl Signed for f32 {}
impl Signed for f64 {}
impl Signed for i32 {}
impl Signed for i64 {}
impl Integer for i32 {}
impl Integer for i64 {}
impl Integer for u8 {}
impl Float for f32 {}
impl Float for f64 {}
