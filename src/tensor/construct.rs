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

use crate::backend::cpu::fill as random;
use crate::backend::cpu::{storage_overflow, try_vec_from_fn, vec_from_fn};
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
    /// When `dims` does not fit `S` ([`ShapeError::TooLarge`] when their
    /// element count exceeds `isize::MAX`); PyTorch's "Storage size
    /// calculation overflowed with sizes=[..]" when the byte count does not
    /// fit in `isize`, and its "... you tried to allocate N bytes ..." when
    /// the allocator refuses the buffer.
    ///
    /// ```
    /// use shaped::{DynRank, Tensor};
    /// let t = Tensor::<u8, DynRank>::try_full(&[2, 2], 9).unwrap();
    /// assert_eq!(t.to_vec(), vec![9; 4]);
    /// ```
    pub fn try_full(dims: &[usize], value: T) -> Result<Self, ShapeError> {
        let d = check_new::<S>(dims)?;
        Ok(Self::from_parts(try_vec_from_fn(dims, |_| value)?, d))
    }

    /// A tensor of sizes `dims` filled with `T::default()` (zero, or `false`).
    ///
    /// # Errors
    /// As [`Tensor::try_full`]: a request too large for the machine is an
    /// error, never an abort.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let t = Tensor::<f32, Shape![_]>::try_zeros(&[3]).unwrap();
    /// assert_eq!(t.to_vec(), vec![0.0; 3]);
    /// let e = Tensor::<f32, Shape![_]>::try_zeros(&[1 << 62]).unwrap_err();
    /// assert_eq!(e.to_string(), "Storage size calculation overflowed with sizes=[4611686018427387904]");
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
        let d = check_new::<S>(dims)?;
        Ok(Self::from_parts(random::uniform(dims, seed)?, d))
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
        let d = check_new::<S>(dims)?;
        Ok(Self::from_parts(random::normal(dims, seed)?, d))
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
    /// PyTorch's errors, in its order: a zero step ("step must be nonzero"),
    /// a step that is not finite, a bound that is not finite ("unsupported
    /// range: 0 -> inf"), a step pointing away from `end`, a length past
    /// `i64::MAX` ("invalid size, possible overflow?"), and a buffer too
    /// large to allocate (see [`Tensor::try_full`]).
    ///
    /// ```
    /// use shaped::Tensor;
    /// assert_eq!(Tensor::<i64, _>::arange(0, 5, 2).unwrap().to_vec(), vec![0, 2, 4]);
    /// assert_eq!(Tensor::<f32, _>::arange(1.0, 2.0, 0.25).unwrap().to_vec(), vec![1.0, 1.25, 1.5, 1.75]);
    /// let e = Tensor::<f64, _>::arange(0.0, f64::INFINITY, 1.0).unwrap_err();
    /// assert_eq!(e.to_string(), "unsupported range: 0 -> inf");
    /// ```
    pub fn arange(start: T, end: T, step: T) -> Result<Self, ShapeError> {
        let (s, st) = (start.to_f64(), step.to_f64());
        let n = arange_len(start, end, step)?;
        let data = try_vec_from_fn(&[n], |i| T::from_f64(s + i as f64 * st))?;
        Self::try_from_vec(data, &[n])
    }
}

/// The length of `arange(start, end, step)`, after PyTorch's checks of
/// its arguments (shared by every device's `arange`).
pub(crate) fn arange_len<T: Numeric>(start: T, end: T, step: T) -> Result<usize, ShapeError> {
    let (s, e, st) = (start.to_f64(), end.to_f64(), step.to_f64());
    if st == 0.0 {
        return Err(ShapeError::Invalid("step must be nonzero".into()));
    }
    if !st.is_finite() {
        return Err(ShapeError::Invalid(format!(
            "step must be finite but got {}",
            format_g(st)
        )));
    }
    if !s.is_finite() || !e.is_finite() {
        return Err(ShapeError::Invalid(format!(
            "unsupported range: {} -> {}",
            format_g(s),
            format_g(e)
        )));
    }
    if (st > 0.0 && e < s) || (st < 0.0 && e > s) {
        return Err(ShapeError::Invalid(
            "upper bound and lower bound inconsistent with step sign".into(),
        ));
    }
    let len = ((e - s) / st).ceil();
    if !(0.0..=i64::MAX as f64).contains(&len) {
        return Err(ShapeError::Invalid(
            "invalid size, possible overflow?".into(),
        ));
    }
    Ok(len as usize)
}

