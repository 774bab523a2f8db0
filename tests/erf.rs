//! `scalar::erf_f32`, `exp_f32` and `tanh_f32` (branch-free, so that loops
//! over them vectorise) against musl's `erff`, `expf` and `tanhf` (through
//! `libm`, an independent implementation): within 2 ulp on a sweep of
//! `f32`s (`erf`: every 1024th in `[-5, 5]`; every 16th was checked when it
//! was written: 1 ulp at most), and exact at the special values.
//! `log_f32`, `log1p_f32` and `expm1_f32` against the `f64` functions
//! rounded to `f32`: within 1 ulp, and musl's values at the special ones.

use shaped::ops::scalar::{erf_f32, exp_f32, expm1_f32, log_f32, log1p_f32, tanh_f32};

#[test]
fn erf_f32_is_within_two_ulp_of_musl() {
    let mut worst = (0i64, 0.0f32);
    for sign in [0u32, 0x8000_0000] {
        let mut b = 0u32;
        while b <= 5.0f32.to_bits() {
            let x = f32::from_bits(b | sign);
            let (got, want) = (erf_f32(x), libm::erff(x));
            let d = (got.to_bits() as i64 - want.to_bits() as i64).abs();
            if d > worst.0 {
                worst = (d, x);
            }
            b += 1024;
        }
    }
    assert!(worst.0 <= 2, "{} ulp at {:e}", worst.0, worst.1);
}

