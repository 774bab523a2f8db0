//! The scalar functions behind the pointwise operations: the table's Rust
//! side and the CPU loops call them. Users name them through
//! `shaped::ops::scalar`, whose docs say what differs from Rust's operators.

use crate::element::{Float, Numeric};

/// Whether integer division `x / y` overflows: the most negative value of
/// a signed type divided by -1, whose quotient does not fit. The crate
/// wraps every integer overflow, so such a quotient is the dividend itself
/// (`MIN`, as NumPy gives) and the remainder 0, never a panic.
#[inline(always)]
fn overflowing_division<T: Numeric>(x: T, y: T) -> bool {
    !T::IS_FLOAT
        && T::min_value() < T::zero()
        && x == T::min_value()
        && y == T::zero().wsub(T::one())
}

/// `x - trunc(x / y) * y`: the sign of the dividend (C's `fmod`, Rust's `%`).
///
/// `i32::MIN` by -1 gives 0 (NumPy's value), where Rust's `%` panics.
///
/// ```
/// assert_eq!(shaped::ops::scalar::fmod(5i64, -3), 2);
/// assert_eq!(shaped::ops::scalar::fmod(i32::MIN, -1), 0);
/// ```
#[inline(always)]
pub fn fmod<T: Numeric>(x: T, y: T) -> T {
    if overflowing_division(x, y) {
        return T::zero();
    }
    x % y
}

/// `x - floor(x / y) * y`: the sign of the divisor (Python's `%`).
///
/// `i32::MIN` by -1 gives 0.
///
/// ```
/// assert_eq!(shaped::ops::scalar::remainder(5i64, -3), -1);
/// assert_eq!(shaped::ops::scalar::remainder(i64::MIN, -1), 0);
/// ```
#[inline(always)]
pub fn remainder<T: Numeric>(x: T, y: T) -> T {
    if overflowing_division(x, y) {
        return T::zero();
    }
    let r = x % y;
    if r != T::zero() && ((r < T::zero()) != (y < T::zero())) {
        r + y
    } else {
        r
    }
}

/// `x / y` rounded toward zero (`rounding_mode="trunc"`).
///
/// `i32::MIN` by -1 wraps to `i32::MIN` (NumPy's value), where Rust's `/`
/// panics.
///
/// ```
/// assert_eq!(shaped::ops::scalar::div_trunc(-7i32, 2), -3);
/// assert_eq!(shaped::ops::scalar::div_trunc(-7.0f32, 2.0), -3.0);
/// assert_eq!(shaped::ops::scalar::div_trunc(i32::MIN, -1), i32::MIN);
/// ```
#[inline(always)]
pub fn div_trunc<T: Numeric>(x: T, y: T) -> T {
    if overflowing_division(x, y) {
        return x;
    }
    let q = x / y;
    if T::IS_FLOAT {
        T::from_f64(q.to_f64().trunc())
    } else {
        q
    }
}

/// `x / y` rounded toward negative infinity (`rounding_mode="floor"`),
/// computed as PyTorch's `div_floor_floating` for floats so that results match
/// Python's `//` exactly.
///
/// `i32::MIN` by -1 wraps to `i32::MIN`.
///
/// ```
/// assert_eq!(shaped::ops::scalar::div_floor(-7i32, 2), -4);
/// assert_eq!(shaped::ops::scalar::div_floor(-7.0f64, 2.0), -4.0);
/// assert_eq!(shaped::ops::scalar::div_floor(i64::MIN, -1), i64::MIN);
/// ```
#[inline(always)]
pub fn div_floor<T: Numeric>(x: T, y: T) -> T {
    if overflowing_division(x, y) {
        return x;
    }
    if !T::IS_FLOAT {
        let q = x / y;
        return if x % y != T::zero() && ((x < T::zero()) != (y < T::zero())) {
            q - T::one()
        } else {
            q
        };
    }
    let (a, b) = (x.to_f64(), y.to_f64());
    if b == 0.0 {
        return T::from_f64(a / b);
    }
    let m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        div -= 1.0;
    }
    let floordiv = if div != 0.0 {
        let f = div.floor();
        if div - f > 0.5 { f + 1.0 } else { f }
    } else {
        (0.0f64).copysign(a / b)
    };
    T::from_f64(floordiv)
}

