//! `multinomial`: class indices drawn from rows of non-negative weights,
//! as `torch.multinomial(weights, num_samples, replacement)`, from a seeded
//! generator (the crate's SplitMix64, as [`Tensor::try_rand`]): the same
//! seed gives the same draws on every machine and device.
//!
//! - With replacement, each draw is independent: class `i` with
//!   probability `w[i] / sum(w)`.
//! - Without replacement, the draws are those of drawing one class, taking
//!   it out, and drawing again from the rest; done in one pass as PyTorch
//!   does, by the `k` largest of `w[i] / E[i]` with `E[i]` exponential
//!   samples. Once every class of positive weight is drawn, the remaining
//!   draws are the classes of weight zero, lowest index first (PyTorch
//!   gives them in an unspecified order).
//!
//! ```
//! use shaped::{Shape, Tensor};
//! let probs = Tensor::<f32, Shape![2, 3]>::from_vec(vec![0., 1., 0., 0.5, 0., 0.5]);
//! let s: Tensor<i64, Shape![2, _]> = probs.multinomial(4, true, 7);
//! let s = s.to_vec();
//! assert!(s[..4].iter().all(|&i| i == 1));
//! assert!(s[4..].iter().all(|&i| i == 0 || i == 2));
//! ```

use crate::tensor::host;
use core::cmp::Ordering;

use crate::Tensor;
use crate::backend::Backend;
use crate::element::{Float, Numeric};
use crate::shape::{Dyn, OrPanic, SetLastAxis, Shape, ShapeError};
use crate::tensor::SplitMix64;

/// PyTorch's checks of `multinomial`'s arguments that need no values.
fn check_arguments(dims: &[usize], n: usize, replacement: bool) -> Result<(), ShapeError> {
    let err = |m: &str| Err(ShapeError::Invalid(m.into()));
    if !(1..=2).contains(&dims.len()) {
        return err("prob_dist must be 1 or 2 dim");
    }
    if n == 0 {
        return err("cannot sample n_sample <= 0 samples");
    }
    if !replacement && n > dims[dims.len() - 1] {
        return err("cannot sample n_sample > prob_dist.size(-1) samples without replacement");
    }
    Ok(())
}

/// PyTorch's checks of one row's weights.
fn check_row(row: &[f64]) -> Result<(), ShapeError> {
    if row.iter().any(|&w| !w.is_finite() || w < 0.0) {
        return Err(ShapeError::Invalid(
            "probability tensor contains either `inf`, `nan` or element < 0".into(),
        ));
    }
    if row.iter().sum::<f64>() <= 0.0 {
        return Err(ShapeError::Invalid(
            "invalid multinomial distribution (sum of probabilities <= 0)".into(),
        ));
    }
    Ok(())
}

/// `n` independent draws from `row` (checked): the first class whose
/// running sum exceeds a uniform draw scaled by the total, so a class of
/// weight zero is never drawn.
fn with_replacement(row: &[f64], n: usize, rng: &mut SplitMix64, out: &mut Vec<i64>) {
    let cumulative: Vec<f64> = row
        .iter()
        .scan(0.0, |acc, &w| {
            *acc += w;
            Some(*acc)
        })
        .collect();
    let total = cumulative[cumulative.len() - 1];
    for _ in 0..n {
        let u = rng.uniform() * total;
        let i = cumulative.partition_point(|&c| c <= u);
        // `u < total` up to rounding; the last class of positive weight
        // then.
        let i = i.min(row.iter().rposition(|&w| w > 0.0).unwrap_or(0));
        out.push(i as i64);
    }
}

/// `n` distinct draws from `row` (checked, `n <= row.len()`): the `n`
/// largest keys `w / E` (`E` exponential), ties (weight zero) by index.
fn without_replacement(row: &[f64], n: usize, rng: &mut SplitMix64, out: &mut Vec<i64>) {
    let keys: Vec<f64> = row
        .iter()
        .map(|&w| {
            let e = -(1.0 - rng.uniform()).ln();
            // `e` is 0 only for a uniform draw of exactly 0.
            if w == 0.0 {
                0.0
            } else {
                w / e.max(f64::MIN_POSITIVE)
            }
        })
        .collect();
    let mut pos: Vec<usize> = (0..row.len()).collect();
    pos.sort_unstable_by(|&i, &j| {
        keys[j]
            .partial_cmp(&keys[i])
            .unwrap_or(Ordering::Equal)
            .then(i.cmp(&j))
    });
    out.extend(pos[..n].iter().map(|&i| i as i64));
}

