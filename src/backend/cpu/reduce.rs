//! Reduction loops over the iteration plan.
//!
//! A reduction is a [`Plan`] of three operands: the output (stride 0 on the
//! reduced dimensions, so the plan sorts them innermost), the input, and an
//! *index* operand that is never read: its offset is the logical index of an
//! element within the reduced dimensions (for `argmax`). The plan drops size-1
//! dimensions and coalesces the rest; this module splits its dimensions into
//! the kept ones (outer) and the reduced ones (inner) and picks a loop:
//!
//! - **inner**: the reduced dimensions are the innermost in memory (`sum` over
//!   the last axis). Each output element folds its runs of input; runs are
//!   combined pairwise (a binary-counter cascade), and a run of a sum is
//!   summed pairwise in blocks (see `Reducer::fold_run`). Parallel over output
//!   elements, or, when there are few, over pieces of the reduction combined
//!   in order.
//! - **outer**: a kept dimension is the innermost in memory (`sum` over the
//!   first axis). A tile of outputs along that dimension accumulates whole
//!   input rows, which vectorises; blocks of rows are combined pairwise.
//!   Parallel over tiles.
//!
//! Every function here is `unsafe` with the contract of `elementwise.rs`:
//! every offset the plan produces for the input lies inside its buffer, and
//! the output buffer has room for `out_len` elements and overlaps no input.

use core::cell::RefCell;
use core::marker::PhantomData;
use std::sync::OnceLock;

use smallvec::SmallVec;

use super::pool::{self, GRAIN};
use crate::iter::Plan;

/// `len` elements of an input, `stride` elements apart: one inner loop.
pub(crate) struct Run<'a, T> {
    ptr: *const T,
    stride: usize,
    len: usize,
    life: PhantomData<&'a [T]>,
}

impl<'a, T: Copy> Run<'a, T> {
    /// # Safety
    /// `ptr + k * stride` is valid for reads for every `k < len`, for `'a`.
    unsafe fn new(ptr: *const T, stride: usize, len: usize) -> Self {
        Run {
            ptr,
            stride,
            len,
            life: PhantomData,
        }
    }

    /// The elements of a slice.
    pub(crate) fn from_slice(s: &'a [T]) -> Self {
        // SAFETY: the slice's `len` elements are readable for `'a`.
        unsafe { Run::new(s.as_ptr(), 1, s.len()) }
    }

    /// `x` repeated `len` times.
    pub(crate) fn repeat(x: &'a T, len: usize) -> Self {
        // SAFETY: with stride 0 every element is `*x`, readable for `'a`.
        unsafe { Run::new(x, 0, len) }
    }

    /// The number of elements.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Element `k`.
    ///
    /// # Panics
    /// When `k >= len`.
    #[inline(always)]
    pub(crate) fn get(&self, k: usize) -> T {
        assert!(k < self.len, "run index out of bounds");
        // SAFETY: `k < len`, and `new`'s contract makes that element readable.
        unsafe { *self.ptr.add(k * self.stride) }
    }

    /// The elements as a slice, when they are adjacent.
    #[inline(always)]
    pub(crate) fn as_slice(&self) -> Option<&'a [T]> {
        // SAFETY: stride 1 (or at most one element) makes the run a slice of
        // `len` readable elements.
        (self.stride == 1 || self.len <= 1)
            .then(|| unsafe { core::slice::from_raw_parts(self.ptr, self.len) })
    }

    /// The elements `lo..hi` as a run of their own.
    pub(crate) fn sub(&self, lo: usize, hi: usize) -> Run<'a, T> {
        assert!(lo <= hi && hi <= self.len, "sub-run out of bounds");
        // SAFETY: a sub-range of a valid run is valid.
        unsafe {
            Run::new(
                self.ptr.wrapping_add(lo * self.stride),
                self.stride,
                hi - lo,
            )
        }
    }
}

/// A reduction: how elements fold into an accumulator, how two accumulators
/// of consecutive pieces combine, and how an accumulator becomes an output.
///
/// `index` is the element's logical index within the reduced dimensions
/// (row-major), for reductions that report a position.
pub(crate) trait Reducer<T: Copy>: Sync {
    /// The running state.
    type Acc: Copy + Send + Sync;
    /// One output element.
    type Out: Copy + Send + Sync;
    /// The state before any element.
    fn init(&self) -> Self::Acc;
    /// Adds one element.
    fn fold(&self, acc: Self::Acc, x: T, index: usize) -> Self::Acc;
    /// Joins the states of two consecutive pieces, `earlier` first.
    fn combine(&self, earlier: Self::Acc, later: Self::Acc) -> Self::Acc;
    /// The output for a final state.
    fn finish(&self, acc: Self::Acc) -> Self::Out;

