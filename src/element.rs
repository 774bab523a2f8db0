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
pub trait Element: Copy + Send + Sync + Debug + Display + PartialEq + Default + 'static {
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
    /// Converts from `f64` (rounding toward zero and saturating for integers).
    fn from_f64(v: f64) -> Self;
    /// Converts to `f64`.
    fn to_f64(self) -> f64;
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
/// fn half<T: Float>() -> T { T::from_f64(0.5) }
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
    ($($t:ty),*) => {$(
        impl Numeric for $t {
            #[inline(always)]
            fn from_f64(v: f64) -> Self { v as $t }
            #[inline(always)]
            fn to_f64(self) -> f64 { self as f64 }
        }
    )*};
}
numeric!(f32, f64, i32, i64, u8);

impl Signed for f32 {}
impl Signed for f64 {}
impl Signed for i32 {}
impl Signed for i64 {}
impl Integer for i32 {}
impl Integer for i64 {}
impl Integer for u8 {}
impl Float for f32 {}
impl Float for f64 {}
