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
//!
//! Existing outputs (`out=` forms) larger than the cache are written with
//! streaming stores (`store.rs`). Each kernel takes the [`Width`] it runs
//! with: the op table's transcendental operations (`gelu`, `exp`, `tanh`,
//! `sigmoid`, `silu` and their gradients) take the widest, which made their
//! eager forms two to three times as fast on AVX-512 (`benches/README.md`);
//! every closure on the way to the loop is `#[inline(always)]`, or it
//! would be compiled for the baseline vectors.

use core::mem::MaybeUninit;

use super::isa::Width;
#[cfg(test)]
use super::isa::{Narrow, Wide};
use super::pool;
use super::store::{
    Kernel1, Kernel1InPlace, Tile, store_fence, stream_out, streams, zip1, zip2, zip3,
};
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

/// The output of a `map*` kernel: its buffer's base pointer, and whether
/// the buffer was just allocated.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Out<O> {
    /// A fresh buffer: its pages are faulted in by this first write, which
    /// leaves each page zeroed and cached, so plain stores are fastest
    /// (measured: streaming stores made a fresh 256 MiB output 40% slower,
    /// 41 against 30 ms).
    Fresh(*mut O),
    /// An existing tensor's buffer (`out=` forms): streamed when larger than
    /// the cache (`store.rs`; 256 MiB in 9.5 instead of 20 ms).
    Existing(*mut O),
    /// Streamed whatever its size: lets tests reach the streaming loops
    /// with small outputs.
    #[cfg(test)]
    Streamed(*mut O),
}

impl<O> Out<O> {
    /// The pointer, and whether an output of `numel` elements is streamed.
    fn parts(self, numel: usize) -> (Dst<O>, bool) {
        match self {
            Out::Fresh(p) => (Dst(p), false),
            Out::Existing(p) => (Dst(p), streams(numel * size_of::<O>())),
            #[cfg(test)]
            Out::Streamed(p) => (Dst(p), true),
        }
    }
}

/// The `len` output elements at `o`, to be written.
///
/// # Safety
/// `o..o + len` is writable and written by no one else while the slice lives.
#[inline(always)]
unsafe fn slice_out<'a, O>(o: *mut O, len: usize) -> &'a mut [MaybeUninit<O>] {
    // SAFETY: the caller's contract.
    unsafe { core::slice::from_raw_parts_mut(o as *mut MaybeUninit<O>, len) }
}

/// Writes the contiguous output run `o`: `fill(chunk, start)` writes
/// `chunk`, standing for `o[start..]`, from the inputs at `start`; through
/// a bounce buffer and streaming stores when `stream`.
#[inline(always)]
fn write_run<O>(
    o: &mut [MaybeUninit<O>],
    stream: bool,
    mut fill: impl FnMut(&mut [MaybeUninit<O>], usize),
) {
    if stream {
        stream_out(o, fill)
    } else {
        fill(o, 0)
    }
}

/// [`pool::par_segments`] for a fresh-written output: when it is streamed
/// (`stream`), each parallel range ends with a store fence on the thread
/// that wrote it.
fn map_segments<const N: usize>(
    plan: &Plan<N>,
    stream: bool,
    vectors: impl Width,
    seg: impl Fn([usize; N], [usize; N], usize) + Sync,
) {
    pool::par_ranges(plan.numel(), &|start, end| {
        plan.segments(start, end, &with_vectors(vectors, &seg));
        if stream {
            store_fence();
        }
    });
}

/// [`pool::par_segments`] for an output updated in place, with `vectors`.
fn update_segments<const N: usize>(
    plan: &Plan<N>,
    vectors: impl Width,
    seg: impl Fn([usize; N], [usize; N], usize) + Sync,
) {
    pool::par_segments(plan, with_vectors(vectors, &seg));
}

/// `f` with its second argument `y`.
#[inline(always)]
fn with_second<A, B: Copy, O>(f: &impl Fn(A, B) -> O, y: B) -> impl Fn(A) -> O {
    #[inline(always)]
    move |x| f(x, y)
}

/// `f` with its first argument `x`.
#[inline(always)]
fn with_first<A: Copy, B, O>(x: A, f: &impl Fn(A, B) -> O) -> impl Fn(B) -> O {
    #[inline(always)]
    move |y| f(x, y)
}

