//! What the CUDA-vs-CPU tests share: the GPU they run on, if any, and
//! their deterministic sample values, and the linear-algebra comparisons.

use shaped::device::{Cuda, CudaDevice, CudaElement};
use shaped::linalg::LinalgFloat;
use shaped::{DynRank, Tensor};

/// CUDA device 0, or `None` after printing "skipped: no CUDA device" (a
/// panic instead when `SHAPED_REQUIRE_CUDA` is set, as on the GPU
/// machine, so that a missing device cannot pass silently).
pub fn device() -> Option<CudaDevice> {
    match Cuda::device(0) {
        Ok(d) => Some(d),
        Err(e) if std::env::var_os("SHAPED_REQUIRE_CUDA").is_some() => {
            panic!("SHAPED_REQUIRE_CUDA is set but there is no CUDA device: {e}")
        }
        Err(e) => {
            eprintln!("skipped: no CUDA device ({e})");
            None
        }
    }
}

/// `n` deterministic values in `[0, 1)` (a linear congruential sequence
/// from `seed`).
pub fn unit_values(n: usize, seed: u64) -> Vec<f64> {
    let step = |s: u64| {
        s.wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407)
    };
    let mut s = step(seed);
    (0..n)
        .map(|_| {
            s = step(s);
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

/// An element type both devices factor, with the relative tolerance the
/// CUDA-vs-CPU linear-algebra tests allow for it.
pub trait LinalgElement: LinalgFloat + CudaElement + Into<f64> {
    const TOL: f64;
    fn of(x: f64) -> Self;
}

impl LinalgElement for f32 {
    const TOL: f64 = 2e-3;
    fn of(x: f64) -> Self {
        x as f32
    }
}

impl LinalgElement for f64 {
    const TOL: f64 = 1e-9;
    fn of(x: f64) -> Self {
        x
    }
}

/// The CPU's result `cpu` and the device's, brought back as `back`: the
/// same sizes, and values within `E::TOL` (relative to the larger, or
/// absolute below 1), NaN equal to NaN.
#[track_caller]
pub fn assert_close<E: LinalgElement>(
    what: &str,
    cpu: &Tensor<E, DynRank>,
    back: &Tensor<E, DynRank>,
) {
    assert_eq!(cpu.dims(), back.dims(), "{what}: sizes");
    for (i, (x, y)) in cpu.to_vec().into_iter().zip(back.to_vec()).enumerate() {
        let (x, y): (f64, f64) = (x.into(), y.into());
        let ok = (x.is_nan() && y.is_nan())
            || x == y
            || (x - y).abs() <= E::TOL * x.abs().max(y.abs()).max(1.0);
        assert!(ok, "{what}: element {i}: cpu {x} vs device {y}");
    }
}

/// The same error, with the same message, on both devices.
#[track_caller]
pub fn same_error<R1, R2>(
    what: &str,
    cpu: Result<R1, impl std::fmt::Display>,
    dev: Result<R2, impl std::fmt::Display>,
) {
    let (Err(c), Err(g)) = (cpu, dev) else {
        panic!("{what}: expected errors on both devices")
    };
    assert_eq!(c.to_string(), g.to_string(), "{what}");
}
