//! Launches of the generators (`source.rs`'s `sh_gen_*` modules): `arange`
//! and the seeded uniform and normal streams, written straight into a
//! fresh device buffer (nothing is computed on the host or copied up).

use cudarc::driver::{CudaSlice, DevicePtrMut, PushKernelArg};

use super::CudaError;
use super::device::{CudaDevice, CudaElement};
use super::elementwise::config;
use super::source::generate_source;

/// Which generator, with its arguments.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Generator<T> {
    /// `start + i * step` (in `f64`, then converted).
    Arange { start: f64, step: f64 },
    /// The CPU's `rand` stream for `seed`, clamped to `below_one`.
    Uniform { seed: u64, below_one: T },
    /// The CPU's `randn` stream for `seed`.
    Normal { seed: u64 },
}

/// Writes `n` elements of generator `g` into `out` (which holds at least
/// `n`).
pub(crate) fn generate<T: CudaElement>(
    dev: &CudaDevice,
    g: Generator<T>,
    out: &mut CudaSlice<T>,
    n: usize,
) -> Result<(), CudaError> {
    if n == 0 {
        return Ok(());
    }
    let make = || generate_source(T::NAME);
    let stream = dev.stream();
    let n = n as u64;
    let (po, _so) = out.device_ptr_mut(stream);
    match g {
        Generator::Arange { start, step } => {
            let f = dev.kernel(("gen", "", T::NAME, "arange"), make)?;
            let mut b = stream.launch_builder(&f);
            b.arg(&po).arg(&start).arg(&step).arg(&n);
            // SAFETY: `_arange(T*, double, double, u64 n)` matches the
            // pushed arguments; `out` holds at least `n` elements.
            unsafe { b.launch(config(n)) }?;
        }
        Generator::Uniform { seed, below_one } => {
            let f = dev.kernel(("gen", "", T::NAME, "uniform"), make)?;
            let mut b = stream.launch_builder(&f);
            b.arg(&po).arg(&seed).arg(&below_one).arg(&n);
            // SAFETY: `_uniform(T*, u64 seed, T below_one, u64 n)` matches
            // the pushed arguments; `out` holds at least `n` elements.
            unsafe { b.launch(config(n)) }?;
        }
        Generator::Normal { seed } => {
            let f = dev.kernel(("gen", "", T::NAME, "normal"), make)?;
            let mut b = stream.launch_builder(&f);
            b.arg(&po).arg(&seed).arg(&n);
            // SAFETY: `_normal(T*, u64 seed, u64 n)` matches the pushed
            // arguments; `out` holds at least `n` elements.
            unsafe { b.launch(config(n)) }?;
        }
    }
    Ok(())
}
