//! `softmax` and `log_softmax` along contiguous rows: the last dimension of
//! a contiguous tensor, where a model takes them. Per row, three passes
//! over memory the row keeps in cache: its maximum `m`, then
//! `s = Σ e^(x - m)` (each `e^(x - m)` kept in the output for `softmax`),
//! then the output (`e^(x - m) / s`, or `x - m - ln s`). Each pass is a
//! loop of constant-length chunks into [`LANES`] accumulators, which the
//! compiler vectorises; rows are spread over the pool and run with the
//! widest vectors (`exp` is compute-bound). Other layouts take the general
//! reduction (`reducers::MaxAndSum`) and an elementwise pass.
//!
//! The sums are taken in `f64`, as the general reduction's are, so a row
//! of any length loses no more than its final rounding to `T`.

use core::mem::MaybeUninit;

use super::isa::Vectors;
use super::pool;
use super::store::zip1;
use crate::backend::op::scalar;
use crate::element::Float;

/// Independent accumulators per row fold (a vector register's worth of
/// `f32`, or two of `f64`).
const LANES: usize = 16;

/// The output buffer, shared by the tiles (each writes its own rows).
#[derive(Clone, Copy)]
struct Rows<T>(*mut MaybeUninit<T>);
// SAFETY: each tile writes a disjoint range of rows of the buffer, which
// outlives the pool call that runs the tiles.
unsafe impl<T: Send> Send for Rows<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Rows<T> {}

impl<T> Rows<T> {
    /// The pointer (a method, so closures capture the `Sync` wrapper).
    fn ptr(self) -> *mut MaybeUninit<T> {
        self.0
    }
}

/// `softmax` (`log_softmax` when `log`) of each row of `n` elements of
/// `x`, into `out` (as long as `x`), every element of which is written.
///
/// # Panics
/// When `n` is 0 or does not divide `x`'s length, or `out`'s length is
/// not `x`'s.
pub(crate) fn rows<T: Float>(x: &[T], n: usize, log: bool, out: &mut [MaybeUninit<T>]) {
    assert!(n > 0 && x.len().is_multiple_of(n) && out.len() == x.len());
    let rows = x.len() / n;
    let tiles = if x.len() < pool::GRAIN {
        1
    } else {
        rows.min(pool::threads() * 4)
    };
    let dst = Rows(out.as_mut_ptr());
    pool::for_each_tile(tiles, &|t| {
        for r in t * rows / tiles..(t + 1) * rows / tiles {
            let src = &x[r * n..(r + 1) * n];
            // SAFETY: row `r` of `out` is `r * n..(r + 1) * n`, inside its
            // length (`rows * n`); the tiles' row ranges are disjoint, so no
            // one else writes it during the call.
            let o = unsafe { core::slice::from_raw_parts_mut(dst.ptr().add(r * n), n) };
            Vectors::Widest.run(
                #[inline(always)]
                || row(src, log, o),
            );
        }
    });
}

/// One row: `softmax` or `log_softmax` of `x` into `o` (as long).
#[inline(always)]
pub(super) fn row<T: Float>(x: &[T], log: bool, o: &mut [MaybeUninit<T>]) {
    let m = max(x);
    let s = if log {
        fold_sum(x, |v| scalar::exp(v - m))
    } else {
        exp_sum(x, m, o)
    };
    // PyTorch's sum includes `e^(inf - inf)`, NaN, when the maximum is
    // +inf; `v - m` gives that NaN here too, as it gives NaN to every
    // element of a row of -inf (its `m` is -inf) and of a row with a NaN.
    let s = T::from_f64(s);
    if log {
        let ls = s.ln();
        zip1(o, x, &|v| v - m - ls);
    } else {
        for e in o.iter_mut() {
            // SAFETY: `exp_sum` wrote every element of `o`.
            let v = unsafe { e.assume_init() };
            e.write(v / s);
        }
    }
}