/// Draws for every row of `data` (rows of `v` weights), row after row.
fn draw(
    data: &[f64],
    v: usize,
    n: usize,
    replacement: bool,
    seed: u64,
) -> Result<Vec<i64>, ShapeError> {
    let mut rng = SplitMix64(seed);
    // With `v == 0` there is no weight, so no row.
    let mut out = Vec::with_capacity(data.len() / v.max(1) * n);
    for row in data.chunks_exact(v.max(1)) {
        check_row(row)?;
        if replacement {
            with_replacement(row, n, &mut rng, &mut out);
        } else {
            without_replacement(row, n, &mut rng, &mut out);
        }
    }
    Ok(out)
}

impl<T: Float, S: Shape, D: Backend<T> + Backend<i64>> Tensor<T, S, D> {
    /// `num_samples` class indices drawn from each row of weights `(B, V)`
    /// (or the one row `(V,)`), with or without `replacement`, from the
    /// generator seeded with `seed`, as `torch.multinomial`. The weights
    /// need not sum to one. The result has the last axis `Dyn`, of size
    /// `num_samples`: `(B, N)` or `(N,)`.
    ///
    /// # Errors
    /// PyTorch's, in its order: `prob_dist must be 1 or 2 dim`; `cannot
    /// sample n_sample <= 0 samples`; `cannot sample n_sample >
    /// prob_dist.size(-1) samples without replacement`; `probability tensor
    /// contains either `inf`, `nan` or element < 0`; `invalid multinomial
    /// distribution (sum of probabilities <= 0)`; a device error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let w = Tensor::<f64, Shape![4]>::from_vec(vec![1., 2., 3., 4.]);
    /// let s: Tensor<i64, Shape![_]> = w.try_multinomial(4, false, 0).unwrap();
    /// let mut drawn = s.to_vec();
    /// drawn.sort();
    /// assert_eq!(drawn, vec![0, 1, 2, 3]);
    /// let bad = Tensor::<f64, Shape![2]>::from_vec(vec![0.5, -0.1]);
    /// assert_eq!(bad.try_multinomial(1, true, 0).unwrap_err().to_string(),
    ///     "probability tensor contains either `inf`, `nan` or element < 0");
    /// ```
    pub fn try_multinomial(
        &self,
        num_samples: usize,
        replacement: bool,
        seed: u64,
    ) -> Result<Tensor<i64, <S as SetLastAxis<Dyn>>::Output, D>, D::Error>
    where
        S: SetLastAxis<Dyn>,
    {
        check_arguments(self.dims(), num_samples, replacement)?;
        let v = self.dims()[self.rank() - 1];
        let data: Vec<f64> = host::to_host(self)?
            .into_iter()
            .map(Numeric::to_f64)
            .collect();
        let out = draw(&data, v, num_samples, replacement, seed)?;
        let mut dims = self.dims().to_vec();
        dims[self.rank() - 1] = num_samples;
        host::from_host(self, out, &dims)
    }

    /// `num_samples` class indices drawn from each row of weights; see
    /// [`Tensor::try_multinomial`].
    ///
    /// # Panics
    /// With the message of [`Tensor::try_multinomial`]'s error.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// // Next tokens for a batch of 2 from softmax probabilities.
    /// let probs = Tensor::<f32, Shape![2, 5]>::rand(1).softmax(-1);
    /// let next: Tensor<i64, Shape![2, _]> = probs.multinomial(1, true, 42);
    /// assert_eq!(next.dims(), &[2, 1]);
    /// assert!(next.to_vec().iter().all(|&i| (0..5).contains(&i)));
    /// assert_eq!(next.to_vec(), probs.multinomial(1, true, 42).to_vec());
    /// ```
    #[track_caller]
    pub fn multinomial(
        &self,
        num_samples: usize,
        replacement: bool,
        seed: u64,
    ) -> Tensor<i64, <S as SetLastAxis<Dyn>>::Output, D>
    where
        S: SetLastAxis<Dyn>,
    {
        self.try_multinomial(num_samples, replacement, seed)
            .or_panic()
    }
}
