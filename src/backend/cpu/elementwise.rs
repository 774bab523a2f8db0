//! Elementwise loops over an iteration plan: `map*` write a fresh output
//! from 1-3 inputs, `update*` read-modify-write the output in place with
//! 0-2 more inputs.
//!
//! Every function here is `unsafe` with one contract, stated once:
//!
//! **Contract.** Each pointer is the base of a buffer, and every element
//! offset the plan produces for that operand (its offset plus the sum over
//! dimensions of index times stride) is in bounds of that buffer. For `map*`
//! the output buffer has room for every output offset and does not overlap
//! any input; for `update*` the output's offsets are pairwise distinct and no
//! input shares the output's buffer. Callers build plans from tensor layouts,
//! whose invariant is that every addressed element lies inside the storage,
//! and check overlap before writing in place.

use core::mem::MaybeUninit;

use super::store::{Tile, zip1, zip2, zip3};
use crate::iter::Plan;

/// A read-only input: the base pointer of its buffer.
#[derive(Debug)]
pub(crate) struct Src<T>(pub *const T);

impl<T> Src<T> {
    /// The pointer (a method, so closures capture the `Sync` wrapper).
    fn ptr(self) -> *const T {
        self.0
    }
}

impl<T> Clone for Src<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Src<T> {}
// SAFETY: the buffer behind the pointer is held under a read guard for the
// whole kernel call, and only read.
unsafe impl<T: Sync> Send for Src<T> {}
// SAFETY: as above: shared reads only.
unsafe impl<T: Sync> Sync for Src<T> {}

/// The output: the base pointer of its buffer.
#[derive(Debug)]
struct Dst<T>(*mut T);
impl<T> Dst<T> {
    /// The pointer (a method, so closures capture the `Sync` wrapper).
    fn ptr(self) -> *mut T {
        self.0
    }
}
impl<T> Clone for Dst<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Dst<T> {}
// SAFETY: the plan gives each thread a disjoint range of output offsets (the
// contract requires distinct output offsets), under the caller's exclusive
// guard.
unsafe impl<T: Send> Send for Dst<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Dst<T> {}

/// The `len` output elements at `o`, to be written.
///
/// # Safety
/// `o..o + len` is writable and written by no one else while the slice lives.
#[inline(always)]
unsafe fn slice_out<'a, O>(o: *mut O, len: usize) -> &'a mut [MaybeUninit<O>] {
    // SAFETY: the caller's contract.
    unsafe { core::slice::from_raw_parts_mut(o as *mut MaybeUninit<O>, len) }
}

/// `out = f(a)`.
///
/// # Safety
/// The module's contract, for a plan of operands `[out, a]`.
pub(crate) unsafe fn map1<A: Copy + Sync, O: Copy + Send>(
    plan: &Plan<2>,
    out: *mut O,
    a: Src<A>,
    f: impl Fn(A) -> O + Sync,
) {
    let out = Dst(out);
    plan.par_segments(|offs, st, len| {
        // SAFETY: offsets and `len` steps of the inner strides stay in bounds
        // by the contract; the output range is written by this segment only.
        unsafe {
            let (o, a) = (out.ptr().add(offs[0]), a.ptr().add(offs[1]));
            match st {
                [1, 1] => {
                    let a = core::slice::from_raw_parts(a, len);
                    zip1(slice_out(o, len), a, &f);
                }
                [so, sa] => {
                    for i in 0..len {
                        o.add(i * so).write(f(*a.add(i * sa)));
                    }
                }
            }
        }
    });
}

/// `out = f(a, b)`, with fast loops for contiguous and stride-0 inputs.
///
/// # Safety
/// The module's contract, for a plan of operands `[out, a, b]`.
pub(crate) unsafe fn map2<A: Copy + Sync, B: Copy + Sync, O: Copy + Send>(
    plan: &Plan<3>,
    out: *mut O,
    a: Src<A>,
    b: Src<B>,
    f: impl Fn(A, B) -> O + Sync,
) {
    let out = Dst(out);
    plan.par_segments(|offs, st, len| {
        // SAFETY: as in `map1`.
        unsafe {
            let o = out.ptr().add(offs[0]);
            let (a, b) = (a.ptr().add(offs[1]), b.ptr().add(offs[2]));
            match st {
                [1, 1, 1] => {
                    let (a, b) = (
                        core::slice::from_raw_parts(a, len),
                        core::slice::from_raw_parts(b, len),
                    );
                    zip2(slice_out(o, len), a, b, &f);
                }
                [1, 1, 0] => {
                    let (a, y) = (core::slice::from_raw_parts(a, len), *b);
                    zip1(slice_out(o, len), a, &|x| f(x, y));
                }
                [1, 0, 1] => {
                    let (x, b) = (*a, core::slice::from_raw_parts(b, len));
                    zip1(slice_out(o, len), b, &|y| f(x, y));
                }
                [so, sa, sb] => {
                    for i in 0..len {
                        o.add(i * so).write(f(*a.add(i * sa), *b.add(i * sb)));
                    }
                }
            }
        }
    });
}