/// Whether `x` is NaN (never for integers): the one value unequal to itself.
#[inline(always)]
#[allow(clippy::eq_op)]
fn is_nan<T: Numeric>(x: T) -> bool {
    x != x
}

/// The larger of `x` and `y`, NaN if either is NaN (`torch.maximum`).
///
/// ```
/// assert!(shaped::ops::scalar::maximum(1.0f32, f32::NAN).is_nan());
/// ```
#[inline(always)]
pub fn maximum<T: Numeric>(x: T, y: T) -> T {
    if is_nan(x) {
        x
    } else if is_nan(y) || y > x {
        y
    } else {
        x
    }
}

/// The smaller of `x` and `y`, NaN if either is NaN (`torch.minimum`).
///
/// ```
/// assert_eq!(shaped::ops::scalar::minimum(3, -2), -2);
/// ```
#[inline(always)]
pub fn minimum<T: Numeric>(x: T, y: T) -> T {
    if is_nan(x) {
        x
    } else if is_nan(y) || y < x {
        y
    } else {
        x
    }
}

/// `min(max(x, lo), hi)`: `hi` wins when `lo > hi`, and a NaN `x` stays NaN
/// (`torch.clamp`).
///
/// ```
/// assert_eq!(shaped::ops::scalar::clamp(5, 0, 3), 3);
/// assert_eq!(shaped::ops::scalar::clamp(1, 4, 2), 2);
/// ```
#[inline(always)]
pub fn clamp<T: Numeric>(x: T, lo: T, hi: T) -> T {
    if is_nan(x) {
        return x;
    }
    let y = if x < lo { lo } else { x };
    if y > hi { hi } else { y }
}

/// Round half to even, as `torch.round`.
///
/// ```
/// assert_eq!(shaped::ops::scalar::round_half_even(2.5f64), 2.0);
/// assert_eq!(shaped::ops::scalar::round_half_even(-0.5f32), -0.0);
/// ```
#[inline(always)]
pub fn round_half_even<T: Float>(x: T) -> T {
    let r = x.round();
    if (x - x.trunc()).abs() == T::from_f64(0.5) {
        let two = T::one() + T::one();
        two * (x / two).round()
    } else {
        r
    }
}

/// The logistic function `1 / (1 + e^-x)`.
///
/// ```
/// assert_eq!(shaped::ops::scalar::sigmoid(0.0f64), 0.5);
/// ```
#[inline(always)]
pub fn sigmoid<T: Float>(x: T) -> T {
    T::one() / (T::one() + exp(-x))
}

/// The exact GELU, `x * Φ(x) = x/2 * (1 + erf(x / √2))`, as
/// `torch.nn.functional.gelu` with `approximate='none'`.
///
/// ```
/// assert!((shaped::ops::scalar::gelu(1.0f64) - 0.8413447460685429).abs() < 1e-15);
/// ```
#[inline(always)]
pub fn gelu<T: Float>(x: T) -> T {
    let half = T::from_f64(0.5);
    x * half * (T::one() + erf(x * T::FRAC_1_SQRT_2()))
}

/// The error function, to the precision of `T`: [`erf_f32`] for `f32`
/// (and the half types, through `f32`), musl's through `libm` for `f64`.
///
/// ```
/// assert!((shaped::ops::scalar::erf(0.5f64) - 0.5204998778130465).abs() < 1e-16);
/// ```
#[inline(always)]
pub fn erf<T: Float>(x: T) -> T {
    by_width(x, erf_f32, |x| T::from_f64(libm::erf(x.to_f64())))
}

/// `narrow(x)` through `f32` for `f32` and the narrower types, `wide(x)`
/// for `f64`: the crate's branch-free `f32` functions beside the `f64`
/// ones of a C library.
#[inline(always)]
fn by_width<T: Float>(x: T, narrow: impl Fn(f32) -> f32, wide: impl Fn(T) -> T) -> T {
    if core::mem::size_of::<T>() <= 4 {
        T::from_f64(narrow(x.to_f64() as f32) as f64)
    } else {
        wide(x)
    }
}

/// [`by_width`] for a function of two arguments.
#[inline(always)]
fn by_width2<T: Float>(
    x: T,
    y: T,
    narrow: impl Fn(f32, f32) -> f32,
    wide: impl Fn(T, T) -> T,
) -> T {
    if core::mem::size_of::<T>() <= 4 {
        T::from_f64(narrow(x.to_f64() as f32, y.to_f64() as f32) as f64)
    } else {
        wide(x, y)
    }
}

