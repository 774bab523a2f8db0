//! Constructors: from a buffer, filled, ranges, and seeded random tensors.
//!
//! Each comes in two forms: one for shapes whose every size is static
//! ([`FixedShape`]), which cannot fail on shape grounds, and a `try_*` form
//! taking run-time sizes, which are checked against the shape type.
//!
//! ```
//! use shaped::{DynRank, Shape, Tensor};
//! let a = Tensor::<f64, Shape![2, 2]>::full(7.0);
//! let b = Tensor::<f64, Shape![_, 2]>::try_zeros(&[3, 2]).unwrap();
//! let c = Tensor::<f64, DynRank>::try_from_vec(vec![1., 2., 3.], &[3]).unwrap();
//! assert_eq!((a.numel(), b.numel(), c.numel()), (4, 6, 3));
//! ```

use crate::backend::cpu::vec_from_fn;
use crate::element::{Element, Float, Numeric};
use crate::shape::OrPanic;
use crate::shape::{Dyn, FixedShape, Shape, ShapeError, checked_numel};

use super::Tensor;

impl<T: Element, S: Shape> Tensor<T, S> {
    /// A tensor over `data`, laid out row-major, with sizes `dims`.
    ///
    /// # Errors
    /// When `dims` does not fit `S`, or `data.len()` is not the number of
    /// elements of `dims` (PyTorch's "shape '[2, 3]' is invalid for input of
    /// size 5").
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<i32, Shape![_, 3]>::try_from_vec(vec![1, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    /// assert_eq!(t.dims(), &[2, 3]);
    /// let e = Tensor::<i32, Shape![_, 3]>::try_from_vec(vec![1, 2, 3, 4, 5], &[2, 3]).unwrap_err();
    /// assert_eq!(e.to_string(), "shape '[2, 3]' is invalid for input of size 5");
    /// ```
    pub fn try_from_vec(data: Vec<T>, dims: &[usize]) -> Result<Self, ShapeError> {
        let d = S::check_dims(dims)?;
        if checked_numel(dims)? != data.len() {
            return Err(ShapeError::Numel {
                shape: dims.to_vec(),
                numel: data.len(),
            });
        }
        Ok(Self::from_parts(data, d))
    }

    /// A tensor of sizes `dims` filled with `value`.
    ///
    /// # Errors
    /// When `dims` does not fit `S`.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let t = Tensor::<u8, DynRank>::try_full(&[2, 2], 9).unwrap();
    /// assert_eq!(t.to_vec(), vec![9; 4]);
    /// ```
    pub fn try_full(dims: &[usize], value: T) -> Result<Self, ShapeError> {
        let d = S::check_dims(dims)?;
        Ok(Self::from_parts(
            vec_from_fn(checked_numel(dims)?, |_| value),
            d,
        ))
    }

    /// A tensor of sizes `dims` filled with `T::default()` (zero, or `false`).
    ///
    /// # Errors
    /// When `dims` does not fit `S`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![_]>::try_zeros(&[3]).unwrap();
    /// assert_eq!(t.to_vec(), vec![0.0; 3]);
    /// ```
    pub fn try_zeros(dims: &[usize]) -> Result<Self, ShapeError> {
        Self::try_full(dims, T::default())
    }

    /// A 0-d tensor holding `value`, as `torch.tensor(value)`.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let t = Tensor::<f32, DynRank>::scalar(2.5);
    /// assert_eq!(t.dims(), &[] as &[usize]);
    /// ```
    pub fn scalar(value: T) -> Self {
        Self::try_full(&[], value).expect("a shape of static rank > 0 has no scalar")
    }
}

impl<T: Numeric, S: Shape> Tensor<T, S> {
    /// A tensor of sizes `dims` filled with ones.
    ///
    /// # Errors
    /// When `dims` does not fit `S`.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// assert_eq!(Tensor::<i64, DynRank>::try_ones(&[2]).unwrap().to_vec(), vec![1, 1]);
    /// ```
    pub fn try_ones(dims: &[usize]) -> Result<Self, ShapeError> {
        Self::try_full(dims, T::one())
    }
}

impl<T: Float, S: Shape> Tensor<T, S> {
    /// Uniform samples in `[0, 1)` from a seeded generator (SplitMix64):
    /// the same seed gives the same tensor on every machine.
    ///
    /// # Errors
    /// When `dims` does not fit `S`.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let t = Tensor::<f32, DynRank>::try_rand(&[100], 7).unwrap();
    /// assert!(t.to_vec().iter().all(|&x| (0.0..1.0).contains(&x)));
    /// ```
    pub fn try_rand(dims: &[usize], seed: u64) -> Result<Self, ShapeError> {
        let d = S::check_dims(dims)?;
        let mut rng = SplitMix64(seed);
        // Rounding to f32 can carry a value just below 1 up to 1: clamp it.
        let below_one = T::one() - T::epsilon() / (T::one() + T::one());
        let data = vec_from_fn(checked_numel(dims)?, |_| {
            T::from_f64(rng.uniform()).min(below_one)
        });
        Ok(Self::from_parts(data, d))
    }

    /// Standard normal samples from a seeded generator (Box-Muller over
    /// SplitMix64).
    ///
    /// # Errors
    /// When `dims` does not fit `S`.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let t = Tensor::<f64, DynRank>::try_randn(&[10_000], 1).unwrap();
    /// let mean = t.to_vec().iter().sum::<f64>() / 10_000.0;
    /// assert!(mean.abs() < 0.05);
    /// ```
    pub fn try_randn(dims: &[usize], seed: u64) -> Result<Self, ShapeError> {
        let d = S::check_dims(dims)?;
        let mut rng = SplitMix64(seed);
        let data = vec_from_fn(checked_numel(dims)?, |_| T::from_f64(rng.normal()));
        Ok(Self::from_parts(data, d))
    }
}

impl<T: Element, S: FixedShape> Tensor<T, S> {
    /// A tensor over `data`, laid out row-major.
    ///
    /// # Panics
    /// When `data.len()` is not the shape's number of elements; see
    /// [`Tensor::try_from_vec`] for the fallible form.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
    /// assert_eq!(t.to_vec(), vec![1., 2., 3., 4.]);
    /// ```
    #[track_caller]
    pub fn from_vec(data: Vec<T>) -> Self {
        let dims = S::static_sizes().expect("a fixed shape has static sizes");
        Self::try_from_vec(data, dims.as_ref()).or_panic()
    }

    /// A tensor filled with `value`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<bool, Shape![2]>::full(true).to_vec(), vec![true, true]);
    /// ```
    pub fn full(value: T) -> Self {
        let dims = S::static_sizes().expect("a fixed shape has static sizes");
        Self::from_parts(vec_from_fn(S::NUMEL, |_| value), dims)
    }

    /// A tensor filled with `T::default()` (zero, or `false`).
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<i32, Shape![3]>::zeros().to_vec(), vec![0, 0, 0]);
    /// ```
    pub fn zeros() -> Self {
        Self::full(T::default())
    }
}

impl<T: Numeric, S: FixedShape> Tensor<T, S> {
    /// A tensor filled with ones.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// assert_eq!(Tensor::<f64, Shape![2]>::ones().to_vec(), vec![1.0, 1.0]);
    /// ```
    pub fn ones() -> Self {
        Self::full(T::one())
    }
}

impl<T: Float, S: FixedShape> Tensor<T, S> {
    /// Seeded uniform samples in `[0, 1)`; see [`Tensor::try_rand`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f32, Shape![2, 3]>::rand(42);
    /// assert_eq!(a.to_vec(), Tensor::<f32, Shape![2, 3]>::rand(42).to_vec());
    /// ```
    pub fn rand(seed: u64) -> Self {
        let dims = S::static_sizes().expect("a fixed shape has static sizes");
        Self::try_rand(dims.as_ref(), seed).expect("static sizes fit their shape")
    }

