//! `sin`, `cos`, `tan` and `atan2` in `f32` without branches, so that the
//! loops over them vectorise (the platform's `sinf`, `cosf`, `tanf` and
//! `atan2f` branch, and ran one element at a time, 15x slower than an
//! add). Each reduces and evaluates in `f64` (`sin` and `cos` evaluate
//! their polynomials in `f32` on the reduced argument split in two `f32`s)
//! and rounds once to `f32`: within 1 ulp of `f64`'s functions rounded to
//! `f32` over the whole range (`tests/trig.rs`), the sine of `1e38`
//! included, whose argument is reduced modulo π/2 exactly
//! ([`reduce_half_pi`]).
//!
//! Branch-free means every element takes the same instructions: the
//! special values (infinities, NaN, zeros) are chosen by comparisons that
//! compile to blends, never jumps.

use super::scalar::estrin;
use super::trig_table::{HALF_PI, TWO_POW_MOD_TAU_HI, TWO_POW_MOD_TAU_LO, TWO_POW_MOD_TAU_MID};

/// Adding and subtracting `1.5 * 2^52` rounds an `f64` below `2^51` to the
/// nearest integer, whose low bits are then those of the sum's bits.
pub(super) const ROUND: f64 = 6_755_399_441_055_744.0;

/// `a + b` as the rounded sum and its exact error (Knuth's two-sum).
#[inline(always)]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// `|x| = n π/2 + r` for a finite `f32`: `r` in `[-π/4, π/4]` (a hair
/// more) to about 2^-80 absolute, and `n mod 4`. Without branches.
///
/// Below `2^24`, `n` is the nearest integer to `|x| 2/π` (`n < 2^24`) and
/// `r = |x| - n (π/2)` with π/2 in three parts, the first two of 27 bits
/// so that `n` times them is exact (Cody and Waite). From `2^24` up, `|x|`
/// is `M 2^e` with `M` a 24-bit integer and `e` in `1..=104`, and modulo
/// 2π it equals `M (2^e mod 2π)`: the table holds `2^e mod 2π` in three
/// parts (28, 28, 53 bits), `M` times the first two exact, and the product
/// (below 2^27) is reduced as above. The first difference is exact and
/// the next two are summed with their errors kept, so that an `r` near 0
/// (an `x` near a multiple of π/2: no `f32` is nearer than about 2^-30
/// relative) keeps its digits. A table of 105 rows replaces the
/// Payne-Hanek reduction: an `f32` has only 105 exponents at or above 2^24.
#[inline(always)]
pub(crate) fn reduce_half_pi(x: f32) -> (f64, u64) {
    let bits = x.to_bits() & 0x7fff_ffff;
    let ax = f32::from_bits(bits);
    // `e`: the exponent of `|x|` as an integer times 2^e (105 for NaN and
    // the infinities, which the callers replace).
    let e = (bits >> 23) as i32 - 150;
    let big = e > 0;
    // `M`, the 24-bit integer significand: the mantissa under the exponent
    // of 2^23.
    let significand = f32::from_bits((bits & 0x007f_ffff) | (150 << 23));
    let m = f64::from(if big { significand } else { ax });
    let row = e.clamp(0, 104) as usize;
    let (c0, c1, c2) = (
        TWO_POW_MOD_TAU_HI[row],
        TWO_POW_MOD_TAU_MID[row],
        TWO_POW_MOD_TAU_LO[row],
    );
    let (y0, y1, y2) = (m * c0, m * c1, m * c2);
    let j = (y0 + y1) * core::f64::consts::FRAC_2_PI + ROUND;
    let n = j - ROUND;
    // Exact: both terms are multiples of 2^-47 and their difference is
    // below 2 (the generator asserts the table's side of this).
    let hi = y0 - n * HALF_PI[0];
    let (s, e1) = two_sum(hi, y1);
    let (s, e2) = two_sum(s, -(n * HALF_PI[1]));
    let r = s + (e1 + e2 + (y2 - n * HALF_PI[2]));
    (r, j.to_bits() & 3)
}

/// [`reduce_half_pi`] for `|x| < 2^24` (anything for larger `x`), in a
/// third of its instructions: no table (`n < 2^24`, so `n` times either of
/// the first two parts of π/2 is exact, and so is each of the first two
/// differences), for the contiguous runs of `backend/cpu/trig_runs.rs`,
/// which take [`reduce_half_pi`] for a run that holds a larger `x`.
#[inline(always)]
pub(crate) fn reduce_half_pi_below_2_24(x: f32) -> (f64, u64) {
    let ax = f64::from(x.abs());
    let j = ax * core::f64::consts::FRAC_2_PI + ROUND;
    let n = j - ROUND;
    let r = (ax - n * HALF_PI[0]) - n * HALF_PI[1] - n * HALF_PI[2];
    (r, j.to_bits() & 3)
}