/// `erf` in `f32` without branches or tables, so that loops over it
/// vectorise (PyTorch's CPU `gelu` calls a vectorised `erf` too; musl's
/// `erff` branches on four ranges and calls `expf`, one element at a time,
/// and made `gelu` compute-bound: 8 ns per element). Within 2 ulp of
/// musl's `erff` (`tests/erf.rs` walks every 16th `f32` in `[-5, 5]`).
///
/// Two fits (weighted least squares against SciPy's `erf` in `f64`, see
/// `scripts/fit_erf.py`), both computed for every element and one
/// selected: `x + x P(x²)` for `|x| < 0.921875`, `1 - e^{Q(|x|)}` (sign of
/// `x`) above, `Q` fitting `ln erfc` on `[0.921875, 3.93]`; past 3.93,
/// `erf` is 1 in `f32`.
///
/// The polynomials are evaluated with fused multiply-adds (`mul_add`), as
/// in [`exp_f32`] and [`tanh_f32`]: one instruction per step where the
/// loops run with AVX2 or AVX-512 (the eager and fused kernels of a
/// transcendental operation do), the C library's `fmaf` elsewhere, and the
/// same exactly rounded result on every path. Against `f64`'s `erf`
/// rounded to `f32`, a quarter as many results are off by one ulp as with
/// a multiply and an add per step (1.4% of the `f32`s in `[-5, 5]`; musl's
/// `erff`, 5.9%).
///
/// ```
/// use shaped::ops::scalar::erf_f32;
/// assert_eq!(erf_f32(0.0), 0.0);
/// assert_eq!(erf_f32(f32::INFINITY), 1.0);
/// assert_eq!(erf_f32(-9.0), -1.0);
/// assert!(erf_f32(f32::NAN).is_nan());
/// assert!((erf_f32(0.5) - 0.520_499_9).abs() < 1e-7);
/// ```
#[inline(always)]
pub fn erf_f32(x: f32) -> f32 {
    const SPLIT: f32 = 0.921_875;
    const P: [f32; 7] = [
        1.283_791_7e-1,
        -3.761_263_3e-1,
        1.128_368_7e-1,
        -2.685_899_8e-2,
        5.200_187e-3,
        -8.134_599e-4,
        8.341_220_2e-5,
    ];
    const Q: [f32; 9] = [
        1.613_609_7e-4,
        -1.129_439_2,
        -6.335_319e-1,
        -1.080_266_6e-1,
        2.490_667_5e-2,
        -4.059_051e-3,
        3.983_653e-4,
        -1.458_818_4e-5,
        -5.021_09e-7,
    ];
    let t = x.abs();
    let s = x * x;
    let p = horner(s, &P);
    let small = x.mul_add(p, x);
    let tc = t.min(3.93);
    let q = horner(tc, &Q);
    let large = (1.0 - exp_neg_f32(q)).copysign(x);
    let r = if t < SPLIT { small } else { large };
    if x.is_nan() { x } else { r }
}

/// `e^x` in `T`: [`exp_f32`] for `f32` (and the narrower types, through
/// it), the platform's `exp` for `f64`.
///
/// ```
/// assert_eq!(shaped::ops::scalar::exp(0.0f32), 1.0);
/// assert_eq!(shaped::ops::scalar::exp(1.0f64), std::f64::consts::E);
/// ```
#[inline(always)]
pub fn exp<T: Float>(x: T) -> T {
    by_width(x, exp_f32, T::exp)
}

