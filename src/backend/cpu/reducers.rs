//! The scalar side of each reduction: its accumulator, how elements fold
//! into it, how two partial accumulators combine, and the final value. The
//! loops that drive them are in `backend/cpu/reduce.rs`.
//!
//! Sums (and the sums inside `mean` and `norm`) are pairwise: a run is summed
//! in blocks of [`BLOCK`] elements with [`LANES`] independent accumulators
//! (which the compiler vectorises), and blocks are added as a binary tree, as
//! NumPy's `pairwise_sum` does; the rounding error then grows with `log n`.

use crate::backend::cpu::{Reducer, Run};
use crate::backend::op::scalar;
use crate::element::{Element, Float, Numeric};

/// Elements summed directly before a run is halved.
pub(crate) const BLOCK: usize = 2048;
/// Independent accumulators in a block.
pub(crate) const LANES: usize = 32;

/// The pairwise sum of `f(x)` over a run.
#[inline]
fn pairwise<T: Numeric>(run: Run<'_, T>, f: &impl Fn(T) -> T) -> T {
    let n = run.len();
    if n > BLOCK {
        let half = (n / 2).div_ceil(LANES) * LANES;
        return pairwise(run.sub(0, half), f).wadd(pairwise(run.sub(half, n), f));
    }
    let mut lanes = [T::zero(); LANES];
    let mut tail = T::zero();
    match run.as_slice() {
        Some(s) => {
            let chunks = s.chunks_exact(LANES);
            for &x in chunks.remainder() {
                tail = tail.wadd(f(x));
            }
            for c in chunks {
                let c: &[T; LANES] = c.try_into().expect("chunks_exact gives LANES elements");
                for l in 0..LANES {
                    lanes[l] = lanes[l].wadd(f(c[l]));
                }
            }
        }
        None => {
            for k in 0..n {
                lanes[k % LANES] = lanes[k % LANES].wadd(f(run.get(k)));
            }
        }
    }
    let mut w = LANES;
    while w > 1 {
        w /= 2;
        for l in 0..w {
            lanes[l] = lanes[l].wadd(lanes[l + w]);
        }
    }
    lanes[0].wadd(tail)
}

/// Folds a run one element at a time (the default for non-sums).
#[inline(always)]
fn fold_seq<T: Copy, R: Reducer<T>>(
    r: &R,
    acc: R::Acc,
    run: Run<'_, T>,
    index: usize,
    step: usize,
) -> R::Acc {
    let mut acc = acc;
    for k in 0..run.len() {
        acc = r.fold(acc, run.get(k), index + k * step);
    }
    acc
}

/// `Σ x`, then `finish`ed by a scale: 1 for `sum`, `1/n` for `mean`.
pub(crate) struct Sum<T> {
    /// The divisor of the sum (`None`: none).
    pub divisor: Option<T>,
}