/// The largest element of `x` (not empty), ignoring NaNs (the sum that
/// follows turns them into NaN for the row).
#[inline(always)]
fn max<T: Float>(x: &[T]) -> T {
    let mut acc = [T::neg_infinity(); LANES];
    let mut chunks = x.chunks_exact(LANES);
    for c in &mut chunks {
        for k in 0..LANES {
            acc[k] = if c[k] > acc[k] { c[k] } else { acc[k] };
        }
    }
    let mut m = chunks
        .remainder()
        .iter()
        .fold(T::neg_infinity(), |m, &v| if v > m { v } else { m });
    for a in acc {
        m = if a > m { a } else { m };
    }
    m
}

/// `Σ f(v)` over `x`, in `f64`.
#[inline(always)]
fn fold_sum<T: Float>(x: &[T], f: impl Fn(T) -> T) -> f64 {
    let mut acc = [0.0f64; LANES];
    let mut chunks = x.chunks_exact(LANES);
    for c in &mut chunks {
        for k in 0..LANES {
            acc[k] += f(c[k]).to_f64();
        }
    }
    let rest: f64 = chunks.remainder().iter().map(|&v| f(v).to_f64()).sum();
    acc.iter().sum::<f64>() + rest
}

/// `Σ e^(v - m)` over `x`, in `f64`, each `e^(v - m)` written to `o`.
#[inline(always)]
fn exp_sum<T: Float>(x: &[T], m: T, o: &mut [MaybeUninit<T>]) -> f64 {
    let mut acc = [0.0f64; LANES];
    let mut oc = o.chunks_exact_mut(LANES);
    let mut xc = x.chunks_exact(LANES);
    for (o, c) in (&mut oc).zip(&mut xc) {
        for k in 0..LANES {
            let e = scalar::exp(c[k] - m);
            o[k].write(e);
            acc[k] += e.to_f64();
        }
    }
    let mut rest = 0.0;
    for (o, &v) in oc.into_remainder().iter_mut().zip(xc.remainder()) {
        let e = scalar::exp(v - m);
        o.write(e);
        rest += e.to_f64();
    }
    acc.iter().sum::<f64>() + rest
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row against the textbook formulas in `f64`, index by index:
    /// rows shorter and longer than the lanes, a row with +inf, one of
    /// -inf only, one with a NaN, split over tiles.
    #[test]
    fn rows_match_the_formulas() {
        for n in [1usize, 5, 16, 37, 300] {
            let rows_n = 9;
            let mut x: Vec<f32> = (0..rows_n * n)
                .map(|i| ((i * 7919) % 97) as f32 / 9.0 - 5.0)
                .collect();
            x[n] = f32::INFINITY;
            x[2 * n..3 * n].fill(f32::NEG_INFINITY);
            x[3 * n + n / 2] = f32::NAN;
            for log in [false, true] {
                let mut o = vec![MaybeUninit::<f32>::uninit(); x.len()];
                rows(&x, n, log, &mut o);
                for r in 0..rows_n {
                    let row: Vec<f64> = x[r * n..(r + 1) * n].iter().map(|&v| v as f64).collect();
                    let m = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                    let s: f64 = row.iter().map(|v| (v - m).exp()).sum();
                    for (j, &v) in row.iter().enumerate() {
                        let want = if log {
                            v - m - s.ln()
                        } else {
                            (v - m).exp() / s
                        };
                        // SAFETY: `rows` writes every element.
                        let got = unsafe { o[r * n + j].assume_init() } as f64;
                        let ok = (got.is_nan() && want.is_nan())
                            || (got - want).abs() <= 1e-6 * want.abs().max(1.0);
                        assert!(ok, "n {n}, log {log}, row {r}, {j}: {got} vs {want}");
                    }
                    // PyTorch's NaN rows: a +inf, only -inf, a NaN.
                    if (1..=3).contains(&r) {
                        // SAFETY: as above.
                        assert!((0..n).all(|j| unsafe { o[r * n + j].assume_init() }.is_nan()));
                    }
                }
            }
        }
    }
}