/// `e^x` in `f32` without branches, so that loops over it vectorise: `exp`,
/// `sigmoid`, `silu` and their gradients, `gelu`'s gradient (the
/// platform's `expf` branches, and kept those loops one element at a time:
/// a fused `silu` chain ran at a third of the speed of the `gelu` one).
/// Within 2 ulp of musl's `expf` over the whole range, subnormal results
/// included (`tests/erf.rs`): 0 below -104, infinity above 89, NaN for NaN.
///
/// `2^n e^r`, `n` the nearest integer to `x / ln 2` (in `[-150, 128]`) and
/// `|r| <= ln 2 / 2`, `e^r` by its Taylor polynomial of degree 7 (error
/// below 2^-27), with fused multiply-adds as in [`erf_f32`]; `2^n` as two
/// normal factors, so that a subnormal or overflowing result is rounded
/// once.
///
/// ```
/// use shaped::ops::scalar::exp_f32;
/// assert_eq!(exp_f32(0.0), 1.0);
/// assert_eq!(exp_f32(-200.0), 0.0);
/// assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
/// assert_eq!(exp_f32(89.0), f32::INFINITY);
/// assert!(exp_f32(f32::NAN).is_nan());
/// assert!((exp_f32(-1.0) - 0.367_879_44).abs() < 1e-7);
/// assert!(exp_f32(-100.0) > 0.0); // subnormal, 3.7e-44
/// ```
#[inline(always)]
pub fn exp_f32(x: f32) -> f32 {
    // Below -104, e^x is under half the smallest subnormal: 0; above 89,
    // over the largest `f32`: infinity.
    let (p, n) = exp_parts(x.clamp(-104.0, 89.0));
    // `n` in `[-150, 128]` as two halves in `[-75, 64]`, each 2^half a
    // normal `f32`.
    let lo = n >> 1;
    let r = p * pow2(lo) * pow2(n - lo);
    if x.is_nan() { x } else { r }
}

/// `ln x` in `T`: [`log_f32`] for `f32` (and the narrower types, through
/// it), the platform's `ln` for `f64`.
///
/// ```
/// assert_eq!(shaped::ops::scalar::log(1.0f32), 0.0);
/// assert_eq!(shaped::ops::scalar::log(2.0f64), 2f64.ln());
/// ```
#[inline(always)]
pub fn log<T: Float>(x: T) -> T {
    by_width(x, log_f32, T::ln)
}

/// `ln x` in `f32` without branches, so that loops over it vectorise (the
/// platform's `logf` is called one element at a time: an eager or fused
/// `log` ran at a fifth of the speed of `exp`). Within 1 ulp of `f64`'s
/// `ln` rounded to `f32` (`tests/erf.rs`; every third `f32` checked: 0.3%
/// of them 1 ulp off, as with musl's `logf`), subnormals included;
/// -infinity at ±0, NaN below 0, infinity at infinity.
///
/// `x = 2^k m` with `m` in `[√2/2, √2)`, read from the bits (a subnormal
/// scaled by `2^23` first), and `ln m = ln(1 + f) = 2 atanh(s)` with
/// `s = f / (2 + f)`, `|s| < 0.1716`: `2s + s R(s²)`, `R` the first four
/// terms of the series of `2 atanh(s) / s - 2` (error below 2^-31), written
/// as `f - (f²/2 - s (f²/2 + R))` (since `2s = f - s f`), so that the exact
/// `f` carries the result and the rounded terms only correct it. `k ln 2`
/// in two parts, as in [`exp_f32`]. Fused multiply-adds as in [`erf_f32`].
///
/// ```
/// use shaped::ops::scalar::log_f32;
/// assert_eq!(log_f32(1.0), 0.0);
/// assert_eq!(log_f32(0.0), f32::NEG_INFINITY);
/// assert_eq!(log_f32(f32::INFINITY), f32::INFINITY);
/// assert!(log_f32(-1.0).is_nan() && log_f32(f32::NAN).is_nan());
/// assert!((log_f32(2.0) - core::f32::consts::LN_2).abs() < 1e-7);
/// ```
#[inline(always)]
pub fn log_f32(x: f32) -> f32 {
    let r = log_finite_positive(x);
    if x.is_nan() {
        x
    } else if x < 0.0 {
        f32::NAN
    } else if x == 0.0 {
        f32::NEG_INFINITY
    } else if x == f32::INFINITY {
        x
    } else {
        r
    }
}

/// `x = 2^k m` as `(k, m)`, `m` in `[√2/2, √2)`, for a finite `x > 0`
/// (anything for other `x`), from the bits without branches (a subnormal
/// scaled by `2^23` first): where the logarithms start ([`log_f32`], and
/// `pow_f32`'s `log2`).
#[inline(always)]
pub(super) fn exponent_and_significand(x: f32) -> (i32, f32) {
    // The bits of √2/2: `m` starts there.
    const LOW_M: i32 = 0x3f35_04f3;
    let subnormal = x < f32::MIN_POSITIVE;
    let (y, shift) = if subnormal {
        (x * 8_388_608.0, 23)
    } else {
        (x, 0)
    };
    // `y`'s bits less those of √2/2: the exponent field is `k`, the rest
    // `m`'s mantissa measured from √2/2.
    let t = (y.to_bits() as i32).wrapping_sub(LOW_M);
    let m = f32::from_bits(((t & 0x007f_ffff) + LOW_M) as u32);
    ((t >> 23) - shift, m)
}