#[test]
fn erf_f32_special_values() {
    assert_eq!(erf_f32(0.0).to_bits(), 0.0f32.to_bits());
    assert_eq!(erf_f32(-0.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!(erf_f32(f32::INFINITY), 1.0);
    assert_eq!(erf_f32(f32::NEG_INFINITY), -1.0);
    assert_eq!(erf_f32(4.0), 1.0);
    assert_eq!(erf_f32(-1e30), -1.0);
    assert!(erf_f32(f32::NAN).is_nan());
    let tiny = f32::from_bits(1);
    assert_eq!(erf_f32(tiny), libm::erff(tiny));
}

/// `exp_f32` (branch-free, so that `exp`, `sigmoid`, `silu` and `gelu`'s
/// gradient vectorise) against musl's `expf`: within 2 ulp on every 64th
/// `f32` in `[-104, 89]`, the subnormal results and the overflow to
/// infinity included, and 0, infinity or NaN past that.
#[test]
fn exp_f32_is_within_two_ulp_of_musl() {
    let mut worst = (0i64, 0.0f32);
    let mut check = |x: f32| {
        let (got, want) = (exp_f32(x), libm::expf(x));
        let d = (got.to_bits() as i64 - want.to_bits() as i64).abs();
        if d > worst.0 {
            worst = (d, x);
        }
    };
    // The negative half from -0 down, then the positive one from 0 up.
    let mut b = 0x8000_0000u32;
    while b <= (-104.0f32).to_bits() {
        check(f32::from_bits(b));
        b += 64;
    }
    let mut b = 0u32;
    while b <= 89.0f32.to_bits() {
        check(f32::from_bits(b));
        b += 64;
    }
    assert!(worst.0 <= 2, "{} ulp at {:e}", worst.0, worst.1);
    assert_eq!(exp_f32(-0.0), 1.0);
    assert_eq!(exp_f32(-104.5), 0.0);
    assert_eq!(exp_f32(f32::NEG_INFINITY), 0.0);
    assert_eq!(exp_f32(f32::MIN), 0.0);
    assert_eq!(exp_f32(88.8), f32::INFINITY);
    assert_eq!(exp_f32(f32::INFINITY), f32::INFINITY);
    assert_eq!(exp_f32(f32::MAX), f32::INFINITY);
    assert!(exp_f32(f32::NAN).is_nan());
}

/// `tanh_f32` against musl's `tanhf`: within 2 ulp on every 64th `f32` in
/// `[-12, 12]` (past 9, both are ±1), and at the special values.
#[test]
fn tanh_f32_is_within_two_ulp_of_musl() {
    let mut worst = (0i64, 0.0f32);
    for sign in [0u32, 0x8000_0000] {
        let mut b = 0u32;
        while b <= 12.0f32.to_bits() {
            let x = f32::from_bits(b | sign);
            let (got, want) = (tanh_f32(x), libm::tanhf(x));
            let d = (got.to_bits() as i64 - want.to_bits() as i64).abs();
            if d > worst.0 {
                worst = (d, x);
            }
            b += 64;
        }
    }
    assert!(worst.0 <= 2, "{} ulp at {:e}", worst.0, worst.1);
    assert_eq!(tanh_f32(-0.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!(tanh_f32(f32::INFINITY), 1.0);
    assert_eq!(tanh_f32(f32::NEG_INFINITY), -1.0);
    assert_eq!(tanh_f32(f32::MAX), 1.0);
    assert_eq!(tanh_f32(1e-30), 1e-30);
    assert!(tanh_f32(f32::NAN).is_nan());
}

/// The largest distance in ulp between `f(x)` and `want(x)` over the
/// `f32`s whose bits run from `from` to `to` by `step`, and where it is;
/// NaN against NaN counts as equal, NaN against a number as far, and so do
/// zeros of opposite signs.
fn worst_ulp(
    f: impl Fn(f32) -> f32,
    want: impl Fn(f32) -> f32,
    from: u32,
    to: u32,
    step: u32,
) -> (i64, f32) {
    let mut worst = (0i64, 0.0f32);
    let mut b = from;
    while b <= to {
        let x = f32::from_bits(b);
        let (got, want) = (f(x), want(x));
        let d = match (got.is_nan(), want.is_nan()) {
            (true, true) => 0,
            (false, false) if got.is_sign_negative() == want.is_sign_negative() => {
                (got.to_bits() as i64 - want.to_bits() as i64).abs()
            }
            _ => i64::MAX,
        };
        if d > worst.0 {
            worst = (d, x);
        }
        match b.checked_add(step) {
            Some(n) => b = n,
            None => break,
        }
    }
    worst
}

/// `ln` in `f64` rounded to `f32`: the reference of the sweeps below (the
/// platform's, an implementation independent of both the crate's and
/// musl's).
fn ln_f64(x: f32) -> f32 {
    (x as f64).ln() as f32
}

/// `log_f32` (branch-free, so that `log` vectorises) within 1 ulp of the
/// `f64` `ln` on every 251st positive `f32` (subnormals, normals and
/// infinity) and every third in `[0.5, 2]`, where the result is smallest;
/// every negative `f32` gives NaN; the special values as musl's `logf`.
/// Every third `f32` was checked when it was written: 1 ulp at most (0.3%
/// of them, as many as musl's `logf`).
#[test]
fn log_f32_is_within_one_ulp() {
    let w = worst_ulp(log_f32, ln_f64, 1, f32::INFINITY.to_bits(), 251);
    assert!(w.0 <= 1, "{} ulp at {:e}", w.0, w.1);
    let w = worst_ulp(log_f32, ln_f64, 0.5f32.to_bits(), 2.0f32.to_bits(), 3);
    assert!(w.0 <= 1, "{} ulp near 1 at {:e}", w.0, w.1);
    let w = worst_ulp(log_f32, |_| f32::NAN, 0x8000_0001, u32::MAX, 251);
    assert_eq!(w.0, 0, "a number at {:e}", w.1);
    for x in [0.0, -0.0] {
        assert_eq!(log_f32(x), f32::NEG_INFINITY);
    }
    assert!(log_f32(f32::NEG_INFINITY).is_nan() && log_f32(f32::NAN).is_nan());
    assert_eq!(log_f32(1.0).to_bits(), 0.0f32.to_bits());
    assert_eq!(log_f32(f32::INFINITY), f32::INFINITY);
    assert_eq!(log_f32(f32::MAX), libm::logf(f32::MAX));
    let tiny = f32::from_bits(1);
    assert_eq!(log_f32(tiny), libm::logf(tiny));
}

/// `log1p_f32` within 1 ulp of the `f64` `ln_1p` on every 251st `f32`
/// above -1 (both signs, subnormals to infinity), NaN below -1, and the
/// special values. Every third `f32` was checked when it was written: 1
/// ulp at most (2.3% of them; musl's `log1pf`, 0.27%).
#[test]
fn log1p_f32_is_within_one_ulp() {
    let want = |x: f32| (x as f64).ln_1p() as f32;
    let w = worst_ulp(log1p_f32, want, 0, f32::INFINITY.to_bits(), 251);
    assert!(w.0 <= 1, "{} ulp at {:e}", w.0, w.1);
    let w = worst_ulp(log1p_f32, want, 0x8000_0000, (-1.0f32).to_bits(), 251);
    assert!(w.0 <= 1, "{} ulp at {:e}", w.0, w.1);
    let below = (-1.0f32).to_bits() + 1;
    let w = worst_ulp(log1p_f32, |_| f32::NAN, below, u32::MAX, 251);
    assert_eq!(w.0, 0, "a number at {:e}", w.1);
    assert_eq!(log1p_f32(-0.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!(log1p_f32(-1.0), f32::NEG_INFINITY);
    assert!(log1p_f32(f32::NEG_INFINITY).is_nan() && log1p_f32(f32::NAN).is_nan());
    assert_eq!(log1p_f32(f32::INFINITY), f32::INFINITY);
    assert_eq!(log1p_f32(f32::MAX), libm::log1pf(f32::MAX));
    assert_eq!(log1p_f32(f32::from_bits(1)), f32::from_bits(1));
}

/// `expm1_f32` within 1 ulp of the `f64` `exp_m1` on every 251st `f32`
/// from -infinity to infinity, and the special values as musl's
/// `expm1f`. Every third `f32` was checked when it was written: 1 ulp at
/// most (0.3% of them, as many as musl's `expm1f`).
#[test]
fn expm1_f32_is_within_one_ulp() {
    let want = |x: f32| (x as f64).exp_m1() as f32;
    let w = worst_ulp(expm1_f32, want, 0, f32::INFINITY.to_bits(), 251);
    assert!(w.0 <= 1, "{} ulp at {:e}", w.0, w.1);
    let w = worst_ulp(
        expm1_f32,
        want,
        0x8000_0000,
        f32::NEG_INFINITY.to_bits(),
        251,
    );
    assert!(w.0 <= 1, "{} ulp at {:e}", w.0, w.1);
    assert_eq!(expm1_f32(0.0).to_bits(), 0.0f32.to_bits());
    assert_eq!(expm1_f32(-0.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!(expm1_f32(f32::NEG_INFINITY), -1.0);
    assert_eq!(expm1_f32(-88.5), libm::expm1f(-88.5));
    assert_eq!(expm1_f32(f32::INFINITY), f32::INFINITY);
    assert_eq!(expm1_f32(88.8), f32::INFINITY);
    assert_eq!(expm1_f32(88.7), libm::expm1f(88.7));
    assert!(expm1_f32(f32::NAN).is_nan());
    assert_eq!(expm1_f32(f32::from_bits(1)), f32::from_bits(1));
}