    /// Folds a run whose element `k` has index `index + k * step`; sums
    /// override this with a blocked pairwise sum.
    #[inline(always)]
    fn fold_run(&self, acc: Self::Acc, run: Run<'_, T>, index: usize, step: usize) -> Self::Acc {
        let mut acc = acc;
        match run.as_slice() {
            Some(s) => {
                for (k, &x) in s.iter().enumerate() {
                    acc = self.fold(acc, x, index + k * step);
                }
            }
            None => {
                for k in 0..run.len() {
                    acc = self.fold(acc, run.get(k), index + k * step);
                }
            }
        }
        acc
    }

    /// [`Reducer::fold_row`] for four consecutive rows; sums override it to
    /// add the rows before touching the accumulators.
    #[inline(always)]
    fn fold_rows4(&self, acc: &mut [Self::Acc], rows: [Run<'_, T>; 4], index: [usize; 4]) {
        for (row, i) in rows.into_iter().zip(index) {
            self.fold_row(acc, row, i);
        }
    }

    /// `acc[j] = fold(acc[j], row[j], index)` for a row of outputs.
    #[inline(always)]
    fn fold_row(&self, acc: &mut [Self::Acc], row: Run<'_, T>, index: usize) {
        match row.as_slice() {
            Some(s) => {
                for (a, &x) in acc.iter_mut().zip(s) {
                    *a = self.fold(*a, x, index);
                }
            }
            None => {
                for (j, a) in acc.iter_mut().enumerate() {
                    *a = self.fold(*a, row.get(j), index);
                }
            }
        }
    }
}

/// Partial results combined pairwise in order, as a binary counter: level
/// `i` holds a partial over `2^i` pushes, so `n` pushes meet in `log2 n`
/// levels and rounding errors grow with `log n`, not `n`.
struct Cascade<P> {
    levels: SmallVec<[Option<P>; 32]>,
}

impl<P> Cascade<P> {
    fn new() -> Self {
        Cascade {
            levels: SmallVec::new(),
        }
    }

    fn push(&mut self, p: P, combine: &impl Fn(P, P) -> P) {
        let mut carry = p;
        for slot in self.levels.iter_mut() {
            match slot.take() {
                Some(earlier) => carry = combine(earlier, carry),
                None => {
                    *slot = Some(carry);
                    return;
                }
            }
        }
        self.levels.push(Some(carry));
    }

    /// Everything pushed, combined in push order; `None` if nothing was.
    fn finish(self, combine: &impl Fn(P, P) -> P) -> Option<P> {
        // Higher levels hold earlier pushes.
        self.levels.into_iter().rev().flatten().reduce(combine)
    }
}

/// The input's base pointer, shareable across threads.
struct In<T>(*const T);
impl<T> In<T> {
    fn ptr(&self) -> *const T {
        self.0
    }
}
// SAFETY: the input is only read, under the caller's read guard.
unsafe impl<T: Sync> Sync for In<T> {}

/// The output's base pointer, shareable across threads.
struct OutPtr<T>(*mut T);
impl<T> OutPtr<T> {
    fn ptr(&self) -> *mut T {
        self.0
    }
}
// SAFETY: each output element is written by exactly one thread (each work
// item owns a disjoint set of output indices).
unsafe impl<T: Send> Sync for OutPtr<T> {}

/// Rows of a tile folded before the tile joins the cascade.
const ROW_BLOCK: usize = 64;
/// Outputs per tile in the outer loop.
const TILE: usize = 2048;

/// Reduces the input into `out_len` contiguous outputs.
///
/// `plan` has operands `[out, input, index]`: output strides 0 exactly on
/// the reduced dimensions (and contiguous over the kept ones), index
/// strides 0 on the kept dimensions.
///
/// # Safety
/// The module's contract; `out` has room for `out_len` elements, every one
/// of which is written.
pub(crate) unsafe fn reduce<T: Copy + Sync, R: Reducer<T>>(
    plan: &Plan<3>,
    out_len: usize,
    out: *mut R::Out,
    input: *const T,
    r: &R,
) {
    let out = OutPtr(out);
    if plan.numel() == 0 {
        let v = r.finish(r.init());
        for i in 0..out_len {
            // SAFETY: `i < out_len`.
            unsafe { out.ptr().add(i).write(v) };
        }
        return;
    }
    let split = Split::new(plan);
    debug_assert_eq!(split.kept.numel(), out_len);
    let input = In(input);
    if split.outer_tile().is_some() {
        // SAFETY: forwarded.
        unsafe { split.outer(&out, &input, r) }
    } else {
        // SAFETY: forwarded.
        unsafe { split.inner(&out, &input, r) }
    }
}

/// A reduction plan split into its kept (outer) and reduced (inner) parts.
struct Split {
    /// Kept dimensions: operands `[out, input, index]` (index strides 0).
    kept: Plan<3>,
    /// Reduced dimensions: operands `[input, index]`, offsets 0.
    red: Plan<2>,
}

impl Split {
    fn new(plan: &Plan<3>) -> Self {
        let dims = plan.dims();
        let (so, si, sx) = (plan.strides(0), plan.strides(1), plan.strides(2));
        let k = so.iter().take_while(|&&s| s != 0).count();
        // Offsets of the whole plan: those of its first element.
        let mut base = [0usize; 3];
        plan.segments(0, 1, |offs, _, _| base = offs);
        let kept = Plan::new(
            &dims[..k],
            [
                (&so[..k], base[0]),
                (&si[..k], base[1]),
                (&sx[..k], base[2]),
            ],
        );
        let red = Plan::new(&dims[k..], [(&si[k..], 0), (&sx[k..], 0)]);
        Split { kept, red }
    }