/// `ln x` for a finite `x > 0` (anything for other `x`), without
/// branches: [`log_f32`]'s formula.
#[inline(always)]
fn log_finite_positive(x: f32) -> f32 {
    let (k, m) = exponent_and_significand(x);
    let k = k as f32;
    // Exact (Sterbenz: `m` is within a factor of 2 of 1).
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let r = z * horner(z, &[2.0 / 3.0, 2.0 / 5.0, 2.0 / 7.0, 2.0 / 9.0]);
    let hfsq = 0.5 * f * f;
    let low = s.mul_add(hfsq + r, k * LN2_LO);
    k.mul_add(LN2_HI, f - (hfsq - low))
}

/// `ln(1 + x)` in `T`: [`log1p_f32`] for `f32` (and the narrower types,
/// through it), the platform's `ln_1p` for `f64`.
///
/// ```
/// assert_eq!(shaped::ops::scalar::log1p(0.0f32), 0.0);
/// assert_eq!(shaped::ops::scalar::log1p(1e-20f64), 1e-20);
/// ```
#[inline(always)]
pub fn log1p<T: Float>(x: T) -> T {
    by_width(x, log1p_f32, T::ln_1p)
}

/// `ln(1 + x)` in `f32` without branches, so that loops over it vectorise
/// (the platform's `log1pf` ran one element at a time, 38x slower than an
/// add). Within 1 ulp of `f64`'s `ln_1p` rounded to `f32` (`tests/erf.rs`;
/// every third `f32` checked: 2.3% of them 1 ulp off, 0.27% with musl's
/// `log1pf`); `x` itself where `1 + x` rounds to 1 (signed zeros kept),
/// -infinity at -1, NaN below.
///
/// `u = 1 + x` rounded, `ln u` by [`log_f32`]'s formula, and the rounding
/// of `u` corrected to first order: `+ (x - (u - 1)) / u` (`u - 1` is
/// exact).
///
/// ```
/// use shaped::ops::scalar::log1p_f32;
/// assert_eq!(log1p_f32(0.0), 0.0);
/// assert_eq!(log1p_f32(-0.0).to_bits(), (-0.0f32).to_bits());
/// assert_eq!(log1p_f32(1e-30), 1e-30);
/// assert_eq!(log1p_f32(-1.0), f32::NEG_INFINITY);
/// assert!(log1p_f32(-2.0).is_nan());
/// assert!((log1p_f32(1.0) - core::f32::consts::LN_2).abs() < 1e-7);
/// ```
#[inline(always)]
pub fn log1p_f32(x: f32) -> f32 {
    let u = 1.0 + x;
    let r = log_finite_positive(u) + (x - (u - 1.0)) / u;
    if x.is_nan() {
        x
    } else if x < -1.0 {
        f32::NAN
    } else if x == -1.0 {
        f32::NEG_INFINITY
    } else if x == f32::INFINITY || u == 1.0 {
        x
    } else {
        r
    }
}

/// `e^x - 1` in `T`: [`expm1_f32`] for `f32` (and the narrower types,
/// through it), the platform's `exp_m1` for `f64`.
///
/// ```
/// assert_eq!(shaped::ops::scalar::expm1(0.0f32), 0.0);
/// assert_eq!(shaped::ops::scalar::expm1(1e-20f64), 1e-20);
/// ```
#[inline(always)]
pub fn expm1<T: Float>(x: T) -> T {
    by_width(x, expm1_f32, T::exp_m1)
}