/// `out = f(a, b, c)`.
///
/// # Safety
/// The module's contract, for a plan of operands `[out, a, b, c]`.
pub(crate) unsafe fn map3<A: Copy + Sync, B: Copy + Sync, C: Copy + Sync, O: Copy + Send>(
    plan: &Plan<4>,
    out: *mut O,
    a: Src<A>,
    b: Src<B>,
    c: Src<C>,
    f: impl Fn(A, B, C) -> O + Sync,
) {
    let out = Dst(out);
    plan.par_segments(|offs, st, len| {
        // SAFETY: as in `map1`.
        unsafe {
            let o = out.ptr().add(offs[0]);
            let (a, b, c) = (
                a.ptr().add(offs[1]),
                b.ptr().add(offs[2]),
                c.ptr().add(offs[3]),
            );
            match st {
                [1, 1, 1, 1] => {
                    let a = core::slice::from_raw_parts(a, len);
                    let b = core::slice::from_raw_parts(b, len);
                    let c = core::slice::from_raw_parts(c, len);
                    zip3(slice_out(o, len), a, b, c, &f);
                }
                [so, sa, sb, sc] => {
                    for i in 0..len {
                        o.add(i * so)
                            .write(f(*a.add(i * sa), *b.add(i * sb), *c.add(i * sc)));
                    }
                }
            }
        }
    });
}

/// `out = f(out)` in place.
///
/// # Safety
/// The module's contract, for a plan of operands `[out]`.
pub(crate) unsafe fn update1<O: Copy + Send + Sync>(
    plan: &Plan<1>,
    out: *mut O,
    f: impl Fn(O) -> O + Sync,
) {
    let out = Dst(out);
    plan.par_segments(|offs, st, len| {
        // SAFETY: as in `map1`; the output offsets are distinct.
        unsafe {
            let o = out.ptr().add(offs[0]);
            match st {
                [1] => {
                    for o in core::slice::from_raw_parts_mut(o, len) {
                        *o = f(*o);
                    }
                }
                [so] => {
                    for i in 0..len {
                        let p = o.add(i * so);
                        *p = f(*p);
                    }
                }
            }
        }
    });
}

/// `out = f(out, b)` in place.
///
/// # Safety
/// The module's contract, for a plan of operands `[out, b]`.
pub(crate) unsafe fn update2<O: Copy + Send + Sync, B: Copy + Sync>(
    plan: &Plan<2>,
    out: *mut O,
    b: Src<B>,
    f: impl Fn(O, B) -> O + Sync,
) {
    let out = Dst(out);
    plan.par_segments(|offs, st, len| {
        // SAFETY: as in `map1`; `b` does not share the output's buffer.
        unsafe {
            let (o, b) = (out.ptr().add(offs[0]), b.ptr().add(offs[1]));
            match st {
                [1, 1] => {
                    let o = core::slice::from_raw_parts_mut(o, len);
                    for (o, &y) in o.iter_mut().zip(core::slice::from_raw_parts(b, len)) {
                        *o = f(*o, y);
                    }
                }
                [1, 0] => {
                    let y = *b;
                    for o in core::slice::from_raw_parts_mut(o, len) {
                        *o = f(*o, y);
                    }
                }
                [so, sb] => {
                    for i in 0..len {
                        let p = o.add(i * so);
                        *p = f(*p, *b.add(i * sb));
                    }
                }
            }
        }
    });
}

/// `out = f(out, b, c)` in place.
///
/// # Safety
/// The module's contract, for a plan of operands `[out, b, c]`.
pub(crate) unsafe fn update3<O: Copy + Send + Sync, B: Copy + Sync, C: Copy + Sync>(
    plan: &Plan<3>,
    out: *mut O,
    b: Src<B>,
    c: Src<C>,
    f: impl Fn(O, B, C) -> O + Sync,
) {
    let out = Dst(out);
    plan.par_segments(|offs, st, len| {
        // SAFETY: as in `update2`.
        unsafe {
            let (o, b, c) = (
                out.ptr().add(offs[0]),
                b.ptr().add(offs[1]),
                c.ptr().add(offs[2]),
            );
            let [so, sb, sc] = st;
            for i in 0..len {
                let p = o.add(i * so);
                *p = f(*p, *b.add(i * sb), *c.add(i * sc));
            }
        }
    });
}