    /// Seeded standard normal samples; see [`Tensor::try_randn`].
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let a = Tensor::<f64, Shape![4]>::randn(3);
    /// assert_eq!(a.numel(), 4);
    /// ```
    pub fn randn(seed: u64) -> Self {
        let dims = S::static_sizes().expect("a fixed shape has static sizes");
        Self::try_randn(dims.as_ref(), seed).expect("static sizes fit their shape")
    }
}

impl<T: Numeric> Tensor<T, (Dyn,)> {
    /// `start, start + step, ...` up to but excluding `end`, as `torch.arange`.
    ///
    /// # Errors
    /// When `step` is zero or points away from `end`.
    ///
    /// ```
    /// use shaped::Tensor;
    /// assert_eq!(Tensor::<i64, _>::arange(0, 5, 2).unwrap().to_vec(), vec![0, 2, 4]);
    /// assert_eq!(Tensor::<f32, _>::arange(1.0, 2.0, 0.25).unwrap().to_vec(), vec![1.0, 1.25, 1.5, 1.75]);
    /// ```
    pub fn arange(start: T, end: T, step: T) -> Result<Self, ShapeError> {
        let (s, e, st) = (start.to_f64(), end.to_f64(), step.to_f64());
        if st == 0.0 {
            return Err(ShapeError::Invalid("step must be nonzero".into()));
        }
        if (st > 0.0 && e < s) || (st < 0.0 && e > s) {
            return Err(ShapeError::Invalid(
                "upper bound and larger bound inconsistent with step sign".into(),
            ));
        }
        let n = ((e - s) / st).ceil().max(0.0) as usize;
        let data = (0..n).map(|i| T::from_f64(s + i as f64 * st)).collect();
        Self::try_from_vec(data, &[n])
    }
}

impl<T: Float> Tensor<T, (Dyn,)> {
    /// `steps` evenly spaced values from `start` to `end` inclusive, as
    /// `torch.linspace` (computed from both ends, so `end` is exact; one
    /// step gives `start`).
    ///
    /// ```
    /// use shaped::Tensor;
    /// assert_eq!(Tensor::<f64, _>::linspace(0.0, 1.0, 5).to_vec(), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    /// assert_eq!(Tensor::<f64, _>::linspace(3.0, 7.0, 1).to_vec(), vec![3.0]);
    /// ```
    pub fn linspace(start: T, end: T, steps: usize) -> Self {
        let (s, e) = (start.to_f64(), end.to_f64());
        let step = if steps > 1 {
            (e - s) / (steps - 1) as f64
        } else {
            0.0
        };
        let data = (0..steps)
            .map(|i| {
                // `torch.linspace` fills the first half from `start` and the
                // rest from `end`; a single step is `start`.
                let v = if i < steps / 2 || steps == 1 {
                    s + step * i as f64
                } else {
                    e - step * (steps - 1 - i) as f64
                };
                T::from_f64(v)
            })
            .collect();
        Self::try_from_vec(data, &[steps]).expect("a 1-d shape fits (Dyn,)")
    }
}

/// SplitMix64: a small, fast, well-mixed generator; good enough for test data
/// and initialisation, not for cryptography.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    fn uniform(&mut self) -> f64 {
        (self.next() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    fn normal(&mut self) -> f64 {
        let u1 = 1.0 - self.uniform();
        let u2 = self.uniform();
        (-2.0 * u1.ln()).sqrt() * (2.0 * core::f64::consts::PI * u2).cos()
    }
}