    /// The size of the innermost kept dimension when the outer loop suits:
    /// it is contiguous in the input while the reduced runs are not.
    fn outer_tile(&self) -> Option<usize> {
        let kd = self.kept.dims();
        let w = *kd.last()?;
        let kept_stride = *self.kept.strides(1).last()?;
        let red_stride = *self.red.strides(0).last()?;
        let kept_contiguous_out = *self.kept.strides(0).last()? == 1;
        (self.red.numel() > 1
            && kept_stride == 1
            && red_stride != 1
            && kept_contiguous_out
            && w >= 8)
            .then_some(w)
    }

    /// Folds the reduced elements `start..end` of the output whose first
    /// input element is at `in_off`.
    ///
    /// # Safety
    /// The module's contract.
    unsafe fn fold_piece<T: Copy + Sync, R: Reducer<T>>(
        &self,
        input: &In<T>,
        in_off: usize,
        start: usize,
        end: usize,
        r: &R,
    ) -> R::Acc {
        let combine = |a, b| r.combine(a, b);
        if self.red.dims().len() == 1 {
            let (si, sx) = (self.red.strides(0)[0], self.red.strides(1)[0]);
            // SAFETY: the run is part of the input's layout.
            let run = unsafe { Run::new(input.ptr().add(in_off + start * si), si, end - start) };
            return r.fold_run(r.init(), run, start * sx, sx);
        }
        let mut cascade = Cascade::new();
        self.red.segments(start, end, |offs, st, len| {
            // SAFETY: as above.
            let run = unsafe { Run::new(input.ptr().add(in_off + offs[0]), st[0], len) };
            cascade.push(r.fold_run(r.init(), run, offs[1], st[1]), &combine);
        });
        cascade.finish(&combine).unwrap_or_else(|| r.init())
    }

    /// The inner loop: each output folds its runs.
    ///
    /// # Safety
    /// The module's contract.
    unsafe fn inner<T: Copy + Sync, R: Reducer<T>>(
        &self,
        out: &OutPtr<R::Out>,
        input: &In<T>,
        r: &R,
    ) {
        let (n_out, n_red) = (self.kept.numel(), self.red.numel());
        let threads = pool::threads();
        let outputs = |start: usize, end: usize| {
            self.kept.segments(start, end, |offs, st, len| {
                for t in 0..len {
                    let (o, i) = (offs[0] + t * st[0], offs[1] + t * st[1]);
                    // SAFETY: forwarded; `o < out_len` (the output is
                    // contiguous over the kept dimensions).
                    unsafe {
                        let acc = self.fold_piece(input, i, 0, n_red, r);
                        out.ptr().add(o).write(r.finish(acc));
                    }
                }
            })
        };
        if threads == 1 || n_out * n_red < GRAIN {
            return outputs(0, n_out);
        }
        if n_out >= 4 * threads {
            let chunks = (n_out * n_red / GRAIN).clamp(1, 8 * threads).min(n_out);
            pool::for_each_tile(chunks, &|c| {
                outputs(c * n_out / chunks, (c + 1) * n_out / chunks)
            });
            return;
        }
        // Few outputs: split each reduction and combine the pieces in order.
        let pieces = (n_red / GRAIN).clamp(1, 4 * threads);
        let combine = |a, b| r.combine(a, b);
        self.kept.segments(0, n_out, |offs, st, len| {
            for t in 0..len {
                let (o, i) = (offs[0] + t * st[0], offs[1] + t * st[1]);
                let partials: Vec<OnceLock<R::Acc>> =
                    (0..pieces).map(|_| OnceLock::new()).collect();
                pool::for_each_tile(pieces, &|p| {
                    // SAFETY: forwarded.
                    let acc = unsafe {
                        self.fold_piece(input, i, p * n_red / pieces, (p + 1) * n_red / pieces, r)
                    };
                    // Each piece runs once, so its slot is empty.
                    let _ = partials[p].set(acc);
                });
                let mut cascade = Cascade::new();
                for p in partials {
                    let acc = p.into_inner().expect("every piece ran");
                    cascade.push(acc, &combine);
                }
                let acc = cascade.finish(&combine).unwrap_or_else(|| r.init());
                // SAFETY: `o < out_len`, written once.
                unsafe { out.ptr().add(o).write(r.finish(acc)) };
            }
        });
    }

