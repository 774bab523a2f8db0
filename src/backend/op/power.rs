//! `x^y` in `f32` without branches, so that loops over it vectorise (the
//! platform's `powf` branches and ran one element at a time): `2^(y log2
//! |x|)` in `f64`, rounded once to `f32`, with C's special values chosen by
//! comparisons that compile to blends.

use super::scalar::{estrin, exponent_and_significand};
use super::trig::ROUND;

/// `log2 x` in `f64` for a finite `x > 0` (anything for other `x`),
/// without branches, to 2^-37.5 relative in `ln m` (below): `y log2 x` is
/// then within 2^-30.5 of the exact value wherever `2^(y log2 x)` is a
/// finite nonzero `f32` (`|y log2 x| < 150`).
///
/// `x = 2^k m` with `m` in `[√2/2, √2)`, from the bits (a subnormal scaled
/// by `2^23` first), and `ln m = 2 atanh(s)`, `s = (m - 1)/(m + 1)`,
/// `|s| < 0.1716`: `atanh(s)/s` by a polynomial in `s²` of degree 4 (a
/// near-minimax fit of relative error 2^-37.8, from
/// `scripts/polynomial_fits.py`; the Taylor series needed degree 5 for
/// 2^-34), its coefficients multiplied by `2 log2 e`, by Estrin's scheme.
#[inline(always)]
fn log2_finite_positive(x: f32) -> f64 {
    /// `2 log2 e` times the fit's coefficients, lowest first.
    const L: f64 = 2.0 * core::f64::consts::LOG2_E;
    const ATANH: [f64; 5] = [
        L * 1.000_000_000_004_212_6,
        L * 0.333_333_326_202_312,
        L * 0.200_001_929_336_221_68,
        L * 0.142_674_930_172_926_5,
        L * 0.118_087_319_354_534_33,
    ];
    let (k, m) = exponent_and_significand(x);
    let (k, m) = (f64::from(k), f64::from(m));
    let s = (m - 1.0) / (m + 1.0);
    s.mul_add(estrin(s * s, &ATANH), k)
}

/// `2^t` in `f64` for `t` in `[-200, 200]`, without branches, to 2^-29
/// relative: `2^n 2^w`, `n` the nearest integer to `t`, `|w| <= 1/2`,
/// `2^w` by a polynomial of degree 6 (a near-minimax fit of relative error
/// 2^-29.0, from `scripts/polynomial_fits.py`; the Taylor polynomial of
/// `e^(w ln 2)` needed degree 7 and a product for 2^-27.5), by Estrin's
/// scheme. (`pow_f32` over 4,096 L1-resident pairs, one thread, AMD EPYC
/// family 25 model 1 (Zen 3), AVX2 + FMA, best of 6 interleaved rounds:
/// 3.30 ns per element before both fits, 3.11 after.)
#[inline(always)]
fn exp2_bounded(t: f64) -> f64 {
    /// The fit's coefficients, lowest first.
    const EXP2: [f64; 7] = [
        1.000_000_000_554_166_3,
        0.693_147_205_737_265,
        0.240_226_468_906_280_24,
        0.055_503_287_769_696_92,
        0.009_618_488_957_784_471,
        0.001_339_993_121_773_599_3,
        0.000_153_458_118_222_456_54,
    ];
    let j = t + ROUND;
    let n = j - ROUND;
    let p = estrin(t - n, &EXP2);
    // The integer `n` from `j`'s low bits (integer arithmetic vectorises;
    // a float-to-int cast does not everywhere), `2^n` from its exponent
    // bits (`n + 1023` in `[823, 1223]`: a normal `f64`).
    let e = (j.to_bits().wrapping_sub(ROUND.to_bits()) as i64 + 1023) as u64;
    p * f64::from_bits(e << 52)
}

/// `x^y` in `f32` without branches (module docs), as C's `powf` and
/// `torch.pow`: within 1 ulp of the exact power (`2^(y log2 |x|)` in `f64`,
/// its error below 2^-28.5 relative, rounded once), exact where the power
/// is an `f32` (`2^10`, `3^2`, `x^1`), `x * x` for `y = 2` (as PyTorch
/// computes it). Special values: `x^0 = 1` and `1^y = 1` even for a NaN,
/// `(-1)^±inf = 1`, a negative finite `x` to a non-integer `y` is NaN, a
/// negative `x` to an odd integer keeps its sign (`(-0)^-3 = -inf`), and
/// zeros and infinities as C99 Annex F.
///
/// ```
/// use shaped::ops::scalar::pow_f32;
/// assert_eq!(pow_f32(2.0, 10.0), 1024.0);
/// assert_eq!(pow_f32(-2.0, 3.0), -8.0);
/// assert!(pow_f32(-2.0, 0.5).is_nan());
/// assert_eq!(pow_f32(f32::NAN, 0.0), 1.0);
/// assert_eq!(pow_f32(-0.0, -3.0), f32::NEG_INFINITY);
/// assert_eq!(pow_f32(0.5, f32::INFINITY), 0.0);
/// assert_eq!(pow_f32(10.0, 39.0), f32::INFINITY);
/// assert!((pow_f32(2.0, 0.5) - core::f32::consts::SQRT_2).abs() < 2e-7);
/// ```
#[inline(always)]
pub fn pow_f32(x: f32, y: f32) -> f32 {
    /// `2^23`: from here on every `f32` is an integer.
    const TWO_23: f32 = 8_388_608.0;
    let ax = x.abs();
    // `|y log2 |x||` past 200 under- or overflows `f32` either way: clamped
    // to where `2^t` is still a normal `f64`.
    let t = (f64::from(y) * log2_finite_positive(ax)).clamp(-200.0, 200.0);
    let magnitude = exp2_bounded(t) as f32;
    // A zero or infinite base: 0 or infinity, by whether `log2 |x|` and `y`
    // have the same sign. (The special values are all decided on `f32`
    // lanes, twice as many to a vector as `f64`'s.)
    let zero = ax == 0.0;
    let edge = if zero == (y < 0.0) {
        f32::INFINITY
    } else {
        0.0
    };
    let magnitude = if zero || ax == f32::INFINITY {
        edge
    } else {
        magnitude
    };
    // Whether `y` is an integer, and an odd one: below 2^23, `|y| + 2^23`
    // rounds `|y|` to an integer whose parity is the sum's last bit; from
    // 2^23 to 2^24 the last bit of `y` is its parity, and from 2^24 up
    // (infinity too) every `f32` is even.
    let ay = y.abs();
    let small = ay < TWO_23;
    let j = ay + TWO_23;
    let integer = !small || j - TWO_23 == ay;
    let odd = if small {
        integer && j.to_bits() & 1 == 1
    } else {
        ay < 16_777_216.0 && y.to_bits() & 1 == 1
    };
    let v = if x.is_sign_negative() && odd {
        -magnitude
    } else {
        magnitude
    };
    let v = if x < 0.0 && x.is_finite() && !integer {
        f32::NAN
    } else {
        v
    };
    let v = if y == 2.0 { x * x } else { v };
    let v = if x.is_nan() || y.is_nan() { x + y } else { v };
    if y == 0.0 || x == 1.0 || (x == -1.0 && y.is_infinite()) {
        1.0
    } else {
        v
    }
}