/// `e^x - 1` in `f32` without branches, so that loops over it vectorise
/// (the platform's `expm1f` ran one element at a time, 34x slower than an
/// add). Within 1 ulp of `f64`'s `exp_m1` rounded to `f32` (`tests/erf.rs`;
/// every third `f32` checked: 0.28% of them 1 ulp off, 0.30% with musl's
/// `expm1f`); -1 below -88, infinity past 88.73, `x` itself at ±0.
///
/// `e^x = 2^n e^r` as in [`exp_f32`], but with `q = e^r - 1` by its own
/// Taylor polynomial (degree 8, error below 2^-30 relative to `q`), so
/// that a small `x` (`n = 0`) loses nothing to cancellation; then
/// `2^n q + (2^n - 1)`, or, where `2^n` alone would overflow (`n` past
/// 30, the `- 1` then below half an ulp), `(1 + q) 2^n - 1` with `2^n`
/// in two factors.
///
/// ```
/// use shaped::ops::scalar::expm1_f32;
/// assert_eq!(expm1_f32(0.0), 0.0);
/// assert_eq!(expm1_f32(-0.0).to_bits(), (-0.0f32).to_bits());
/// assert_eq!(expm1_f32(1e-30), 1e-30);
/// assert_eq!(expm1_f32(-100.0), -1.0);
/// assert_eq!(expm1_f32(89.0), f32::INFINITY);
/// assert!((expm1_f32(1.0) - (core::f32::consts::E - 1.0)).abs() < 2e-7);
/// ```
#[inline(always)]
pub fn expm1_f32(x: f32) -> f32 {
    // Below -88 the result is -1 (2^-127 is then read as 0 below); above
    // 89, infinity.
    let (r, n) = split_ln2(x.clamp(-88.0, 89.0));
    let q = (r * r).mul_add(horner(r, &INV_FACTORIALS[2..]), r);
    // `2^n` for `n` in `[-127, 30]` (`pow2(-127)` is 0).
    let t = pow2(n.min(30));
    let near = t.mul_add(q, t - 1.0);
    let lo = n >> 1;
    let far = (1.0 + q) * pow2(lo) * pow2(n - lo) - 1.0;
    if x.is_nan() || x == 0.0 {
        x
    } else if n > 30 {
        far
    } else {
        near
    }
}

pub use super::power::pow_f32;
pub use super::trig::{atan2_f32, cos_f32, sin_f32, tan_f32};

/// `sin x` in `T`: [`sin_f32`] for `f32` (and the narrower types, through
/// it), the platform's `sin` for `f64`.
///
/// ```
/// assert_eq!(shaped::ops::scalar::sin(0.0f32), 0.0);
/// assert_eq!(shaped::ops::scalar::sin(1.0f64), 1.0f64.sin());
/// ```
#[inline(always)]
pub fn sin<T: Float>(x: T) -> T {
    by_width(x, sin_f32, T::sin)
}

/// `cos x` in `T`: [`cos_f32`] for `f32` (and the narrower types, through
/// it), the platform's `cos` for `f64`.
///
/// ```
/// assert_eq!(shaped::ops::scalar::cos(0.0f32), 1.0);
/// assert_eq!(shaped::ops::scalar::cos(1.0f64), 1.0f64.cos());
/// ```
#[inline(always)]
pub fn cos<T: Float>(x: T) -> T {
    by_width(x, cos_f32, T::cos)
}

/// `tan x` in `T`: [`tan_f32`] for `f32` (and the narrower types, through
/// it), the platform's `tan` for `f64`.
///
/// ```
/// assert_eq!(shaped::ops::scalar::tan(0.0f32), 0.0);
/// assert_eq!(shaped::ops::scalar::tan(1.0f64), 1.0f64.tan());
/// ```
#[inline(always)]
pub fn tan<T: Float>(x: T) -> T {
    by_width(x, tan_f32, T::tan)
}

/// `atan2(y, x)` in `T`: [`atan2_f32`] for `f32` (and the narrower types,
/// through it), the platform's `atan2` for `f64`.
///
/// ```
/// assert_eq!(shaped::ops::scalar::atan2(0.0f32, 1.0), 0.0);
/// assert_eq!(shaped::ops::scalar::atan2(1.0f64, 2.0), 1.0f64.atan2(2.0));
/// ```
#[inline(always)]
pub fn atan2<T: Float>(y: T, x: T) -> T {
    by_width2(y, x, atan2_f32, T::atan2)
}