/// `sin r` and `cos r` in `f32` for `|r| <= π/4` (a hair more): `r` as
/// `rh + rl`, two `f32`s, Taylor polynomials in `rh` to `r^9` and `r^10`
/// (truncation below 2^-28 relative) in `f32`, twice the lanes of `f64`,
/// and `rl` added to first order (`sin(rh + rl) = sin rh + rl`,
/// `cos(rh + rl) = cos rh - rh rl`), so that an `r` near 0 keeps the
/// digits that the reduction found. `sin` and `cos`; `tan` divides, and
/// takes [`sin_cos_reduced`].
#[inline(always)]
fn sin_cos_reduced_f32(r: f64) -> (f32, f32) {
    let rh = r as f32;
    let rl = (r - f64::from(rh)) as f32;
    let z = rh * rh;
    let s = (((1.0 / 362_880.0 * z - 1.0 / 5040.0) * z + 1.0 / 120.0) * z - 1.0 / 6.0) * z;
    let c = ((((-1.0 / 3_628_800.0 * z + 1.0 / 40_320.0) * z - 1.0 / 720.0) * z + 1.0 / 24.0) * z
        - 0.5)
        * z;
    (rh + (rh * s + rl), 1.0 + (c - rh * rl))
}

/// `sin r` and `cos r` for `|r| <= π/4` (a hair more), by their Taylor
/// polynomials to `r^13` and `r^14` (truncation below 2^-45 relative).
#[inline(always)]
fn sin_cos_reduced(r: f64) -> (f64, f64) {
    let z = r * r;
    let s = ((((((1.0 / 6_227_020_800.0) * z - 1.0 / 39_916_800.0) * z + 1.0 / 362_880.0) * z
        - 1.0 / 5040.0)
        * z
        + 1.0 / 120.0)
        * z
        - 1.0 / 6.0)
        * z;
    let c = (((((((1.0 / 87_178_291_200.0) * z - 1.0 / 479_001_600.0) * z + 1.0 / 3_628_800.0)
        * z
        - 1.0 / 40_320.0)
        * z
        + 1.0 / 720.0)
        * z
        - 1.0 / 24.0)
        * z
        + 0.5)
        * z;
    (r + r * s, 1.0 - c)
}

/// `sin x` in `f32` without branches (module docs): within 1 ulp of `f64`'s
/// `sin` rounded to `f32` at every `f32`, NaN for NaN and the infinities,
/// `x` itself for tiny `x` (signed zeros kept).
///
/// ```
/// use shaped::ops::scalar::sin_f32;
/// assert_eq!(sin_f32(0.0), 0.0);
/// assert_eq!(sin_f32(-0.0).to_bits(), (-0.0f32).to_bits());
/// assert_eq!(sin_f32(1e-30), 1e-30);
/// assert!((sin_f32(1.0) - 0.841_470_96).abs() < 1e-7);
/// assert_eq!(sin_f32(1e38), (1e38f32 as f64).sin() as f32);
/// assert!(sin_f32(f32::INFINITY).is_nan() && sin_f32(f32::NAN).is_nan());
/// ```
#[inline(always)]
pub fn sin_f32(x: f32) -> f32 {
    let v = sin_reduced(x, reduce_half_pi(x));
    if x.is_finite() { v } else { f32::NAN }
}

/// `sin x` from `|x| = n π/2 + r` as `(r, n mod 4)`.
#[inline(always)]
pub(crate) fn sin_reduced(x: f32, (r, q): (f64, u64)) -> f32 {
    let (s, c) = sin_cos_reduced_f32(r);
    let v = if q & 1 == 0 { s } else { c };
    // Quadrants 2 and 3 negate, and so does a negative `x` (sine is odd).
    let negate = (q & 2 != 0) != x.is_sign_negative();
    if negate { -v } else { v }
}

/// `cos x` in `f32` without branches (module docs): within 1 ulp of `f64`'s
/// `cos` rounded to `f32` at every `f32`, NaN for NaN and the infinities.
///
/// ```
/// use shaped::ops::scalar::cos_f32;
/// assert_eq!(cos_f32(0.0), 1.0);
/// assert_eq!(cos_f32(-0.0), 1.0);
/// assert!((cos_f32(1.0) - 0.540_302_3).abs() < 1e-7);
/// assert_eq!(cos_f32(-1e38), (1e38f32 as f64).cos() as f32);
/// assert!(cos_f32(f32::NEG_INFINITY).is_nan());
/// ```
#[inline(always)]
pub fn cos_f32(x: f32) -> f32 {
    let v = cos_reduced(x, reduce_half_pi(x));
    if x.is_finite() { v } else { f32::NAN }
}

/// `cos x` from `|x| = n π/2 + r` as `(r, n mod 4)`.
#[inline(always)]
pub(crate) fn cos_reduced(_x: f32, (r, q): (f64, u64)) -> f32 {
    let (s, c) = sin_cos_reduced_f32(r);
    let v = if q & 1 == 0 { c } else { s };
    // Cosine is even; quadrants 1 and 2 negate.
    if (q + 1) & 2 != 0 { -v } else { v }
}

