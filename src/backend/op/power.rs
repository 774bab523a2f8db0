//! `x^y` in `f32` without branches, so that loops over it vectorise (the
//! platform's `powf` branches and ran one element at a time): `2^(y log2
//! |x|)` in `f64`, rounded once to `f32`, with C's special values chosen by
//! comparisons that compile to blends.

use super::scalar::exponent_and_significand;
use super::trig::ROUND;

/// `log2 x` in `f64` for a finite `x > 0` (anything for other `x`),
/// without branches, to 2^-40 relative in `ln m` (below): `y log2 x` is
/// then within 2^-31 of the exact value wherever `2^(y log2 x)` is a
/// finite nonzero `f32` (`|y log2 x| < 150`, `|ln m| < 0.35`).
///
/// `x = 2^k m` with `m` in `[√2/2, √2)`, from the bits (a subnormal scaled
/// by `2^23` first), and `ln m = 2 atanh(s)`, `s = (m - 1)/(m + 1)`,
/// `|s| < 0.1716`, by its series to `s^13` (truncation below 2^-40).
#[inline(always)]
fn log2_finite_positive(x: f32) -> f64 {
    let (k, m) = exponent_and_significand(x);
    let (k, m) = (f64::from(k), f64::from(m));
    let s = (m - 1.0) / (m + 1.0);
    let z = s * s;
    let mut p = 1.0 / 13.0;
    let mut j = 11.0;
    // Unrolled by the compiler: six multiply-adds.
    for _ in 0..6 {
        p = p * z + 1.0 / j;
        j -= 2.0;
    }
    k + (2.0 * core::f64::consts::LOG2_E) * (s * p)
}

/// `2^t` in `f64` for `t` in `[-200, 200]`, without branches, to 2^-37
/// relative: `2^n e^(f ln 2)`, `n` the nearest integer to `t`,
/// `|f ln 2| <= 0.347`, `e^w` by its Taylor polynomial to `w^9`.
#[inline(always)]
fn exp2_bounded(t: f64) -> f64 {
    // `1 / k!` for `k` in `0..=9`.
    const INV_FACTORIALS: [f64; 10] = [
        1.0,
        1.0,
        1.0 / 2.0,
        1.0 / 6.0,
        1.0 / 24.0,
        1.0 / 120.0,
        1.0 / 720.0,
        1.0 / 5040.0,
        1.0 / 40_320.0,
        1.0 / 362_880.0,
    ];
    let j = t + ROUND;
    let n = j - ROUND;
    let w = (t - n) * core::f64::consts::LN_2;
    let p = INV_FACTORIALS[..9]
        .iter()
        .rev()
        .fold(INV_FACTORIALS[9], |acc, &k| acc * w + k);
    // The integer `n` from `j`'s low bits (integer arithmetic vectorises;
    // a float-to-int cast does not everywhere), `2^n` from its exponent
    // bits (`n + 1023` in `[823, 1223]`: a normal `f64`).
    let e = (j.to_bits().wrapping_sub(ROUND.to_bits()) as i64 + 1023) as u64;
    p * f64::from_bits(e << 52)
}

/// `x^y` in `f32` without branches (module docs), as C's `powf` and
/// `torch.pow`: within 1 ulp of the exact power (`2^(y log2 |x|)` in `f64`,
/// its error below 2^-40 relative, rounded once), exact where the power
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
    let ax = x.abs();
    let l = log2_finite_positive(ax);
    let l = if ax == 0.0 {
        f64::NEG_INFINITY
    } else if ax == f32::INFINITY {
        f64::INFINITY
    } else {
        l
    };
    // `y log2 |x|` is infinite for a zero or infinite `x` (or `y`), and
    // 2^t is then 0 or infinity: clamped to where `2^t` rounds to 0 or
    // overflows `f32`.
    let t = (f64::from(y) * l).clamp(-200.0, 200.0);
    let magnitude = exp2_bounded(t);
    // Whether `y` is an integer, and an odd one: every `f32` from 2^24 up
    // (infinity too) is an even integer; below, `|y| + 1.5 * 2^52` is an
    // integer's bits exactly when `|y|` is one.
    let ay = f64::from(y.abs());
    let j = ay + ROUND;
    let large = ay >= 16_777_216.0;
    let integer = large || j - ROUND == ay;
    let odd = !large && integer && j.to_bits() & 1 == 1;
    let v = if x.is_sign_negative() && odd {
        -magnitude
    } else {
        magnitude
    } as f32;
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
