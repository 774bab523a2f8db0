//! PyTorch's default initialisations, from a seed: the same seed gives the
//! same values on every machine (the crate's SplitMix64 generator, so the
//! values differ from PyTorch's own generator; the distributions are the
//! same).

use crate::Tensor;
use crate::element::Float;
use crate::shape::{Shape, ShapeError};

/// Samples from `U(-bound, bound)` of sizes `dims`, as `torch.nn.init.uniform_`.
///
/// # Errors
/// When `dims` does not fit `S`.
///
/// ```
/// use shaped::nn::init::uniform;
/// use shaped::Shape;
/// let t = uniform::<f32, Shape![100]>(&[100], 0.5, 3).unwrap();
/// assert!(t.to_vec().iter().all(|x| x.abs() <= 0.5));
/// ```
pub fn uniform<T: Float, S: Shape>(
    dims: &[usize],
    bound: T,
    seed: u64,
) -> Result<Tensor<T, S>, ShapeError> {
    let two = T::one() + T::one();
    Ok(Tensor::<T, S>::try_rand(dims, seed)?.map(move |u| (u * two - T::one()) * bound))
}

/// The bound of `torch.nn.init.kaiming_uniform_(w, a)` for a weight with
/// `fan_in` inputs (leaky-ReLU gain): `√(6 / ((1 + a²) · fan_in))`.
/// With `a = √5`, PyTorch's default for `Linear`, it is `1/√fan_in`.
///
/// ```
/// use shaped::nn::init::kaiming_uniform_bound;
/// assert!((kaiming_uniform_bound(64, 5f64.sqrt()) - 0.125).abs() < 1e-12);
/// ```
pub fn kaiming_uniform_bound(fan_in: usize, a: f64) -> f64 {
    (6.0 / ((1.0 + a * a) * fan_in as f64)).sqrt()
}

/// A weight of sizes `dims` whose fan-in is the product of all sizes but
/// the first (PyTorch's `_calculate_fan_in_and_fan_out`), drawn as
/// `kaiming_uniform_(w, a)`.
///
/// # Errors
/// When `dims` does not fit `S`.
///
/// ```
/// use shaped::nn::init::kaiming_uniform;
/// use shaped::Shape;
/// let w = kaiming_uniform::<f64, Shape![3, 16]>(&[3, 16], 5f64.sqrt(), 1).unwrap();
/// assert!(w.to_vec().iter().all(|x| x.abs() <= 0.25));
/// ```
pub fn kaiming_uniform<T: Float, S: Shape>(
    dims: &[usize],
    a: f64,
    seed: u64,
) -> Result<Tensor<T, S>, ShapeError> {
    let fan_in = dims.iter().skip(1).product::<usize>().max(1);
    uniform(dims, T::from_f64(kaiming_uniform_bound(fan_in, a)), seed)
}

/// Two seeds drawn from one (SplitMix64 steps), for the weight and the bias
/// of a layer made from a single seed.
pub(crate) fn split_seed(seed: u64) -> (u64, u64) {
    let mix = |mut z: u64| {
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    };
    let a = mix(seed.wrapping_add(0x9E37_79B9_7F4A_7C15));
    (a, mix(a.wrapping_add(0x9E37_79B9_7F4A_7C15)))
}