/// `tan x` in `f32` without branches (module docs): within 1 ulp of `f64`'s
/// `tan` rounded to `f32` at every `f32` (`sin r / cos r` in `f64`, or
/// `-cos r / sin r` in the odd quadrants), NaN for NaN and the
/// infinities, signed zeros kept.
///
/// ```
/// use shaped::ops::scalar::tan_f32;
/// assert_eq!(tan_f32(-0.0).to_bits(), (-0.0f32).to_bits());
/// assert!((tan_f32(1.0) - 1.557_407_7).abs() < 2e-7);
/// assert_eq!(tan_f32(1e30), (1e30f32 as f64).tan() as f32);
/// assert!(tan_f32(f32::INFINITY).is_nan());
/// ```
#[inline(always)]
pub fn tan_f32(x: f32) -> f32 {
    let v = tan_reduced(x, reduce_half_pi(x));
    if x.is_finite() { v } else { f32::NAN }
}

/// `tan x` from `|x| = n π/2 + r` as `(r, n mod 4)`.
#[inline(always)]
pub(crate) fn tan_reduced(x: f32, (r, q): (f64, u64)) -> f32 {
    let (s, c) = sin_cos_reduced(r);
    let v = if q & 1 == 0 { s / c } else { -c / s };
    // Tangent is odd.
    (if x.is_sign_negative() { -v } else { v }) as f32
}

/// `atan t` for `|t| <= tan(π/8)`: `atan(t)/t` by a polynomial in `t²` of
/// degree 5, a near-minimax fit of relative error 2^-30.6
/// (`scripts/polynomial_fits.py`; the Taylor series needed degree 9 for
/// 2^-29.9), evaluated by Estrin's scheme. (`atan2_f32` over 4,096
/// L1-resident pairs, one thread, AMD EPYC family 25 model 1 (Zen 3),
/// AVX2 + FMA, best of 6 interleaved rounds: 3.35 ns per element with the
/// series, 2.83 with the fit.)
#[inline(always)]
fn atan_reduced(t: f64) -> f64 {
    /// The fit's coefficients, lowest first.
    const ATAN: [f64; 6] = [
        0.999_999_999_396_669_3,
        -0.333_333_076_258_356_9,
        0.199_982_169_473_345_54,
        -0.142_400_830_036_719_5,
        0.105_734_797_735_183_66,
        -0.060_347_902_779_771_29,
    ];
    t * estrin(t * t, &ATAN)
}

/// The angle of the point `(x, y)` from the positive `x` axis, in
/// `[-π, π]`, as `f32`'s `atan2(y, x)` (`torch.atan2(y, x)`), without
/// branches: within 1 ulp of `f64`'s `atan2` rounded to `f32`, with C's
/// special values (the signs of zeros, `±π/4` and `±3π/4` for two
/// infinities, NaN for a NaN).
///
/// `a = min(|x|, |y|) / max(|x|, |y|)` in `[0, 1]`, `atan a` as
/// `π/4 + atan((a - 1)/(a + 1))` above `tan(π/8)` (`atan_reduced`; one
/// division either way), then reflected into the octant of `(x, y)`, all
/// in `f64`.
///
/// ```
/// use shaped::ops::scalar::atan2_f32;
/// use core::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};
/// assert_eq!(atan2_f32(1.0, 1.0), FRAC_PI_4);
/// assert_eq!(atan2_f32(1.0, 0.0), FRAC_PI_2);
/// assert_eq!(atan2_f32(0.0, -1.0), PI);
/// assert_eq!(atan2_f32(-0.0, -0.0), -PI);
/// assert_eq!(atan2_f32(-0.0, 2.0).to_bits(), (-0.0f32).to_bits());
/// assert_eq!(atan2_f32(f32::INFINITY, f32::NEG_INFINITY), 3.0 * FRAC_PI_4);
/// assert!(atan2_f32(f32::NAN, 1.0).is_nan());
/// ```
#[inline(always)]
pub fn atan2_f32(y: f32, x: f32) -> f32 {
    use core::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};
    let (ay, ax) = (f64::from(y.abs()), f64::from(x.abs()));
    let swap = ay > ax;
    let (num, den) = if swap { (ax, ay) } else { (ay, ax) };
    // `a = num / den` in `[0, 1]`; above tan(π/8), `atan a` is
    // `π/4 + atan((a - 1)/(a + 1))`, and `(a - 1)/(a + 1)` is
    // `(num - den)/(num + den)`: one division either way (the sum and the
    // difference are exact, `num` and `den` being `f32`s within a factor
    // of 2.5). Equal nonzero operands (two infinities included) give
    // exactly π/4, two zeros 0.
    let equal = num == den && num != 0.0;
    let far = num > (core::f64::consts::SQRT_2 - 1.0) * den || equal;
    let (p, q) = if far {
        (num - den, num + den)
    } else {
        (num, den)
    };
    let t = if num == den { 0.0 } else { p / q };
    let v = atan_reduced(t) + if far { FRAC_PI_4 } else { 0.0 };
    let v = if swap { FRAC_PI_2 - v } else { v };
    let v = if x.is_sign_negative() { PI - v } else { v };
    let v = (v as f32).copysign(y);
    if x.is_nan() || y.is_nan() { x + y } else { v }
}
