//! `scalar::sin_f32`, `cos_f32`, `tan_f32`, `atan2_f32` and `pow_f32`
//! (branch-free, so that loops over them vectorise) against musl's `f64`
//! functions (through `libm`, an independent implementation with its own
//! Payne-Hanek argument reduction) rounded to `f32`: within 1 ulp on
//! sweeps of `f32`s over the whole range, and equal at the special values
//! (C99 Annex F, which `torch.sin`, `torch.atan2` and `torch.pow` follow).

use shaped::ops::scalar::{atan2_f32, cos_f32, pow_f32, sin_f32, tan_f32};

/// The distance in ulp between two `f32`s of the same sign (0 for two
/// NaNs; a NaN against a number is `i64::MAX`).
fn ulps(a: f32, b: f32) -> i64 {
    if a.is_nan() || b.is_nan() {
        return if a.is_nan() && b.is_nan() {
            0
        } else {
            i64::MAX
        };
    }
    // Ordered: negative floats mapped below the positive ones.
    let key = |v: f32| {
        let b = v.to_bits() as i64;
        if b & 0x8000_0000 != 0 {
            0x8000_0000 - b
        } else {
            b
        }
    };
    (key(a) - key(b)).abs()
}

/// The largest distance seen between a two-argument function and its
/// reference, and where.
struct Worst {
    name: &'static str,
    ulps: i64,
    at: (f32, f32),
}

impl Worst {
    fn new(name: &'static str) -> Self {
        Worst {
            name,
            ulps: 0,
            at: (0.0, 0.0),
        }
    }

    /// Records `name(a, b) = got` against `want`.
    fn see(&mut self, a: f32, b: f32, got: f32, want: f32) {
        let d = ulps(got, want);
        if d > self.ulps {
            *self = Worst {
                name: self.name,
                ulps: d,
                at: (a, b),
            };
        }
    }

    fn assert_within_one_ulp(&self) {
        let (a, b) = self.at;
        assert!(
            self.ulps <= 1,
            "{} ulp at {}({a:e}, {b:e})",
            self.ulps,
            self.name
        );
    }
}

/// The worst distance of `f` from `reference` over every `stride`-th `f32`
/// bit pattern (both signs, NaNs and infinities included), and where.
fn sweep(f: impl Fn(f32) -> f32, reference: impl Fn(f64) -> f64, stride: u32) -> (i64, f32) {
    let mut worst = (0i64, 0.0f32);
    let mut b = 0u64;
    while b <= u32::MAX as u64 {
        let x = f32::from_bits(b as u32);
        let d = ulps(f(x), reference(x as f64) as f32);
        if d > worst.0 {
            worst = (d, x);
        }
        b += stride as u64;
    }
    worst
}

#[test]
fn sin_cos_tan_are_within_one_ulp_everywhere() {
    // A prime stride, so that every exponent and many mantissas are seen.
    for (name, f, r) in [
        (
            "sin",
            sin_f32 as fn(f32) -> f32,
            libm::sin as fn(f64) -> f64,
        ),
        ("cos", cos_f32, libm::cos),
        ("tan", tan_f32, libm::tan),
    ] {
        let (d, x) = sweep(f, r, 4099);
        assert!(d <= 1, "{name}: {d} ulp at {x:e} ({:#x})", x.to_bits());
    }
}

/// Arguments that test the reduction modulo π/2: near multiples of π/2
/// (the `f32` nearest to `k π/2` for many `k`, where the reduced argument
/// is smallest relative to `x`) and the largest `f32`s.
#[test]
fn sin_cos_tan_near_multiples_of_half_pi() {
    let mut checked = 0;
    for k in (1..200_000u64).step_by(7).chain((0..60).map(|e| 3u64 << e)) {
        let centre = (k as f64 * core::f64::consts::FRAC_PI_2) as f32;
        let mut x = centre;
        for _ in 0..3 {
            for (f, r) in [
                (sin_f32 as fn(f32) -> f32, libm::sin as fn(f64) -> f64),
                (cos_f32, libm::cos),
                (tan_f32, libm::tan),
            ] {
                let d = ulps(f(x), r(x as f64) as f32);
                assert!(d <= 1, "{d} ulp at {x:e} ({:#x})", x.to_bits());
            }
            x = f32::from_bits(x.to_bits() + 1);
            checked += 1;
        }
    }
    for x in [
        f32::MAX,
        -f32::MAX,
        1e38,
        3.0e38,
        16_777_216.0,
        16_777_215.0,
    ] {
        assert_eq!(ulps(sin_f32(x), libm::sin(x as f64) as f32), 0, "{x:e}");
        assert_eq!(ulps(cos_f32(x), libm::cos(x as f64) as f32), 0, "{x:e}");
    }
    assert!(checked > 80_000);
}