/// `x^y` in `T`: [`pow_f32`] for `f32` (and the narrower floats, through
/// it), the platform's `powf` for `f64`, and for the integers
/// exponentiation by squaring (wrapping; a negative exponent gives 0
/// unless the base is 1 or -1), as PyTorch's integer kernel.
///
/// ```
/// assert_eq!(shaped::ops::scalar::pow(3i32, 4), 81);
/// assert_eq!(shaped::ops::scalar::pow(2.0f32, -1.0), 0.5);
/// assert_eq!(shaped::ops::scalar::pow(2.0f64, 0.5), 2f64.sqrt());
/// ```
#[inline(always)]
pub fn pow<T: Numeric>(x: T, y: T) -> T {
    if T::IS_FLOAT && core::mem::size_of::<T>() <= 4 {
        T::from_f64(pow_f32(x.to_f64() as f32, y.to_f64() as f32) as f64)
    } else {
        x.pow_elem(y)
    }
}

/// `tanh` in `T`: [`tanh_f32`] for `f32` (and the narrower types, through
/// it), the platform's `tanh` for `f64`.
///
/// ```
/// assert_eq!(shaped::ops::scalar::tanh(0.0f32), 0.0);
/// assert_eq!(shaped::ops::scalar::tanh(1.0f64), 1.0f64.tanh());
/// ```
#[inline(always)]
pub fn tanh<T: Float>(x: T) -> T {
    by_width(x, tanh_f32, T::tanh)
}

/// `tanh` in `f32` without branches, so that loops over it vectorise (the
/// platform's `tanhf` branches: a fused `tanh` chain ran 10x slower than
/// the `gelu` one). Within 2 ulp of musl's `tanhf` (`tests/erf.rs`).
///
/// Both forms are computed for every element and one selected:
/// `x + x^3 P(x^2)` for `|x| < 0.55` (`P` fitted by `scripts/fit_tanh.py`,
/// 0.8 ulp there; fused multiply-adds as in [`erf_f32`]),
/// `1 - 2 / (e^{2|x|} + 1)` (sign of `x`) above, with [`exp_f32`].
///
/// ```
/// use shaped::ops::scalar::tanh_f32;
/// assert_eq!(tanh_f32(0.0), 0.0);
/// assert_eq!(tanh_f32(-0.0).to_bits(), (-0.0f32).to_bits());
/// assert_eq!(tanh_f32(f32::INFINITY), 1.0);
/// assert_eq!(tanh_f32(-20.0), -1.0);
/// assert!(tanh_f32(f32::NAN).is_nan());
/// assert!((tanh_f32(0.5) - 0.462_117_16).abs() < 1e-7);
/// ```
#[inline(always)]
pub fn tanh_f32(x: f32) -> f32 {
    const SPLIT: f32 = 0.55;
    const P: [f32; 5] = [
        -0.333_333_16,
        0.133_325_86,
        -0.053_852_364,
        0.021_071_916,
        -0.006_274_590_7,
    ];
    let s = x * x;
    let p = horner(s, &P);
    // The sign of `x` (`-0.0 + 0.0` would be `+0.0`).
    let small = (x * s).mul_add(p, x).copysign(x);
    let a = x.abs();
    // e^{2|x|} overflows to infinity past 44: the quotient is then 0.
    let large = (1.0 - 2.0 / (exp_f32(a + a) + 1.0)).copysign(x);
    // A NaN `x` fails the comparison, and `large` is NaN.
    if a < SPLIT { small } else { large }
}

/// `e^q` for `q` in `[-20, 0]` (`erf_f32`'s tail), without branches:
/// [`exp_parts`] scaled by one power of two.
#[inline(always)]
fn exp_neg_f32(q: f32) -> f32 {
    let (p, n) = exp_parts(q);
    p * pow2(n)
}

/// `e^x` as `p * 2^n` for `x` in `[-104, 89]`: `p = e^r` ([`split_ln2`])
/// by its Taylor polynomial of degree 7 (error below 2^-27, [`horner`]).
/// Without branches.
#[inline(always)]
fn exp_parts(x: f32) -> (f32, i32) {
    let (r, n) = split_ln2(x);
    (horner(r, &INV_FACTORIALS[..8]), n)
}

/// `1 / k!` for `k` in `0..=8`: the Taylor coefficients of `e^r`
/// ([`exp_parts`], degree 7) and of `(e^r - 1 - r) / r²` ([`expm1_f32`],
/// from `1 / 2!`, degree 6).
const INV_FACTORIALS: [f32; 9] = [
    1.0,
    1.0,
    0.5,
    1.0 / 6.0,
    1.0 / 24.0,
    1.0 / 120.0,
    1.0 / 720.0,
    1.0 / 5040.0,
    1.0 / 40_320.0,
];

