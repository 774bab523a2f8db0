//! `scalar::erf_f32` (branch-free, so that `gelu` loops vectorise) against
//! musl's `erff` (through `libm`, an independent implementation): within
//! 2 ulp on every 1024th `f32` in `[-5, 5]` (every 16th was checked when
//! it was written: 1 ulp at most), and exact at the special values.

use shaped::ops::scalar::{erf_f32, exp_nonpositive_f32};

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

/// `exp_nonpositive_f32` (branch-free, for `gelu`'s gradient) against
/// musl's `expf`: within 2 ulp on every 64th `f32` in `[-104, 0]`, the
/// subnormal results included, and 0 or NaN past that.
#[test]
fn exp_nonpositive_f32_is_within_two_ulp_of_musl() {
    let mut worst = (0i64, 0.0f32);
    let mut b = 0x8000_0000u32;
    while b <= (-104.0f32).to_bits() {
        let q = f32::from_bits(b);
        let (got, want) = (exp_nonpositive_f32(q), libm::expf(q));
        let d = (got.to_bits() as i64 - want.to_bits() as i64).abs();
        if d > worst.0 {
            worst = (d, q);
        }
        b += 64;
    }
    assert!(worst.0 <= 2, "{} ulp at {:e}", worst.0, worst.1);
    assert_eq!(exp_nonpositive_f32(-0.0), 1.0);
    assert_eq!(exp_nonpositive_f32(-104.5), 0.0);
    assert_eq!(exp_nonpositive_f32(f32::NEG_INFINITY), 0.0);
    assert_eq!(exp_nonpositive_f32(f32::MIN), 0.0);
    assert!(exp_nonpositive_f32(f32::NAN).is_nan());
}