/// `x` as C++'s `ostream` prints a double by default (`%g`, 6 significant
/// digits), as PyTorch's messages show numbers: `0`, `0.5`, `1e+20`, `inf`,
/// `nan`.
fn format_g(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.into();
    }
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    let strip = |m: &str| -> String {
        if m.contains('.') {
            m.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            m.to_string()
        }
    };
    // Rounded to 6 significant digits first: the exponent after rounding
    // picks the notation, as `%g` does.
    let sci = format!("{x:.5e}");
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exp: i32 = exp.parse().expect("`{:e}`'s exponent is an integer");
    if !(-4..6).contains(&exp) {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", strip(mantissa), exp.abs())
    } else {
        strip(&format!("{x:.*}", (5 - exp) as usize))
    }
}

impl<T: Float> Tensor<T, (Dyn,)> {
    /// `steps` evenly spaced values from `start` to `end` inclusive, as
    /// `torch.linspace` (computed from both ends, so `end` is exact; one
    /// step gives `start`).
    ///
    /// # Panics
    /// With the message of [`Tensor::try_linspace`]'s error.
    ///
    /// ```
    /// use shaped::Tensor;
    /// assert_eq!(Tensor::<f64, _>::linspace(0.0, 1.0, 5).to_vec(), vec![0.0, 0.25, 0.5, 0.75, 1.0]);
    /// assert_eq!(Tensor::<f64, _>::linspace(3.0, 7.0, 1).to_vec(), vec![3.0]);
    /// ```
    #[track_caller]
    pub fn linspace(start: T, end: T, steps: usize) -> Self {
        Self::try_linspace(start, end, steps).or_panic()
    }

    /// The fallible form of [`Tensor::linspace`].
    ///
    /// # Errors
    /// When the buffer's byte count does not fit in `isize` or the allocator
    /// refuses it (PyTorch's messages, see [`Tensor::try_full`]).
    ///
    /// ```
    /// use shaped::Tensor;
    /// assert_eq!(Tensor::<f32, _>::try_linspace(0.0, 1.0, 3).unwrap().to_vec(), vec![0.0, 0.5, 1.0]);
    /// let e = Tensor::<f32, _>::try_linspace(0.0, 1.0, usize::MAX).unwrap_err();
    /// assert_eq!(e.to_string(), format!("Storage size calculation overflowed with sizes=[{}]", usize::MAX));
    /// ```
    pub fn try_linspace(start: T, end: T, steps: usize) -> Result<Self, ShapeError> {
        let (s, e) = (start.to_f64(), end.to_f64());
        let step = if steps > 1 {
            (e - s) / (steps - 1) as f64
        } else {
            0.0
        };
        let data = try_vec_from_fn(&[steps], |i| {
            // `torch.linspace` fills the first half from `start` and the
            // rest from `end`; a single step is `start`.
            let v = if i < steps / 2 || steps == 1 {
                s + step * i as f64
            } else {
                e - step * (steps - 1 - i) as f64
            };
            T::from_f64(v)
        })?;
        Self::try_from_vec(data, &[steps])
    }
}

/// `S::check_dims` for a tensor about to be allocated: an element count past
/// `isize::MAX` is PyTorch's allocation error ("Storage size calculation
/// overflowed with sizes=[..]"), as `torch.empty` reports it, rather than the
/// view's "numel: integer multiplication overflow".
pub(crate) fn check_new<S: Shape>(dims: &[usize]) -> Result<S::Dims, ShapeError> {
    S::check_dims(dims).map_err(|e| match e {
        ShapeError::TooLarge { shape } => storage_overflow(&shape),
        e => e,
    })
}

#[cfg(test)]
mod tests {
    use super::format_g;

    /// Against C's `printf("%g")` (what `std::ostream` prints by default).
    #[test]
    fn format_g_matches_printf() {
        for (x, want) in [
            (0.0, "0"),
            (0.5, "0.5"),
            (5.0, "5"),
            (1e20, "1e+20"),
            (-1.5e-7, "-1.5e-07"),
            (123456.0, "123456"),
            (1234567.0, "1.23457e+06"),
            (0.0001, "0.0001"),
            (f64::NAN, "nan"),
            (f64::NEG_INFINITY, "-inf"),
        ] {
            assert_eq!(format_g(x), want, "{x}");
        }
    }
}
