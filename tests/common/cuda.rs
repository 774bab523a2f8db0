//! The GPU the CUDA-vs-CPU tests run on, if any.

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