/// `out = f(a, b)` where both inputs are contiguous and one of them (`full`)
/// has `rows * row_len` elements while the other (`row`) has `row_len`,
/// repeated for every row: the common "bias" broadcast, and the equal-shape
/// case when `rows == 1`. No plan is built, which keeps small calls cheap.
///
/// `a_is_row` says whether the repeated row is `f`'s first argument.
///
/// # Safety
/// `out` has room for `rows * row_len` elements and overlaps neither input;
/// `full` has `rows * row_len` readable elements, `row` has `row_len`.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn map2_rows<A: Copy + Sync, B: Copy + Sync, O: Copy + Send>(
    out: *mut O,
    a: Src<A>,
    b: Src<B>,
    rows: usize,
    row_len: usize,
    a_is_row: bool,
    f: impl Fn(A, B) -> O + Sync,
) {
    let out = Dst(out);
    let total = rows * row_len;
    // A short row is repeated into a tile first: the tile is periodic with
    // the row's length, so element `pos` of the result still pairs with
    // element `pos % row_len` of the (tiled) row.
    let (mut tile_a, mut tile_b) = (Tile::new(), Tile::new());
    let (a, b, row_len) = match a_is_row {
        // SAFETY: the row operand has `row_len` readable elements (the
        // contract), and `fits` is checked.
        true if Tile::fits::<A>(row_len, rows) => {
            let t = unsafe { tile_a.repeat(a.ptr(), row_len, rows) };
            (Src(t.as_ptr()), b, t.len())
        }
        // SAFETY: as above.
        false if Tile::fits::<B>(row_len, rows) => {
            let t = unsafe { tile_b.repeat(b.ptr(), row_len, rows) };
            (a, Src(t.as_ptr()), t.len())
        }
        _ => (a, b, row_len),
    };
    let rows = RowsRun {
        out,
        a,
        b,
        row_len,
        a_is_row,
    };
    if total < crate::iter::PARALLEL_GRAIN || rayon::current_num_threads() == 1 {
        // SAFETY: the contract, for the whole range.
        return unsafe { rows.run(0, total, &f) };
    }
    let threads = rayon::current_num_threads();
    let chunks = (total / crate::iter::PARALLEL_GRAIN).clamp(1, threads * 4);
    use rayon::prelude::*;
    (0..chunks).into_par_iter().for_each(|c| {
        // SAFETY: the contract; the chunks are disjoint ranges of `out`.
        unsafe { rows.run(c * total / chunks, (c + 1) * total / chunks, &f) }
    });
}

/// The operands of [`map2_rows`] after tiling.
struct RowsRun<A, B, O> {
    out: Dst<O>,
    a: Src<A>,
    b: Src<B>,
    row_len: usize,
    a_is_row: bool,
}

impl<A: Copy + Sync, B: Copy + Sync, O: Copy + Send> RowsRun<A, B, O> {
    /// Elements `s..e` of the flattened result, walked as pieces of rows.
    ///
    /// # Safety
    /// [`map2_rows`]'s contract, with `e <= rows * row_len`; no one else
    /// writes `s..e` of the output during the call.
    #[inline(always)]
    unsafe fn run(&self, s: usize, e: usize, f: &impl Fn(A, B) -> O) {
        let row_len = self.row_len;
        let (mut pos, mut j) = (s, s % row_len);
        while pos < e {
            let len = (row_len - j).min(e - pos);
            // SAFETY: pos..pos + len lies inside `out` and `full`, and
            // j..j + len inside `row` (j + len <= row_len), by the contract;
            // this call alone writes that range of `out`.
            unsafe {
                let o = self.out.ptr().add(pos);
                let (ia, ib) = if self.a_is_row { (j, pos) } else { (pos, j) };
                let a = core::slice::from_raw_parts(self.a.ptr().add(ia), len);
                let b = core::slice::from_raw_parts(self.b.ptr().add(ib), len);
                zip2(slice_out(o, len), a, b, f);
            }
            pos += len;
            j = 0;
        }
    }
}