#[test]
fn trig_special_values() {
    for f in [sin_f32, cos_f32, tan_f32] {
        assert!(f(f32::INFINITY).is_nan());
        assert!(f(f32::NEG_INFINITY).is_nan());
        assert!(f(f32::NAN).is_nan());
    }
    assert_eq!(sin_f32(-0.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!(tan_f32(-0.0).to_bits(), (-0.0f32).to_bits());
    assert_eq!(cos_f32(-0.0), 1.0);
    let tiny = f32::from_bits(1);
    assert_eq!(sin_f32(-tiny), -tiny);
    assert_eq!(tan_f32(tiny), tiny);
}

/// Values with every exponent, both signs, the zeros, the infinities, NaN
/// and the integers around 0 (the odd and even exponents of `pow`).
fn grid() -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::MAX,
        0.5,
        1.5,
        2.5,
    ];
    v.extend((-5..=5).map(|i| i as f32));
    let mut b = 0u32;
    while b < 0x7f80_0000 {
        v.push(f32::from_bits(b));
        v.push(-f32::from_bits(b));
        b += 0x0031_3371;
    }
    v
}

#[test]
fn atan2_is_within_one_ulp_with_c_special_values() {
    let g = grid();
    let mut worst = Worst::new("atan2");
    for &y in &g {
        for &x in &g {
            let (got, want) = (atan2_f32(y, x), libm::atan2(y as f64, x as f64) as f32);
            worst.see(y, x, got, want);
            // The signs of zero results too.
            if want == 0.0 {
                assert_eq!(got.to_bits(), want.to_bits(), "atan2({y:e}, {x:e})");
            }
        }
    }
    worst.assert_within_one_ulp();
}

/// Ratios `min/max` swept through `[1e-6, 1]`, every 7th `f32` where the
/// reduced argument of the series is largest (around `tan(π/8)`, where the
/// two reductions meet, and its truncation counts most) and near 1, in
/// every quadrant and both orders.
#[test]
fn atan2_sweeps_every_ratio() {
    let mut worst = Worst::new("atan2");
    let mut a = 1e-6f32;
    while a <= 1.0 {
        for (y, x) in [
            (a, 1.0),
            (1.0, a),
            (-a, 3.0),
            (a * 7.0, -7.0),
            (-5.0, -5.0 * a),
        ] {
            worst.see(
                y,
                x,
                atan2_f32(y, x),
                libm::atan2(y as f64, x as f64) as f32,
            );
        }
        let dense = (0.35..0.5).contains(&a) || a > 0.95;
        a = f32::from_bits(a.to_bits() + if dense { 7 } else { 4099 });
    }
    worst.assert_within_one_ulp();
}

#[test]
fn pow_is_within_one_ulp_with_c_special_values() {
    let mut g = grid();
    // Exponents where the sign and the integer test matter.
    g.extend([
        2.0,
        -2.0,
        3.0,
        -3.0,
        0.25,
        1e-3,
        16_777_215.0,
        16_777_216.0,
        33.0,
        -127.5,
    ]);
    let mut worst = Worst::new("pow");
    for &x in &g {
        for &y in &g {
            let (got, want) = (pow_f32(x, y), libm::pow(x as f64, y as f64) as f32);
            worst.see(x, y, got, want);
            if want == 0.0 || want.is_infinite() {
                assert_eq!(got.to_bits(), want.to_bits(), "pow({x:e}, {y:e})");
            }
        }
    }
    worst.assert_within_one_ulp();
}

/// Bases near 1 and large exponents, where an error in `log2 x` is
/// multiplied by `y`, and the subnormal results.
#[test]
fn pow_near_one_and_toward_underflow() {
    let mut worst = Worst::new("pow");
    let mut x = 0.9f32;
    while x < 1.1 {
        for y in [-1000.0f32, -300.5, -37.0, 55.5, 127.0, 900.0, 1e4] {
            worst.see(x, y, pow_f32(x, y), libm::pow(x as f64, y as f64) as f32);
        }
        x = f32::from_bits(x.to_bits() + 97);
    }
    for x in [1e-3f32, 0.1, 0.5, 2.0] {
        let mut y = 1.0f32;
        while y < 200.0 {
            for y in [y, -y] {
                worst.see(x, y, pow_f32(x, y), libm::pow(x as f64, y as f64) as f32);
            }
            y += 0.37;
        }
    }
    worst.assert_within_one_ulp();
}

