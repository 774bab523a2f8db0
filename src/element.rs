//! Element types a tensor can hold: `f32`, `f64`, [`f16`](struct@f16),
//! [`bf16`](struct@bf16) (the `half` crate's), `i8`, `i16`, `i32`, `i64`,
//! `u8`, `u16`, `u32`, `u64` and `bool`, the numeric families the
//! operations need, and [`CastFrom`], the element conversion behind
//! [`Tensor::to_dtype`](crate::Tensor::to_dtype).
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

pub use half::{bf16, f16};

/// A type a tensor can hold.
///
/// ```
/// use shaped::element::Element;
/// assert_eq!(<bool as Element>::NAME, "bool");
/// ```
pub trait Element:
    Copy + Send + Sync + Debug + Display + PartialEq + PartialOrd + Default + 'static
{
    /// PyTorch's name for the dtype (`float32`, `int64`, ...). Distinct
    /// for each type: the CPU backend picks the loops it compiled for
    /// `f32` by this name (and refuses, with a panic, a type other than
    /// `f32` that takes `f32`'s name).
    const NAME: &'static str;
    /// The Rust name of the type (`f32`, `i64`, `bf16`, ...), as `Debug`
    /// prints it.
    const RUST_NAME: &'static str;
    /// The value in the widest type of its kind, the step every cast takes.
    fn to_scalar(self) -> Scalar;
    /// The value of `s` in this type, by PyTorch's `.to(dtype)` rules: see
    /// [`CastFrom`].
    fn from_scalar(s: Scalar) -> Self;
}

/// An element's value widened within its kind: the middle step of every
/// cast between element types.
///
/// ```
/// use shaped::element::{Element, Scalar};
/// assert_eq!(7u8.to_scalar(), Scalar::UInt(7));
/// assert_eq!(<i8 as Element>::from_scalar(Scalar::Int(300)), 44);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// A floating-point value (from `f16`, `bf16`, `f32`, `f64`; exact).
    Float(f64),
    /// A signed integer (from `i8` ... `i64`).
    Int(i64),
    /// An unsigned integer (from `u8` ... `u64`).
    UInt(u64),
    /// A boolean.
    Bool(bool),
}

/// Conversion of one element type into another, by PyTorch's `.to(dtype)`
/// rules on the CPU:
///
/// - integer to integer wraps (keeps the low bits), as a C cast does;
/// - float to integer truncates toward zero; the result then wraps into the
///   target as an integer would (`-3.7` to `u8` is `253`, `300.5` to `i8` is
///   `44`, as in PyTorch). Where PyTorch's result is undefined in C++ and
///   differs between platforms — NaN, ±inf, and values outside `i64`
///   (`u64` for an unsigned target) — `shaped` saturates to that 64-bit
///   range and maps NaN to 0, as Rust's `as` does: NaN to `i32` is 0 here,
///   `-2147483648` in PyTorch on x86;
/// - to a float type rounds to nearest (ties to even); beyond the range of
///   `f16`/`bf16` gives ±inf;
/// - to `bool` is `x != 0` (NaN is `true`); `bool` to a number is 0 or 1.
///
/// ```
/// use shaped::element::{CastFrom, bf16};
/// assert_eq!(i32::cast_from(-2.9f32), -2);
/// assert_eq!(u8::cast_from(-3.7f64), 253);
/// assert_eq!(i64::cast_from(f32::NAN), 0);
/// assert_eq!(bf16::cast_from(300.5f32), bf16::from_f32(300.0));
/// assert!(bool::cast_from(0.5f32));
/// ```
pub trait CastFrom<U: Element>: Element {
    /// `u` converted to `Self`.
    fn cast_from(u: U) -> Self;
}