/// `seg` with `vectors` (`seg` an `#[inline(always)]` closure, as every
/// closure it calls, or those are compiled for the baseline vectors; it
/// is taken by reference, as the `zip*` loops take theirs: a closure of
/// type `&F` is called through a shim that is not always inlined).
#[inline(always)]
fn with_vectors<const N: usize>(
    vectors: impl Width,
    seg: &impl Fn([usize; N], [usize; N], usize),
) -> impl Fn([usize; N], [usize; N], usize) {
    move |offs, st, len| {
        vectors.run(
            #[inline(always)]
            || seg(offs, st, len),
        )
    }
}

/// `out = f(a)`.
///
/// # Safety
/// The module's contract, for a plan of operands `[out, a]`.
pub(crate) unsafe fn map1<A: Copy + Sync, O: Copy + Send>(
    plan: &Plan<2>,
    out: Out<O>,
    a: Src<A>,
    vectors: impl Width,
    f: impl Kernel1<A, O>,
) {
    let (out, stream) = out.parts(plan.numel());
    map_segments(
        plan,
        stream,
        vectors,
        #[inline(always)]
        |offs, st, len| {
            // SAFETY: offsets and `len` steps of the inner strides stay in bounds
            // by the contract; the output range is written by this segment only.
            unsafe {
                let (o, a) = (out.ptr().add(offs[0]), a.ptr().add(offs[1]));
                match st {
                    [1, 1] => {
                        let a = core::slice::from_raw_parts(a, len);
                        write_run(
                            slice_out(o, len),
                            stream,
                            #[inline(always)]
                            |c, s| f.run(c, &a[s..]),
                        );
                    }
                    // A broadcast input (an expanded tensor made
                    // contiguous): one value, written run-wide (read only
                    // for a run that has elements).
                    [1, 0] if len > 0 => {
                        let v = f.one(*a);
                        write_run(
                            slice_out(o, len),
                            stream,
                            #[inline(always)]
                            |c, _| c.iter_mut().for_each(|d| _ = d.write(v)),
                        );
                    }
                    [so, sa] => {
                        for i in 0..len {
                            o.add(i * so).write(f.one(*a.add(i * sa)));
                        }
                    }
                }
            }
        },
    );
}

/// `out = f(a, b)`, with fast loops for contiguous and stride-0 inputs.
///
/// # Safety
/// The module's contract, for a plan of operands `[out, a, b]`.
pub(crate) unsafe fn map2<A: Copy + Sync, B: Copy + Sync, O: Copy + Send>(
    plan: &Plan<3>,
    out: Out<O>,
    a: Src<A>,
    b: Src<B>,
    vectors: impl Width,
    f: impl Fn(A, B) -> O + Sync,
) {
    let (out, stream) = out.parts(plan.numel());
    map_segments(
        plan,
        stream,
        vectors,
        #[inline(always)]
        |offs, st, len| {
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
                        write_run(
                            slice_out(o, len),
                            stream,
                            #[inline(always)]
                            |c, s| zip2(c, &a[s..], &b[s..], &f),
                        );
                    }
                    [1, 1, 0] => {
                        let (a, y) = (core::slice::from_raw_parts(a, len), *b);
                        write_run(
                            slice_out(o, len),
                            stream,
                            #[inline(always)]
                            |c, s| zip1(c, &a[s..], &with_second(&f, y)),
                        );
                    }
                    [1, 0, 1] => {
                        let (x, b) = (*a, core::slice::from_raw_parts(b, len));
                        write_run(
                            slice_out(o, len),
                            stream,
                            #[inline(always)]
                            |c, s| zip1(c, &b[s..], &with_first(x, &f)),
                        );
                    }
                    [so, sa, sb] => {
                        for i in 0..len {
                            o.add(i * so).write(f(*a.add(i * sa), *b.add(i * sb)));
                        }
                    }
                }
            }
        },
    );
}

/// The elements [`Runs`] repeats a stride-0 input over.
const REPEAT: usize = 512;

/// An input of inner stride 1 or 0 over a segment, as slices of it: its
/// own elements, or its one element repeated [`REPEAT`] times.
struct Runs<A> {
    p: *const A,
    step: usize,
    repeated: [A; REPEAT],
}

