//! The crate's random stream: SplitMix64, which the CPU draws element by
//! element and the CUDA generator kernels reproduce (the `k`-th draw
//! depends only on the seed and `k`), so a seed gives the same samples on
//! every device.

use crate::element::Float;

/// The largest value `rand` gives: rounding to `f32` can carry a draw just
/// below 1 up to 1, so draws are clamped to this.
pub(crate) fn below_one<T: Float>() -> T {
    T::one() - T::epsilon() / (T::one() + T::one())
}

/// SplitMix64: a small, fast, well-mixed generator; good enough for test data
/// and initialisation, not for cryptography. Also drawn by
/// `Tensor::try_multinomial`.
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    pub(crate) fn uniform(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    pub(crate) fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (2.0 * core::f64::consts::PI * u2).cos()
    }
}
