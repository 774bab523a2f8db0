//! What the CUDA-vs-CPU tests share: the GPU they run on, if any, and
//! their deterministic sample values.

use shaped::device::{Cuda, CudaDevice};

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