impl<T: Numeric> Reducer<T> for Sum<T> {
    type Acc = T;
    type Out = T;
    fn init(&self) -> T {
        T::zero()
    }
    #[inline(always)]
    fn fold(&self, acc: T, x: T, _: usize) -> T {
        acc.wadd(x)
    }
    fn combine(&self, a: T, b: T) -> T {
        a.wadd(b)
    }
    fn finish(&self, acc: T) -> T {
        match self.divisor {
            Some(n) => acc / n,
            None => acc,
        }
    }
    #[inline]
    fn fold_run(&self, acc: T, run: Run<'_, T>, _: usize, _: usize) -> T {
        acc.wadd(pairwise(run, &|x| x))
    }
    #[inline]
    fn fold_rows4(&self, acc: &mut [T], rows: [Run<'_, T>; 4], index: [usize; 4]) {
        match rows.each_ref().map(Run::as_slice) {
            [Some(a), Some(b), Some(c), Some(d)] => {
                let n = acc.len();
                let (a, b, c, d) = (&a[..n], &b[..n], &c[..n], &d[..n]);
                for j in 0..n {
                    acc[j] = acc[j].wadd(a[j].wadd(b[j]).wadd(c[j].wadd(d[j])));
                }
            }
            _ => {
                for (row, i) in rows.into_iter().zip(index) {
                    self.fold_row(acc, row, i);
                }
            }
        }
    }
}

/// `Π x`.
pub(crate) struct Prod;

impl<T: Numeric> Reducer<T> for Prod {
    type Acc = T;
    type Out = T;
    fn init(&self) -> T {
        T::one()
    }
    #[inline(always)]
    fn fold(&self, acc: T, x: T, _: usize) -> T {
        acc.wmul(x)
    }
    fn combine(&self, a: T, b: T) -> T {
        a.wmul(b)
    }
    fn finish(&self, acc: T) -> T {
        acc
    }
}

/// The lowest value of `T`: `-inf` for floats, the minimum for integers.
fn lowest<T: Numeric>() -> T {
    if T::IS_FLOAT {
        T::from_f64(f64::NEG_INFINITY)
    } else {
        T::min_value()
    }
}

/// The highest value of `T`.
fn highest<T: Numeric>() -> T {
    if T::IS_FLOAT {
        T::from_f64(f64::INFINITY)
    } else {
        T::max_value()
    }
}

/// Whether `x` is NaN.
#[inline(always)]
#[allow(clippy::eq_op)]
fn is_nan<T: PartialEq>(x: T) -> bool {
    x != x
}

/// The largest (`MAX`) or smallest value; NaN wins, as in PyTorch.
pub(crate) struct Extreme<const MAX: bool>;

impl<T: Numeric, const MAX: bool> Reducer<T> for Extreme<MAX> {
    type Acc = T;
    type Out = T;
    fn init(&self) -> T {
        if MAX { lowest() } else { highest() }
    }
    #[inline(always)]
    fn fold(&self, acc: T, x: T, _: usize) -> T {
        if MAX {
            scalar::maximum(acc, x)
        } else {
            scalar::minimum(acc, x)
        }
    }
    fn combine(&self, a: T, b: T) -> T {
        self.fold(a, b, 0)
    }
    fn finish(&self, acc: T) -> T {
        acc
    }
}

/// The largest (`MAX`) or smallest value and its index: the first one among
/// equals, the first NaN if any.
pub(crate) struct ArgExtreme<const MAX: bool>;

impl<const MAX: bool> ArgExtreme<MAX> {
    /// Whether candidate `later` replaces `earlier`: a NaN beats every
    /// number, a better value beats a worse one, and among equals (or two
    /// NaNs) the lower index wins. The rule does not depend on the order
    /// the candidates come in: a view's elements are visited in memory
    /// order, which for a transposed view is not the index order (with ties
    /// decided by arrival, `argmax` of a transposed view reported a later
    /// tie than PyTorch's first one).
    #[inline(always)]
    fn wins<T: Numeric>(earlier: (T, usize), later: (T, usize)) -> bool {
        if earlier.1 == usize::MAX {
            return true;
        }
        let (en, ln) = (is_nan(earlier.0), is_nan(later.0));
        if en || ln {
            return ln && (!en || later.1 < earlier.1);
        }
        let better = if MAX {
            later.0 > earlier.0
        } else {
            later.0 < earlier.0
        };
        better || (later.0 == earlier.0 && later.1 < earlier.1)
    }
}

impl<T: Numeric, const MAX: bool> Reducer<T> for ArgExtreme<MAX> {
    /// The value and its index (`usize::MAX`: none yet).
    type Acc = (T, usize);
    type Out = (T, i64);
    fn init(&self) -> (T, usize) {
        (T::zero(), usize::MAX)
    }
    #[inline(always)]
    fn fold(&self, acc: (T, usize), x: T, index: usize) -> (T, usize) {
        if Self::wins(acc, (x, index)) {
            (x, index)
        } else {
            acc
        }
    }
    fn combine(&self, a: (T, usize), b: (T, usize)) -> (T, usize) {
        if b.1 != usize::MAX && Self::wins(a, b) {
            b
        } else {
            a
        }
    }
    fn finish(&self, acc: (T, usize)) -> (T, i64) {
        (acc.0, acc.1 as i64)
    }
}

/// Variance (or its square root) by Welford's update in `f64`, combined
/// with Chan's formula; `correction` is subtracted from the count.
pub(crate) struct Moments {
    /// `N - correction` divides the sum of squared deviations.
    pub correction: f64,
    /// Whether to return the standard deviation.
    pub sqrt: bool,
}

impl<T: Float> Reducer<T> for Moments {
    /// Count, mean, sum of squared deviations.
    type Acc = (f64, f64, f64);
    type Out = T;
    fn init(&self) -> Self::Acc {
        (0.0, 0.0, 0.0)
    }
    #[inline(always)]
    fn fold(&self, (n, mean, m2): Self::Acc, x: T, _: usize) -> Self::Acc {
        let x = x.to_f64();
        let n = n + 1.0;
        let d = x - mean;
        let mean = mean + d / n;
        (n, mean, m2 + d * (x - mean))
    }
    fn combine(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc {
        if a.0 == 0.0 {
            return b;
        }
        if b.0 == 0.0 {
            return a;
        }
        let n = a.0 + b.0;
        let d = b.1 - a.1;
        (n, a.1 + d * b.0 / n, a.2 + b.2 + d * d * a.0 * b.0 / n)
    }
    fn finish(&self, (n, _, m2): Self::Acc) -> T {
        let var = m2 / (n - self.correction).max(0.0);
        T::from_f64(if self.sqrt { var.sqrt() } else { var })
    }

    /// A contiguous run by blocks of [`MOMENT_BLOCK`] elements, each by two
    /// passes (its mean, then its squared deviations from it) in
    /// [`MOMENT_LANES`] independent `f64` lanes, combined into `acc` by
    /// Chan's formula. Welford's update divides once per element along one
    /// dependent chain: a batch norm's statistics over `(8, 64, 56, 56)`
    /// `f32` took about 5 ms that way on 2 threads (AMD EPYC Zen 5), where
    /// the two passes run at the speed of the loads.
    #[inline(always)]
    fn fold_run(&self, acc: Self::Acc, run: Run<'_, T>, index: usize, step: usize) -> Self::Acc {
        match run.as_slice() {
            Some(s) => s.chunks(MOMENT_BLOCK).fold(acc, |acc, block| {
                Reducer::<T>::combine(self, acc, moments(block))
            }),
            None => fold_seq(self, acc, run, index, step),
        }
    }
}

/// Elements of a run whose two passes of [`Moments`] stay in the first
/// cache level.
const MOMENT_BLOCK: usize = 1024;
/// Independent accumulators of each of [`Moments`]' passes.
const MOMENT_LANES: usize = 8;

/// Count, mean and sum of squared deviations of `block`, in `f64`, by two
/// passes.
#[inline(always)]
fn moments<T: Float>(block: &[T]) -> (f64, f64, f64) {
    let n = block.len() as f64;
    let mean = lane_sum(block, |x| x) / n;
    (n, mean, lane_sum(block, |x| (x - mean) * (x - mean)))
}

/// `Σ f(x)` over `block` in `f64`, in [`MOMENT_LANES`] lanes.
#[inline(always)]
fn lane_sum<T: Float>(block: &[T], f: impl Fn(f64) -> f64) -> f64 {
    let mut lanes = [0f64; MOMENT_LANES];
    let chunks = block.chunks_exact(MOMENT_LANES);
    let tail: f64 = chunks.remainder().iter().map(|&x| f(x.to_f64())).sum();
    for c in chunks {
        for k in 0..MOMENT_LANES {
            lanes[k] += f(c[k].to_f64());
        }
    }
    lanes.iter().sum::<f64>() + tail
}

/// Which p-norm.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum NormKind {
    /// The number of nonzero elements.
    Zero,
    /// `Σ |x|`.
    One,
    /// `√Σ x²`.
    Two,
    /// `max |x|`.
    Inf,
    /// `min |x|`.
    NegInf,
    /// `(Σ |x|^p)^(1/p)`.
    P(f64),
}

impl NormKind {
    /// The kind for `p`.
    pub(crate) fn of(p: f64) -> Self {
        if p == 0.0 {
            NormKind::Zero
        } else if p == 1.0 {
            NormKind::One
        } else if p == 2.0 {
            NormKind::Two
        } else if p == f64::INFINITY {
            NormKind::Inf
        } else if p == f64::NEG_INFINITY {
            NormKind::NegInf
        } else {
            NormKind::P(p)
        }
    }
}

/// The p-norm, as `torch.linalg.vector_norm`.
pub(crate) struct Norm(pub NormKind);

impl Norm {
    /// The summand for an element (sum kinds only).
    #[inline(always)]
    fn term<T: Float>(&self, x: T) -> T {
        match self.0 {
            NormKind::Zero => {
                if x == T::zero() {
                    T::zero()
                } else {
                    T::one()
                }
            }
            NormKind::One => x.abs(),
            NormKind::Two => x * x,
            NormKind::P(p) => x.abs().powf(T::from_f64(p)),
            NormKind::Inf | NormKind::NegInf => x.abs(),
        }
    }
}

impl<T: Float> Reducer<T> for Norm {
    type Acc = T;
    type Out = T;
    fn init(&self) -> T {
        match self.0 {
            NormKind::NegInf => T::infinity(),
            _ => T::zero(),
        }
    }
    #[inline(always)]
    fn fold(&self, acc: T, x: T, _: usize) -> T {
        match self.0 {
            NormKind::Inf => scalar::maximum(acc, x.abs()),
            NormKind::NegInf => scalar::minimum(acc, x.abs()),
            _ => acc + self.term(x),
        }
    }
    fn combine(&self, a: T, b: T) -> T {
        match self.0 {
            NormKind::Inf => scalar::maximum(a, b),
            NormKind::NegInf => scalar::minimum(a, b),
            _ => a + b,
        }
    }
    fn finish(&self, acc: T) -> T {
        match self.0 {
            NormKind::Two => acc.sqrt(),
            NormKind::P(p) => acc.powf(T::from_f64(1.0 / p)),
            _ => acc,
        }
    }
    #[inline]
    fn fold_run(&self, acc: T, run: Run<'_, T>, index: usize, step: usize) -> T {
        match self.0 {
            NormKind::Inf | NormKind::NegInf => fold_seq(self, acc, run, index, step),
            _ => acc + pairwise(run, &|x| self.term(x)),
        }
    }
}

/// `log Σ exp x`, in one pass: the running maximum and the sum of
/// `exp(x - max)` (in `f64`), rescaled when the maximum grows.
pub(crate) struct LogSumExp;

impl<T: Float> Reducer<T> for LogSumExp {
    type Acc = (T, f64);
    type Out = T;
    fn init(&self) -> (T, f64) {
        (T::neg_infinity(), 0.0)
    }
    #[inline(always)]
    fn fold(&self, (m, s): (T, f64), x: T, _: usize) -> (T, f64) {
        if x.is_nan() || m.is_nan() {
            (T::nan(), f64::NAN)
        } else if x == T::neg_infinity() {
            (m, s)
        } else if x > m {
            (x, s * (m - x).to_f64().exp() + 1.0)
        } else if x == m {
            (m, s + 1.0)
        } else {
            (m, s + (x - m).exp().to_f64())
        }
    }
    fn combine(&self, a: (T, f64), b: (T, f64)) -> (T, f64) {
        if a.0.is_nan() || b.0.is_nan() {
            (T::nan(), f64::NAN)
        } else if a.0 == T::neg_infinity() {
            b
        } else if b.0 == T::neg_infinity() {
            a
        } else if a.0 == b.0 {
            (a.0, a.1 + b.1)
        } else {
            let (big, small) = if a.0 > b.0 { (a, b) } else { (b, a) };
            (big.0, big.1 + small.1 * (small.0 - big.0).to_f64().exp())
        }
    }
    fn finish(&self, (m, s): (T, f64)) -> T {
        if m.is_infinite() {
            return m;
        }
        T::from_f64(m.to_f64() + s.ln())
    }
}

/// Whether every (`ALL`) or some element is nonzero.
pub(crate) struct Truth<const ALL: bool>;

impl<T: Element, const ALL: bool> Reducer<T> for Truth<ALL> {
    type Acc = bool;
    type Out = bool;
    fn init(&self) -> bool {
        ALL
    }
    #[inline(always)]
    fn fold(&self, acc: bool, x: T, _: usize) -> bool {
        let nonzero = x != T::default();
        if ALL { acc && nonzero } else { acc || nonzero }
    }
    fn combine(&self, a: bool, b: bool) -> bool {
        if ALL { a && b } else { a || b }
    }
    fn finish(&self, acc: bool) -> bool {
        acc
    }
}

/// The running maximum `m` and `Σ exp(x - m)`, for `softmax`.
pub(crate) struct MaxAndSum;

impl<T: Float> Reducer<T> for MaxAndSum {
    type Acc = (T, f64);
    type Out = (T, T);
    fn init(&self) -> (T, f64) {
        <LogSumExp as Reducer<T>>::init(&LogSumExp)
    }
    #[inline(always)]
    fn fold(&self, acc: (T, f64), x: T, i: usize) -> (T, f64) {
        LogSumExp.fold(acc, x, i)
    }
    fn combine(&self, a: (T, f64), b: (T, f64)) -> (T, f64) {
        LogSumExp.combine(a, b)
    }
    fn finish(&self, (m, s): (T, f64)) -> (T, T) {
        // A slice whose maximum is +inf: PyTorch's sum of `exp(x - max)`
        // includes `exp(inf - inf)`, NaN, so every output of the slice is
        // NaN (`softmax([inf, 1])` is `[nan, nan]`).
        if m == T::infinity() {
            return (m, T::nan());
        }
        (m, T::from_f64(s))
    }
}
