//! `scalar::erf_f32`, `exp_f32` and `tanh_f32` (branch-free, so that loops
//! over them vectorise) against musl's `erff`, `expf` and `tanhf` (through
//! `libm`, an independent implementation): within 2 ulp on a sweep of
//! `f32`s (`erf`: every 1024th in `[-5, 5]`; every 16th was checked when it
//! was written: 1 ulp at most), and exact at the special values.

use shaped::ops::scalar::{erf_f32, exp_f32, tanh_f32};

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
