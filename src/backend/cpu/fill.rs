//! [`Fill`] on the CPU, and the samplers behind the CPU constructors
//! (`try_rand`, `try_randn`): one buffer filled element by element from
//! the crate's SplitMix64 stream.

use super::exec::Layout;
use super::primitives::whole;
use super::storage::Storage;
use super::try_vec_from_fn;
use crate::backend::Output;
use crate::backend::fill::{Distribution, Fill};
use crate::backend::random::{SplitMix64, below_one};
use crate::device::Cpu;
use crate::element::{Element, Float};
use crate::shape::ShapeError;

/// `rand`'s samples for sizes `dims`: uniform in `[0, 1)`, drawn in
/// row-major order from the stream seeded with `seed`.
pub(crate) fn uniform<T: Float>(dims: &[usize], seed: u64) -> Result<Vec<T>, ShapeError> {
    let mut rng = SplitMix64(seed);
    let below_one = below_one::<T>();
    try_vec_from_fn(dims, |_| T::from_f64(rng.uniform()).min(below_one))
}

/// `randn`'s samples for sizes `dims`: standard normal (Box-Muller), drawn
/// in row-major order from the stream seeded with `seed`.
pub(crate) fn normal<T: Float>(dims: &[usize], seed: u64) -> Result<Vec<T>, ShapeError> {
    let mut rng = SplitMix64(seed);
    try_vec_from_fn(dims, |_| T::from_f64(rng.normal()))
}

impl<T: Element> Fill<T> for Cpu {
    fn full_like<U: Element>(
        _: Layout<'_, U>,
        dims: &[usize],
        value: T,
    ) -> Result<Output<Storage<T>>, ShapeError> {
        Ok(whole(try_vec_from_fn(dims, |_| value)?, dims))
    }

    fn random_like<U: Element>(
        _: Layout<'_, U>,
        dims: &[usize],
        dist: Distribution,
        seed: u64,
    ) -> Result<Output<Storage<T>>, ShapeError>
    where
        T: Float,
    {
        let data = match dist {
            Distribution::Uniform => uniform(dims, seed)?,
            Distribution::Normal => normal(dims, seed)?,
        };
        Ok(whole(data, dims))
    }
}