    /// The outer loop: tiles of outputs along the innermost kept dimension
    /// accumulate whole rows of input.
    ///
    /// # Safety
    /// The module's contract.
    unsafe fn outer<T: Copy + Sync, R: Reducer<T>>(
        &self,
        out: &OutPtr<R::Out>,
        input: &In<T>,
        r: &R,
    ) {
        let w = self.outer_tile().expect("checked by the caller");
        let n_rows = self.kept.numel() / w;
        let tiles = w.div_ceil(TILE);
        let items = n_rows * tiles;
        let item = |it: usize| {
            let (row, tile) = (it / tiles, it % tiles);
            let (lo, hi) = (tile * TILE, ((tile + 1) * TILE).min(w));
            // Offsets of element `lo` of kept row `row`.
            let mut base = [0usize; 3];
            self.kept
                .segments(row * w + lo, row * w + lo + 1, |offs, _, _| base = offs);
            // SAFETY: forwarded.
            unsafe { self.outer_tile_fold(out, input, r, base[0], base[1], hi - lo) };
        };
        if pool::threads() == 1 || items == 1 || self.kept.numel() * self.red.numel() < GRAIN {
            (0..items).for_each(item);
        } else {
            pool::for_each_tile(items, &item);
        }
    }

    /// One tile of `width` outputs starting at output `o` and input `i`.
    ///
    /// # Safety
    /// The module's contract; outputs `o..o + width` belong to this tile.
    unsafe fn outer_tile_fold<T: Copy + Sync, R: Reducer<T>>(
        &self,
        out: &OutPtr<R::Out>,
        input: &In<T>,
        r: &R,
        o: usize,
        i: usize,
        width: usize,
    ) {
        // Buffers freed by the cascade are reused for later blocks.
        let pool: RefCell<Vec<Vec<R::Acc>>> = RefCell::new(Vec::new());
        let fresh = || {
            let mut v = pool.borrow_mut().pop().unwrap_or_default();
            v.clear();
            v.resize(width, r.init());
            v
        };
        let combine = |mut a: Vec<R::Acc>, b: Vec<R::Acc>| {
            for (x, &y) in a.iter_mut().zip(&b) {
                *x = r.combine(*x, y);
            }
            pool.borrow_mut().push(b);
            a
        };
        let mut cascade = Cascade::new();
        let mut block = fresh();
        let mut rows_in_block = 0;
        self.red.segments(0, self.red.numel(), |offs, st, len| {
            // SAFETY: the row's `width` elements are part of the input's
            // layout (kept stride 1 inside the tile).
            let row =
                |q: usize| unsafe { Run::new(input.ptr().add(i + offs[0] + q * st[0]), 1, width) };
            let index = |q: usize| offs[1] + q * st[1];
            let mut q = 0;
            while q < len {
                if q + 4 <= len && rows_in_block + 4 <= ROW_BLOCK {
                    let qs = [q, q + 1, q + 2, q + 3];
                    r.fold_rows4(&mut block, qs.map(row), qs.map(index));
                    (q, rows_in_block) = (q + 4, rows_in_block + 4);
                } else {
                    r.fold_row(&mut block, row(q), index(q));
                    (q, rows_in_block) = (q + 1, rows_in_block + 1);
                }
                if rows_in_block == ROW_BLOCK {
                    let full = core::mem::replace(&mut block, fresh());
                    cascade.push(full, &combine);
                    rows_in_block = 0;
                }
            }
        });
        if rows_in_block > 0 {
            cascade.push(block, &combine);
        }
        let acc = cascade
            .finish(&combine)
            .unwrap_or_else(|| vec![r.init(); width]);
        for (j, a) in acc.into_iter().enumerate() {
            // SAFETY: outputs `o..o + width` belong to this tile alone.
            unsafe { out.ptr().add(o + j).write(r.finish(a)) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cascade_keeps_order() {
        let mut c = Cascade::new();
        for s in ["a", "b", "c", "d", "e"] {
            c.push(s.to_string(), &|x: String, y: String| x + &y);
        }
        assert_eq!(c.finish(&|x: String, y: String| x + &y).unwrap(), "abcde");
    }
}