impl<A: Copy> Runs<A> {
    /// The input at `p`, of inner stride `step` (1 or 0).
    ///
    /// # Safety
    /// `p` is readable (the segment's first element of the input).
    #[inline(always)]
    unsafe fn new(p: *const A, step: usize) -> Self {
        // SAFETY: the caller's.
        let first = unsafe { *p };
        Runs {
            p,
            step,
            repeated: [first; REPEAT],
        }
    }

    /// The input's elements `at..at + n` of the segment, `n <= REPEAT`.
    ///
    /// # Safety
    /// With stride 1, those elements are readable (inside the segment).
    #[inline(always)]
    unsafe fn run(&self, at: usize, n: usize) -> &[A] {
        if self.step == 0 {
            &self.repeated[..n]
        } else {
            // SAFETY: the caller's.
            unsafe { core::slice::from_raw_parts(self.p.add(at), n) }
        }
    }
}

/// `out = f(a, b, c)`.
///
/// # Safety
/// The module's contract, for a plan of operands `[out, a, b, c]`.
pub(crate) unsafe fn map3<A: Copy + Sync, B: Copy + Sync, C: Copy + Sync, O: Copy + Send>(
    plan: &Plan<4>,
    out: Out<O>,
    a: Src<A>,
    b: Src<B>,
    c: Src<C>,
    vectors: impl Width,
    f: impl Fn(A, B, C) -> O + Sync,
) {
    let (out, stream) = out.parts(plan.numel());
    map_segments(
        plan,
        stream,
        vectors,
        #[inline(always)]
        |offs, st, len| {
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
                        write_run(
                            slice_out(o, len),
                            stream,
                            #[inline(always)]
                            |ch, s| zip3(ch, &a[s..], &b[s..], &c[s..], &f),
                        );
                    }
                    [1, sa, sb, sc] if sa <= 1 && sb <= 1 && sc <= 1 => {
                        // Stride-0 inputs (an expanded upstream gradient, a
                        // broadcast bound) are repeated into buffers once, so
                        // that the loop is the contiguous one, vectorised
                        // (one element at a time, the gradient of `gelu(x)
                        // .sum()` ran at a third of the speed).
                        let (ra, rb, rc) = (Runs::new(a, sa), Runs::new(b, sb), Runs::new(c, sc));
                        write_run(
                            slice_out(o, len),
                            stream,
                            #[inline(always)]
                            |ch, s| {
                                for (k, piece) in ch.chunks_mut(REPEAT).enumerate() {
                                    let (at, n) = (s + k * REPEAT, piece.len());
                                    zip3(piece, ra.run(at, n), rb.run(at, n), rc.run(at, n), &f)
                                }
                            },
                        );
                    }
                    [so, sa, sb, sc] => {
                        for i in 0..len {
                            o.add(i * so)
                                .write(f(*a.add(i * sa), *b.add(i * sb), *c.add(i * sc)));
                        }
                    }
                }
            }
        },
    );
}

/// `out = f(out)` in place.
///
/// # Safety
/// The module's contract, for a plan of operands `[out]`.
pub(crate) unsafe fn update1<O: Copy + Send + Sync>(
    plan: &Plan<1>,
    out: *mut O,
    vectors: impl Width,
    f: impl Kernel1InPlace<O>,
) {
    let out = Dst(out);
    update_segments(
        plan,
        vectors,
        #[inline(always)]
        |offs, st, len| {
            // SAFETY: as in `map1`; the output offsets are distinct.
            unsafe {
                let o = out.ptr().add(offs[0]);
                match st {
                    [1] => f.update(core::slice::from_raw_parts_mut(o, len)),
                    [so] => {
                        for i in 0..len {
                            let p = o.add(i * so);
                            *p = f.one(*p);
                        }
                    }
                }
            }
        },
    );
}