/// The polynomial `c[0] + c[1] x + c[2] x² + ...` (coefficients lowest
/// first, at least one) by Horner's rule, every step a fused multiply-add:
/// one instruction where the loops run with AVX2 or AVX-512, the C
/// library's `fmaf` elsewhere, the same exactly rounded result on every
/// path. The polynomials of `erf_f32`, `tanh_f32`, `exp_f32`, `expm1_f32`
/// and `log_f32`.
#[inline(always)]
fn horner(x: f32, c: &[f32]) -> f32 {
    let (&last, rest) = c.split_last().expect("a polynomial has a coefficient");
    rest.iter().rev().fold(last, |acc, &k| acc.mul_add(x, k))
}

/// The polynomial `c[0] + c[1] x + ... + c[N-1] x^(N-1)` in `f64` by
/// Estrin's scheme: neighbouring coefficients paired by a fused
/// multiply-add with `x`, the pairs paired with `x²`, and so on, so that
/// the dependent chain is `log2 N` steps long instead of Horner's `N - 1`.
/// A vectorised loop over a long polynomial otherwise waits on that chain:
/// a loop of `pow_f32` ran 1.6x faster with it than with Horner's rule of
/// the same fused multiply-adds (AMD EPYC Zen 5, AVX-512, one thread).
/// Unrolled and folded by the compiler (`N` is a constant).
#[inline(always)]
pub(super) fn estrin<const N: usize>(x: f64, c: &[f64; N]) -> f64 {
    const { assert!(N >= 1 && N <= 16, "one to sixteen coefficients") };
    let mut v = [0.0f64; 16];
    v[..N].copy_from_slice(c);
    let (mut n, mut power) = (N, x);
    // Every bound is a constant, so that the compiler unrolls both loops
    // and folds the tests on `n` (a loop until `n` is 1 was not unrolled,
    // and the loops calling this did not vectorise).
    for _ in 0..4 {
        for i in 0..8 {
            if 2 * i + 1 < n {
                v[i] = v[2 * i + 1].mul_add(power, v[2 * i]);
            } else if 2 * i < n {
                v[i] = v[2 * i];
            }
        }
        n = n.div_ceil(2);
        power *= power;
    }
    v[0]
}

/// `ln 2` in two parts: `LN2_HI` has 16 significant bits, so `n * LN2_HI`
/// is exact for `|n| <= 151`.
const LN2_HI: f32 = 0.693_145_75;
/// `ln 2 - LN2_HI`.
const LN2_LO: f32 = 1.428_606_8e-6;

/// `x = n ln 2 + r` for `x` in `[-104, 89]`: `n` the nearest integer to
/// `x / ln 2` and `r = x - n ln 2` (`|r| <= ln 2 / 2`, with `ln 2` in two
/// parts), as `(r, n)`. Without branches.
#[inline(always)]
fn split_ln2(x: f32) -> (f32, i32) {
    // Adding and subtracting 1.5 * 2^23 rounds to the nearest integer.
    const ROUND: f32 = 12_582_912.0;
    let j = x.mul_add(core::f32::consts::LOG2_E, ROUND);
    let n = j - ROUND;
    let r = (-n).mul_add(LN2_LO, (-n).mul_add(LN2_HI, x));
    // The integer `n` from `j`'s low mantissa bits (integer arithmetic,
    // which vectorises; a float-to-int cast saturates, and does not).
    (r, j.to_bits().wrapping_sub(ROUND.to_bits()) as i32)
}

/// `2^e` for `e` in `[-126, 127]`, from its exponent bits.
#[inline(always)]
fn pow2(e: i32) -> f32 {
    f32::from_bits(((e + 127) as u32) << 23)
}

/// The sign: -1, 0 or 1 (NaN gives 0, as PyTorch's kernel computes
/// `(0 < x) - (x < 0)`).
///
/// ```
/// assert_eq!(shaped::ops::scalar::sign(-4i64), -1);
/// ```
#[inline(always)]
pub fn sign<T: Numeric>(x: T) -> T {
    let (z, o) = (T::zero(), T::one());
    if x > z {
        o
    } else if x < z {
        z - o
    } else {
        z
    }
}