impl<T: Element, U: Element> CastFrom<U> for T {
    #[inline]
    fn cast_from(u: U) -> Self {
        T::from_scalar(u.to_scalar())
    }
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
    /// Whether matrix products of this type are computed in `f32` and
    /// rounded once at the end (`f16`, `bf16`), as PyTorch does on the CPU.
    const MATMUL_IN_F32: bool = false;
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

/// A signed numeric element (the floats and `i8` ... `i64`).
///
/// ```
/// use shaped::element::Signed;
/// fn flip<T: Signed>(x: T) -> T { -x }
/// assert_eq!(flip(2i32), -2);
/// ```
pub trait Signed: Numeric + num_traits::Signed {}

/// An integer element (`i8` ... `i64`, `u8` ... `u64`).
///
/// ```
/// use shaped::element::Integer;
/// fn is_int<T: Integer>() {}
/// is_int::<u8>();
/// ```
pub trait Integer: Numeric + num_traits::PrimInt {}

/// A floating-point element (`f32`, `f64`, `f16`, `bf16`).
///
/// ```
/// use shaped::element::Float;
/// fn half<T: Float>() -> T { T::one() / (T::one() + T::one()) }
/// assert_eq!(half::<f32>(), 0.5f32);
/// ```
pub trait Float: Signed + num_traits::Float + num_traits::FloatConst {}

macro_rules! element {
    ($($t:ident => $name:literal, $kind:ident),*) => {$(
        impl Element for $t {
            const NAME: &'static str = $name;
            const RUST_NAME: &'static str = stringify!($t);
            #[inline]
            fn to_scalar(self) -> Scalar {
                element!(@to $kind self)
            }
            #[inline]
            fn from_scalar(s: Scalar) -> Self {
                element!(@from $kind $t s)
            }
        }
    )*};
    (@to float $x:ident) => { Scalar::Float($x as f64) };
    (@to half $x:ident) => { Scalar::Float($x.to_f64()) };
    (@to int $x:ident) => { Scalar::Int($x as i64) };
    (@to uint $x:ident) => { Scalar::UInt($x as u64) };
    (@to bool $x:ident) => { Scalar::Bool($x) };
    (@from float $t:ident $s:ident) => {
        match $s {
            Scalar::Float(v) => v as $t,
            Scalar::Int(v) => v as $t,
            Scalar::UInt(v) => v as $t,
            Scalar::Bool(b) => if b { 1.0 } else { 0.0 },
        }
    };
    (@from half $t:ident $s:ident) => {
        match $s {
            Scalar::Float(v) => $t::from_f64(v),
            Scalar::Int(v) => $t::from_f64(v as f64),
            Scalar::UInt(v) => $t::from_f64(v as f64),
            Scalar::Bool(b) => if b { $t::ONE } else { $t::ZERO },
        }
    };
    (@from int $t:ident $s:ident) => {
        match $s {
            Scalar::Float(v) => (v as i64) as $t,
            Scalar::Int(v) => v as $t,
            Scalar::UInt(v) => v as $t,
            Scalar::Bool(b) => b as $t,
        }
    };
    (@from uint $t:ident $s:ident) => {
        match $s {
            Scalar::Float(v) if v >= 0.0 => (v as u64) as $t,
            Scalar::Float(v) => (v as i64) as $t,
            Scalar::Int(v) => v as $t,
            Scalar::UInt(v) => v as $t,
            Scalar::Bool(b) => b as $t,
        }
    };
    (@from bool $t:ident $s:ident) => {
        match $s {
            Scalar::Float(v) => v != 0.0,
            Scalar::Int(v) => v != 0,
            Scalar::UInt(v) => v != 0,
            Scalar::Bool(b) => b,
        }
    };
}
element!(
    f32 => "float32", float, f64 => "float64", float,
    f16 => "float16", half, bf16 => "bfloat16", half,
    i8 => "int8", int, i16 => "int16", int, i32 => "int32", int, i64 => "int64", int,
    u8 => "uint8", uint, u16 => "uint16", uint, u32 => "uint32", uint, u64 => "uint64", uint,
    bool => "bool", bool
);

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
    )*};    (@true $t:ty) => {
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
numeric!(
    f32: true, f64: true,
    i8: false, i16: false, i32: false, i64: false,
    u8: false, u16: false, u32: false, u64: false
);

/// `f16` and `bf16` compute through `half`'s arithmetic (each operation
/// rounds its `f32` result back to the 16-bit type).
macro_rules! half_numeric {
    ($($t:ident),*) => {$(
        impl Numeric for $t {
            const IS_FLOAT: bool = true;
            const MATMUL_IN_F32: bool = true;
            #[inline(always)]
            fn from_f64(v: f64) -> Self { $t::from_f64(v) }
            #[inline(always)]
            fn to_f64(self) -> f64 { $t::to_f64(self) }
            #[inline(always)]
            fn wadd(self, o: Self) -> Self { self + o }
            #[inline(always)]
            fn wsub(self, o: Self) -> Self { self - o }
            #[inline(always)]
            fn wmul(self, o: Self) -> Self { self * o }
            #[inline(always)]
            fn pow_elem(self, e: Self) -> Self { num_traits::Float::powf(self, e) }
        }
    )*};
}
half_numeric!(f16, bf16);

macro_rules! marker {
    ($tr:ident: $($t:ty),*) => {$( impl $tr for $t {} )*};
}
marker!(Signed: f32, f64, f16, bf16, i8, i16, i32, i64);
marker!(Integer: i8, i16, i32, i64, u8, u16, u32, u64);
marker!(Float: f32, f64, f16, bf16);