/// `out = f(out, b)` in place.
///
/// # Safety
/// The module's contract, for a plan of operands `[out, b]`.
pub(crate) unsafe fn update2<O: Copy + Send + Sync, B: Copy + Sync>(
    plan: &Plan<2>,
    out: *mut O,
    b: Src<B>,
    vectors: impl Width,
    f: impl Fn(O, B) -> O + Sync,
) {
    let out = Dst(out);
    update_segments(
        plan,
        vectors,
        #[inline(always)]
        |offs, st, len| {
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
        },
    );
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
    vectors: impl Width,
    f: impl Fn(O, B, C) -> O + Sync,
) {
    let out = Dst(out);
    update_segments(
        plan,
        vectors,
        #[inline(always)]
        |offs, st, len| {
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
        },
    );
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
    out: Out<O>,
    a: Src<A>,
    b: Src<B>,
    rows: usize,
    row_len: usize,
    a_is_row: bool,
    vectors: impl Width,
    f: impl Fn(A, B) -> O + Sync,
) {
    let total = rows * row_len;
    let (out, stream) = out.parts(total);
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
        stream,
    };
    pool::par_ranges(total, &|start, end| {
        vectors.run(
            #[inline(always)]
            // SAFETY: the contract; the ranges are disjoint parts of `out`.
            || unsafe { rows.run(start, end, &f) },
        );
        if rows.stream {
            store_fence();
        }
    });
}

