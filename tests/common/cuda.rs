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

/// Square inputs made by `make(dims, seed)`: unbatched, batched, 17 x 17, a
/// zero-size batch, 0 x 0 matrices, a transposed view and an expanded
/// (stride-0 batch) view.
pub fn square_inputs<E: LinalgElement>(
    seed: u64,
    make: impl Fn(&[usize], u64) -> Tensor<E, DynRank>,
) -> Vec<(String, Tensor<E, DynRank>)> {
    vec![
        ("3x3".to_string(), make(&[3, 3], seed)),
        ("batched 2x3x4x4".to_string(), make(&[2, 3, 4, 4], seed + 1)),
        ("17x17".to_string(), make(&[17, 17], seed + 2)),
        ("zero-size batch".to_string(), make(&[0, 3, 3], seed)),
        (
            "0x0 matrices".to_string(),
            Tensor::try_zeros(&[2, 0, 0]).unwrap(),
        ),
        (
            "transposed view".to_string(),
            make(&[3, 5, 5], seed + 3).permute(&[0, 2, 1]).unwrap(),
        ),
        (
            "expanded batch".to_string(),
            make(&[1, 4, 4], seed + 4).expand(&[3, 4, 4]).unwrap(),
        ),
    ]
}