/// The tensor methods, whose contiguous runs take the fast reduction below
/// 2^24 and recompute a chunk holding a larger `|x|` with the full one
/// (`backend/cpu/trig_runs.rs`): within 1 ulp of the reference on a sweep
/// of every exponent (large, non-finite and small values side by side in
/// the same chunks), near multiples of π/2, on a strided view (the
/// element-wise path), and in place.
#[test]
fn tensor_sin_cos_tan_match_the_reference() {
    use shaped::{DynRank, Tensor};
    let mut xs: Vec<f32> = Vec::new();
    let mut b = 0u64;
    while b <= u32::MAX as u64 {
        xs.push(f32::from_bits(b as u32));
        b += 65_537;
    }
    for k in (1..100_000u64).step_by(13) {
        let c = (k as f64 * core::f64::consts::FRAC_PI_2) as f32;
        xs.extend([
            c,
            f32::from_bits(c.to_bits() + 1),
            f32::from_bits(c.to_bits() - 1),
        ]);
    }
    // A long run with no large value (only the fast loop), then one odd
    // length: every chunk shape.
    xs.extend((0..1000).map(|i| i as f32 * 0.37 - 150.0));
    xs.push(2.5);
    let n = xs.len();
    let t = Tensor::<f32, DynRank>::try_from_vec(xs.clone(), &[n]).unwrap();
    let check = |name: &str, got: Vec<f32>, xs: &[f32], r: fn(f64) -> f64| {
        for (&g, &x) in got.iter().zip(xs) {
            let d = ulps(g, r(x as f64) as f32);
            assert!(d <= 1, "{name}: {d} ulp at {x:e} ({:#x})", x.to_bits());
        }
    };
    check("sin", t.sin().to_vec(), &xs, libm::sin);
    check("cos", t.cos().to_vec(), &xs, libm::cos);
    check("tan", t.tan().to_vec(), &xs, libm::tan);
    // A strided view: every other element.
    let m = n / 2;
    let pairs = Tensor::<f32, DynRank>::try_from_vec(xs[..2 * m].to_vec(), &[m, 2]).unwrap();
    // Transposed to (2, m): each row steps by 2 through the storage.
    let order: Vec<f32> = (0..2)
        .flat_map(|j| xs[..2 * m].iter().skip(j).step_by(2).copied())
        .collect();
    let strided = pairs.transpose::<0, 1>();
    check("strided sin", strided.sin().to_vec(), &order, libm::sin);
    let mut inplace = t.clone();
    inplace.cos_();
    check("cos_", inplace.to_vec(), &xs, libm::cos);
}

/// Random bases of every exponent with exponents that keep the power
/// finite and nonzero (`|y log2 x|` up to 150, where an error in `log2 x`
/// counts most), from a fixed linear congruential sequence.
#[test]
fn pow_random_pairs_within_one_ulp() {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 32) as u32
    };
    let mut worst = Worst::new("pow");
    for _ in 0..200_000 {
        let x = f32::from_bits(next() % 0x7f80_0000);
        let l = (x as f64).log2();
        if x == 0.0 || l == 0.0 {
            continue;
        }
        let u = next() as f64 / u32::MAX as f64 * 2.0 - 1.0;
        let y = (u * 150.0 / l.abs()) as f32;
        worst.see(x, y, pow_f32(x, y), libm::pow(x as f64, y as f64) as f32);
    }
    worst.assert_within_one_ulp();
}

/// The edges of the run loops: an empty tensor, one element, a length
/// just past a chunk (257) holding one large value in its last chunk
/// only, a broadcast (stride-0) input, in place and into a new tensor.
#[test]
fn tensor_trig_edges() {
    use shaped::{DynRank, Tensor};
    let empty = Tensor::<f32, DynRank>::try_from_vec(vec![], &[0]).unwrap();
    assert!(empty.sin().to_vec().is_empty());
    let mut e = empty.clone();
    e.tan_();
    assert!(e.to_vec().is_empty());
    let one = Tensor::<f32, DynRank>::try_from_vec(vec![1e30], &[1]).unwrap();
    assert_eq!(one.cos().to_vec(), vec![libm::cos(1e30f32 as f64) as f32]);
    let mut xs: Vec<f32> = (0..257).map(|i| i as f32 * 0.1).collect();
    xs[256] = 3e9;
    let t = Tensor::<f32, DynRank>::try_from_vec(xs.clone(), &[257]).unwrap();
    let mut inplace = t.clone();
    inplace.sin_();
    for (got, &x) in [t.sin().to_vec(), inplace.to_vec()]
        .iter()
        .flat_map(|v| v.iter().zip(&xs))
    {
        assert!(ulps(*got, libm::sin(x as f64) as f32) <= 1, "sin({x:e})");
    }
    let row = Tensor::<f32, DynRank>::try_from_vec(vec![0.5, 2e10, -7.0], &[1, 3]).unwrap();
    let wide = row.expand::<DynRank>(&[4, 3]).unwrap();
    let got = wide.tan().to_vec();
    for (i, g) in got.iter().enumerate() {
        let x = [0.5f32, 2e10, -7.0][i % 3];
        assert!(ulps(*g, libm::tan(x as f64) as f32) <= 1, "tan({x:e})");
    }
}