/// The operands of [`map2_rows`] after tiling.
struct RowsRun<A, B, O> {
    out: Dst<O>,
    a: Src<A>,
    b: Src<B>,
    row_len: usize,
    a_is_row: bool,
    /// Whether the output is written with streaming stores.
    stream: bool,
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
                write_run(
                    slice_out(o, len),
                    self.stream,
                    #[inline(always)]
                    |c, s| zip2(c, &a[s..], &b[s..], f),
                );
            }
            pos += len;
            j = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iter::{broadcast_strides, contiguous_strides};

    /// A buffer of `n` zeros starting `skip` elements in, so that outputs
    /// start at every alignment.
    fn out_buf(n: usize, skip: usize) -> Vec<f32> {
        vec![0.0; n + skip]
    }

    /// `map3` with stride-0 inputs in each position (an expanded scalar, a
    /// value per row), rows longer than the repeated buffer, written into
    /// a fresh output, with both kinds of vectors: what a naive loop
    /// computes.
    #[test]
    fn map3_repeats_stride_0_inputs() {
        let (rows, cols) = (3, REPEAT * 2 + 77);
        let dims = [rows, cols];
        let full: Vec<f32> = (0..rows * cols).map(|i| (i % 101) as f32 - 50.0).collect();
        let per_row = [1.5f32, -2.0, 0.25];
        let one = [3.0f32];
        let so = contiguous_strides(&dims);
        let (sf, sr, s1) = (so.clone(), [1usize, 0], [0usize, 0]);
        let f = |x: f32, y: f32, z: f32| x * y - z;
        // Operand order (a, b, c) over the three kinds of input.
        let kinds: [(&[usize], *const f32); 3] = [
            (&sf, full.as_ptr()),
            (&sr, per_row.as_ptr()),
            (&s1, one.as_ptr()),
        ];
        let value = |k: usize, i: usize, j: usize| match k {
            0 => full[i * cols + j],
            1 => per_row[i],
            _ => one[0],
        };
        let orders = [[0, 1, 2], [1, 0, 2], [2, 1, 0], [1, 2, 0], [2, 2, 1]];
        for (order, wide) in orders.into_iter().flat_map(|o| [(o, false), (o, true)]) {
            let mut o = vec![0.0f32; rows * cols];
            let plan = Plan::new(
                &dims,
                [
                    (&so, 0),
                    (kinds[order[0]].0, 0),
                    (kinds[order[1]].0, 0),
                    (kinds[order[2]].0, 0),
                ],
            );
            let (a, b, c) = (
                Src(kinds[order[0]].1),
                Src(kinds[order[1]].1),
                Src(kinds[order[2]].1),
            );
            // SAFETY: the plan addresses every element of `o` once, and
            // each input within its length (`rows * cols`, `rows` or 1).
            unsafe {
                let out = Out::Fresh(o.as_mut_ptr());
                if wide {
                    map3(&plan, out, a, b, c, Wide, f)
                } else {
                    map3(&plan, out, a, b, c, Narrow, f)
                }
            };
            for i in 0..rows {
                for j in 0..cols {
                    let want = f(
                        value(order[0], i, j),
                        value(order[1], i, j),
                        value(order[2], i, j),
                    );
                    assert_eq!(o[i * cols + j], want, "{order:?} at ({i}, {j})");
                }
            }
        }
    }

    /// The streamed forms of every `map*` kernel write what a naive loop
    /// computes: broadcast inputs (stride-0 inner loops), outputs longer
    /// than the bounce buffer, at unaligned starts, and a range split over
    /// the pool's threads; with both kinds of vectors.
    #[test]
    fn streamed_kernels_match_a_naive_loop() {
        streamed_kernels_with(Narrow);
        streamed_kernels_with(Wide);
    }

    fn streamed_kernels_with(vectors: impl Width) {
        // (70, 1, 1500) with (1, 3, 1500): inner loops of 1500 elements.
        let (p, q, r) = (70, 3, 1500);
        let a: Vec<f32> = (0..p * r).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..q * r).map(|i| (i % 97) as f32 * 0.5).collect();
        let dims = [p, q, r];
        let sa = broadcast_strides(&[p, 1, r], &[r, r, 1], &dims);
        let sb = broadcast_strides(&[1, q, r], &[q * r, r, 1], &dims);
        let so = contiguous_strides(&dims);
        let n = p * q * r;
        let at = |i: usize, j: usize, k: usize| (a[i * r + k], b[j * r + k]);
        for skip in [0, 1, 3] {
            let mut o = out_buf(n, skip);
            let plan = Plan::new(&dims, [(&so, skip), (&sa, 0), (&sb, 0)]);
            let dst = Out::Streamed(o.as_mut_ptr());
            // SAFETY: the plan addresses `skip..skip + n` of `o` and the
            // inputs within their lengths; nothing overlaps.
            unsafe {
                map2(
                    &plan,
                    dst,
                    Src(a.as_ptr()),
                    Src(b.as_ptr()),
                    vectors,
                    |x, y| x - y,
                )
            };
            for i in 0..p {
                for j in 0..q {
                    for k in 0..r {
                        let (x, y) = at(i, j, k);
                        assert_eq!(o[skip + (i * q + j) * r + k], x - y);
                    }
                }
            }
            // One operand a scalar per row: the `[1, 0, 1]` loop, and `map3`.
            let one = [2.5f32];
            let plan3 = Plan::new(
                &dims,
                [(&so, skip), (&sa, 0), (&[0, 0, 0][..], 0), (&sb, 0)],
            );
            let (sa_, one_, sb_) = (Src(a.as_ptr()), Src(one.as_ptr()), Src(b.as_ptr()));
            let dst = Out::Streamed(o.as_mut_ptr());
            // SAFETY: as above; `one` is read at offset 0 only.
            unsafe { map3(&plan3, dst, sa_, one_, sb_, vectors, |x, w, y| x * w + y) };
            for i in 0..p {
                for j in 0..q {
                    for k in 0..r {
                        let (x, y) = at(i, j, k);
                        assert_eq!(o[skip + (i * q + j) * r + k], x * 2.5 + y);
                    }
                }
            }
        }
        // `map1` over one long contiguous run, and `map2_rows` (a row
        // repeated under a full operand) at an unaligned start.
        let m = 40_001;
        let x: Vec<f32> = (0..m).map(|i| i as f32).collect();
        let mut o = out_buf(m, 1);
        let plan = Plan::new(&[m], [(&[1][..], 1), (&[1][..], 0)]);
        let dst = Out::Streamed(o.as_mut_ptr());
        // SAFETY: `m` elements from offset 1 of `o`, `m` of `x`.
        unsafe { map1(&plan, dst, Src(x.as_ptr()), vectors, |v| v * 3.0) };
        assert!((0..m).all(|i| o[1 + i] == x[i] * 3.0));
        let (rows, row_len) = (31, 1290);
        let row: Vec<f32> = (0..row_len).map(|i| -(i as f32)).collect();
        let dst = Out::Streamed(o[1..].as_mut_ptr());
        // SAFETY: `rows * row_len <= m` elements of `o` after the first
        // and of `x`, `row_len` of `row`.
        unsafe {
            map2_rows(
                dst,
                Src(x.as_ptr()),
                Src(row.as_ptr()),
                rows,
                row_len,
                false,
                vectors,
                |u, v| u + v,
            )
        };
        assert!((0..rows * row_len).all(|i| o[1 + i] == x[i] + row[i % row_len]));
    }
}
