//! The CPU's direct kernels for the windows of convolutions and poolings
//! ([`Windows`](crate::backend::windows::Windows), dispatched in
//! `windows_dispatch.rs`): im2col and col2im without a padded copy of the
//! input, and the depthwise convolution with its two gradients. Each works one
//! `(sample, channel)` plane at a time, planes spread over the pool; rows
//! inside a plane are contiguous slices where the stride is 1, which the
//! compiler vectorises. A depthwise convolution of stride 1 by 3x3, 5x5 or
//! 7x7 taps reads a zero-padded copy of each plane instead, and sums each
//! output's taps in one pass ([`depthwise_padded`]).

use core::mem::MaybeUninit;

use super::exec::{Layout, with_elements};
use super::isa::Vectors;
use super::pool;
use super::primitives::whole;
use super::storage::Storage;
use super::store::prefetch_lines;
use crate::backend::Output;
use crate::backend::windows::Window;
use crate::element::Numeric;
use crate::shape::ShapeError;

/// A kernel's result: a new storage and its sizes.
type Fresh<T> = Result<Output<Storage<T>>, ShapeError>;

/// An output buffer shared by the tiles, each writing its own planes.
#[derive(Clone, Copy)]
pub(super) struct Out<T>(pub(super) *mut T);
// SAFETY: the tiles write disjoint planes of a buffer that outlives the
// pool call running them.
unsafe impl<T: Send> Send for Out<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Out<T> {}

impl<T> Out<T> {
    /// The pointer (a method, so closures capture the `Sync` wrapper).
    pub(super) fn ptr(self) -> *mut T {
        self.0
    }
}

/// Runs `f(plane)` for every plane in `0..planes`, spread over the pool,
/// with `work` elements touched per plane.
pub(super) fn planes(planes: usize, work: usize, f: &(dyn Fn(usize) + Sync)) {
    let tiles = if planes * work < pool::GRAIN {
        1
    } else {
        planes.min(pool::threads() * 4)
    };
    pool::for_each_tile(tiles, &|t| {
        for p in t * planes / tiles..(t + 1) * planes / tiles {
            f(p);
        }
    });
}

/// A new contiguous storage of sizes `dims` whose planes of `plane`
/// elements `fill(p, plane)` adds to, each plane zeroed first.
fn planes_out<T: Numeric>(
    dims: &[usize],
    plane: usize,
    work: usize,
    fill: &(dyn Fn(usize, &mut [T]) + Sync),
) -> Fresh<T> {
    planes_written(dims, plane, work, &|p, raw| {
        fill(p, zeroed(raw));
    })
}

/// `raw` with every element set to zero, as initialised elements.
fn zeroed<T: Numeric>(raw: &mut [MaybeUninit<T>]) -> &mut [T] {
    raw.fill(MaybeUninit::new(T::zero()));
    // SAFETY: every element was written just above.
    unsafe { &mut *(raw as *mut [MaybeUninit<T>] as *mut [T]) }
}

/// A new contiguous storage of sizes `dims` whose planes of `plane`
/// elements `fill(p, plane)` writes, every element of each (a kernel that
/// writes whole planes skips [`planes_out`]'s zeroing: 7% of a depthwise
/// forward's samples on AMD EPYC Zen 5).
fn planes_written<T: Numeric>(
    dims: &[usize],
    plane: usize,
    work: usize,
    fill: &(dyn Fn(usize, &mut [MaybeUninit<T>]) + Sync),
) -> Fresh<T> {
    let numel: usize = dims.iter().product();
    let count = numel.checked_div(plane).unwrap_or(0);
    // SAFETY: the buffer has `numel` elements; plane `p` is
    // `p * plane..(p + 1) * plane`, inside it, and the planes are handed
    // out once each, to one tile, so no two slices alias. `fill` writes
    // every element of each plane (its contract), so every element is
    // written.
    let data = unsafe {
        super::try_alloc_filled_by(dims, |o: *mut T| {
            let out = Out(o);
            planes(count, work.max(plane), &|p| {
                let raw = core::slice::from_raw_parts_mut(
                    out.ptr().add(p * plane) as *mut MaybeUninit<T>,
                    plane,
                );
                fill(p, raw);
            });
        })
    }?;
    Ok(whole(data, dims))
}

/// `x`'s elements and layout, `(N, C, H, W)`.
pub(super) struct Plane4<'a, T> {
    pub(super) x: &'a [T],
    pub(super) strides: [usize; 4],
    offset: usize,
    channels: usize,
}

impl<'a, T: Numeric> Plane4<'a, T> {
    /// The elements `x` of the storage of the `(N, C, H, W)` layout `l`.
    pub(super) fn of(x: &'a [T], l: &Layout<'_, T>) -> Self {
        Plane4 {
            x,
            strides: [l.strides[0], l.strides[1], l.strides[2], l.strides[3]],
            offset: l.offset,
            channels: l.dims[1].max(1),
        }
    }

    /// Element `(r, c)` of plane `(n, ch)`.
    #[inline(always)]
    pub(super) fn at(&self, base: usize, r: usize, c: usize) -> T {
        self.x[base + r * self.strides[2] + c * self.strides[3]]
    }

    /// The offset of plane `p` (`p = n·C + ch`).
    pub(super) fn base(&self, p: usize) -> usize {
        self.offset + (p / self.channels) * self.strides[0] + (p % self.channels) * self.strides[1]
    }
}

/// `dst[q] = src(p)` along one output row: windows `0..n` of which `lo..hi`
/// read input column `c0 + (q - lo)·step`, the rest `pad`.
#[inline(always)]
fn gather_row<T: Numeric>(
    dst: &mut [T],
    (lo, hi, c0): (usize, usize, usize),
    step: usize,
    pad: T,
    read: impl Fn(usize) -> T,
) {
    dst[..lo].fill(pad);
    dst[hi..].fill(pad);
    for (k, d) in dst[lo..hi].iter_mut().enumerate() {
        *d = read(c0 + k * step);
    }
}

pub(super) fn im2col<T: Numeric>(l: Layout<'_, T>, w: &Window, pad: T) -> Fresh<T> {
    let g = l.storage.read();
    let (n, c) = (l.dims[0], l.dims[1]);
    let src = Plane4::of(&g, &l);
    let [kh, kw] = w.kernel;
    let [oh, ow] = w.output;
    let plane = kh * kw * oh * ow;
    let unit = w.stride[1] == 1 && src.strides[3] == 1;
    planes_out(&[n, c, kh, kw, oh, ow], plane, plane, &|p, out| {
        // The widest vectors this CPU has (AVX2 rather than the SSE2
        // baseline) for the row loops, inlined into this closure.
        Vectors::Widest.run(
            #[inline(always)]
            || {
                let base = src.base(p);
                for i in 0..kh {
                    let rows = w.inside(0, i);
                    for j in 0..kw {
                        let cols = w.inside(1, j);
                        let block = &mut out[(i * kw + j) * oh * ow..][..oh * ow];
                        for (r, row) in block.chunks_exact_mut(ow.max(1)).enumerate().take(oh) {
                            if r < rows.0 || r >= rows.1 {
                                row.fill(pad);
                                continue;
                            }
                            let ih = rows.2 + (r - rows.0) * w.stride[0];
                            if unit {
                                // A contiguous run of the input row.
                                let (lo, hi, c0) = cols;
                                row[..lo].fill(pad);
                                row[hi..].fill(pad);
                                let from = base + ih * src.strides[2] + c0;
                                row[lo..hi].copy_from_slice(&src.x[from..from + hi - lo]);
                            } else {
                                gather_row(row, cols, w.stride[1], pad, |iw| src.at(base, ih, iw));
                            }
                        }
                    }
                }
            },
        )
    })
}

/// Adds `scale · from[r, q]` (a plane of `oh × ow` windows) into `out`
/// (an input plane, `H × W`) at the position that window `(r, q)` reads
/// for kernel offset `(i, j)`, for the windows whose element lies inside
/// the input: col2im's step (`scale` 1), and the depthwise gradient's
/// (`scale` the tap).
#[inline(always)]
fn scatter_tap<T: Numeric>(
    out: &mut [T],
    from: &[T],
    w: &Window,
    (i, j): (usize, usize),
    scale: T,
) {
    let (lo, hi, c0) = w.inside(1, j);
    let (ow, wd, step) = (w.output[1], w.input[1], w.stride[1]);
    for (r, ih) in w.inside_rows(i) {
        let dst = &mut out[ih * wd..][..wd];
        let row = &from[r * ow + lo..r * ow + hi];
        if step == 1 {
            for (d, &v) in dst[c0..c0 + row.len()].iter_mut().zip(row) {
                *d = *d + scale * v;
            }
        } else {
            for (k, &v) in row.iter().enumerate() {
                let d = &mut dst[c0 + k * step];
                *d = *d + scale * v;
            }
        }
    }
}

pub(super) fn col2im<T: Numeric>(cols: Layout<'_, T>, w: &Window) -> Fresh<T> {
    with_elements(cols, |src| col2im_of(src, cols.dims, w))?
}

/// [`col2im`] of the row-major elements `src` of sizes `dims`.
pub(super) fn col2im_of<T: Numeric>(src: &[T], dims: &[usize], w: &Window) -> Fresh<T> {
    let (n, c) = (dims[0], dims[1]);
    let [kh, kw] = w.kernel;
    let [oh, ow] = w.output;
    let [h, wd] = w.input;
    let plane_in = kh * kw * oh * ow;
    planes_out(&[n, c, h, wd], h * wd, plane_in, &|p, out| {
        // The widest vectors this CPU has (AVX2 rather than the SSE2
        // baseline) for the row loops, inlined into this closure.
        Vectors::Widest.run(
            #[inline(always)]
            || {
                let from = &src[p * plane_in..][..plane_in];
                for i in 0..kh {
                    for j in 0..kw {
                        let block = &from[(i * kw + j) * oh * ow..][..oh * ow];
                        scatter_tap(out, block, w, (i, j), T::one());
                    }
                }
            },
        )
    })
}

pub(super) fn depthwise<T: Numeric>(
    l: Layout<'_, T>,
    weight: Layout<'_, T>,
    w: &Window,
) -> Fresh<T> {
    with_elements(weight, |taps| depthwise_by(l, taps, weight.dims[0], w))?
}

/// [`depthwise`] by the row-major `(o, 1, kh, kw)` taps `taps`.
fn depthwise_by<T: Numeric>(l: Layout<'_, T>, taps: &[T], o: usize, w: &Window) -> Fresh<T> {
    let g = l.storage.read();
    let (n, c) = (l.dims[0], l.dims[1]);
    let mult = o / c.max(1);
    let src = Plane4::of(&g, &l);
    let [kh, kw] = w.kernel;
    let [oh, ow] = w.output;
    let unit = w.stride[1] == 1 && src.strides[3] == 1;
    if w.stride == [1, 1] {
        let planar: Option<Planar<T>> = match kh * kw {
            9 => Some(depthwise_padded::<T, 9>),
            25 => Some(depthwise_padded::<T, 25>),
            49 => Some(depthwise_padded::<T, 49>),
            _ => None,
        };
        if let Some(planar) = planar {
            return planes_written(&[n, o, oh, ow], oh * ow, oh * ow * kh * kw, &|p, out| {
                let (b, oc) = (p / o.max(1), p % o.max(1));
                let base = src.base(b * c + oc / mult.max(1));
                let t = &taps[oc * kh * kw..][..kh * kw];
                if t.iter().all(|&x| x.to_f64().is_finite()) {
                    planar(&src, base, t, w, out);
                } else {
                    // A padded zero times an infinite or NaN tap would be
                    // NaN; the row loops below skip the padding instead.
                    depthwise_rows(&src, base, t, w, unit, zeroed(out));
                }
            });
        }
    }
    planes_out(&[n, o, oh, ow], oh * ow, oh * ow * kh * kw, &|p, out| {
        let (b, oc) = (p / o.max(1), p % o.max(1));
        let base = src.base(b * c + oc / mult.max(1));
        depthwise_rows(&src, base, &taps[oc * kh * kw..][..kh * kw], w, unit, out);
    })
}

/// Outputs per chunk of [`depthwise_padded`]'s rows: one AVX-512 register
/// of `f32`.
pub(super) const LANES: usize = 16;

/// A plane of a depthwise convolution of stride 1 by `K` taps:
/// `(input, plane offset, taps, window, output plane)`.
type Planar<T> = fn(&Plane4<'_, T>, usize, &[T], &Window, &mut [MaybeUninit<T>]);

/// The input plane at `base`, zero-padded by the window's padding, row-major
/// with rows of `w.padded(1)` elements, and at least [`LANES`] more zeros
/// after the last row (so that a run of `LANES` from any element of it
/// stays inside).
fn padded_plane<T: Numeric>(src: &Plane4<'_, T>, base: usize, w: &Window) -> Vec<T> {
    let mut pad = Vec::new();
    fill_padded(&mut pad, src, base, w);
    pad
}

/// Replaces the elements of `pad` by a [`padded_plane`] of the input plane
/// at `base`, reusing its buffer.
pub(super) fn fill_padded<T: Numeric>(
    pad: &mut Vec<T>,
    src: &Plane4<'_, T>,
    base: usize,
    w: &Window,
) {
    let len = w.padded(0) * w.padded(1) + LANES + w.before[1];
    pad.clear();
    pad.reserve(len);
    pad_plane_into(src, base, w, &mut pad.spare_capacity_mut()[..len]);
    // SAFETY: `pad_plane_into` wrote every one of the first `len` elements.
    unsafe { pad.set_len(len) };
}

/// Writes every element of `dst` (at least `w.padded(0)·w.padded(1)`
/// long): the input plane at `base` zero-padded by the window's padding,
/// rows of `w.padded(1)`, then zeros to `dst`'s end. Each element is
/// written once, the zeros around a row with the row.
///
/// # Panics
/// When `dst` is shorter than the padded plane plus `w.before[1]` (the
/// left padding of the row after the last, which the zeros after the
/// last row hold).
pub(super) fn pad_plane_into<T: Numeric>(
    src: &Plane4<'_, T>,
    base: usize,
    w: &Window,
    dst: &mut [MaybeUninit<T>],
) {
    let pw = w.padded(1);
    let [ih, iw] = w.input;
    let (top, left) = (w.before[0] * pw, w.before[1]);
    let zero = MaybeUninit::new(T::zero());
    dst[..top + left].fill(zero);
    for r in 0..ih {
        let at = top + r * pw + left;
        let row = &mut dst[at..][..iw];
        if src.strides[3] == 1 {
            let from = &src.x[base + r * src.strides[2]..][..iw];
            for (d, &v) in row.iter_mut().zip(from) {
                *d = MaybeUninit::new(v);
            }
        } else if src.strides[3] == 0 {
            // A row expanded from one element (a `sum`'s gradient): one
            // read, then a fill the compiler vectorises.
            row.fill(MaybeUninit::new(src.at(base, r, 0)));
        } else {
            for (q, d) in row.iter_mut().enumerate() {
                *d = MaybeUninit::new(src.at(base, r, q));
            }
        }
        dst[at + iw..at + pw].fill(zero);
    }
    dst[top + ih * pw + left..].fill(zero);
}

/// Where each of the `K = kh * kw` taps reads a [`padded_plane`], from the
/// element under output `(0, 0)`'s first tap.
fn tap_offsets<const K: usize>(w: &Window) -> [usize; K] {
    let kw = w.kernel[1];
    debug_assert_eq!(w.kernel[0] * kw, K);
    let pw = w.padded(1);
    let mut offs = [0usize; K];
    for (k, o) in offs.iter_mut().enumerate() {
        *o = (k / kw) * w.dilation[0] * pw + (k % kw) * w.dilation[1];
    }
    offs
}

/// One output plane of a stride-1 depthwise convolution by `K = kh * kw`
/// finite taps, from a zero-padded copy of the input plane: each output
/// element is the sum of its `K` products in one pass (in the row loops'
/// order, tap row by tap row, each by a fused multiply-add as there, so
/// the values are theirs), a row at a time.
/// The row loops ([`depthwise_rows`]) instead add one tap over the plane
/// at a time, `K` passes over 56-element rows whose loop tails cost as
/// much as their vectors. Rows of at least [`LANES`] outputs go by chunks
/// of `LANES`, the last one moved back to end at the row's end, so no row
/// has a loop tail. `(8, 64, 56, 56)` by 3x3 taps, padding 1, `f32`, 2
/// threads, AMD EPYC Zen 5: 1.01-1.14 ms median with the row loops,
/// 0.57-0.63 ms this way (three runs each; PyTorch 0.56-0.66 ms).
fn depthwise_padded<T: Numeric, const K: usize>(
    src: &Plane4<'_, T>,
    base: usize,
    taps: &[T],
    w: &Window,
    out: &mut [MaybeUninit<T>],
) {
    let pad = padded_plane(src, base, w);
    let ahead = ReadAhead::next_plane(src, base, w.input[0], w.output[0]);
    padded_sums::<T, K>(&pad, taps, w, out, &ahead);
}

/// The output plane `out` of [`depthwise_padded`] from the padded plane
/// `pad` ([`padded_plane`]), asking `ahead` for a slice of the next plane
/// per output row.
pub(super) fn padded_sums<T: Numeric, const K: usize>(
    pad: &[T],
    taps: &[T],
    w: &Window,
    out: &mut [MaybeUninit<T>],
    ahead: &ReadAhead,
) {
    let [oh, ow] = w.output;
    let pw = w.padded(1);
    let taps: &[T; K] = taps.try_into().expect("K = kh * kw taps");
    let offs = tap_offsets::<K>(w);
    // The widest vectors this CPU has for the loop over a row's outputs,
    // the `K` taps unrolled inside it.
    Vectors::Widest.run(
        #[inline(always)]
        || {
            for (r, dst) in out.chunks_exact_mut(ow).take(oh).enumerate() {
                ahead.row(r);
                let from = &pad[r * pw..];
                if ow < LANES {
                    for (q, d) in dst.iter_mut().enumerate() {
                        *d = MaybeUninit::new(
                            (0..K).fold(T::zero(), |acc, k| acc + taps[k] * from[offs[k] + q]),
                        );
                    }
                    continue;
                }
                // Chunks of `LANES` outputs, the last one moved back to end
                // at the row's end (its first outputs computed twice, the
                // same values): no loop tail. Several chunks at once, so
                // that their sums are independent chains of additions.
                if core::mem::size_of::<T>() <= 4 {
                    chunk_sums::<T, K, 4>(from, taps, &offs, dst);
                } else {
                    chunk_sums::<T, K, 2>(from, taps, &offs, dst);
                }
            }
        },
    )
}

/// The input plane after the one a kernel is computing (the next channel's,
/// where planes go by channel), asked into the cache a slice per output
/// row while the current plane computes from its L1-resident copy, so
/// that the next plane's copy finds its lines arriving or arrived instead
/// of waiting on memory with nothing else to do.
pub(super) struct ReadAhead {
    start: *const u8,
    /// Bytes asked for per output row.
    per_row: usize,
    /// Bytes of the plane.
    bytes: usize,
}

impl ReadAhead {
    /// The plane after `base`'s in `src` (`h` rows), in `rows` slices.
    fn next_plane<T>(src: &Plane4<'_, T>, base: usize, h: usize, rows: usize) -> Self {
        Self::plane(src, base + src.strides[1], h, rows)
    }

    /// The plane at `base` in `src` (`h` rows), in `rows` slices.
    pub(super) fn plane<T>(src: &Plane4<'_, T>, base: usize, h: usize, rows: usize) -> Self {
        let size = core::mem::size_of::<T>();
        // Rows of a plane that is contiguous along them; any other layout
        // asks for nothing.
        let bytes = if src.strides[3] == 1 {
            h * src.strides[2] * size
        } else {
            0
        };
        ReadAhead {
            start: src.x.as_ptr().wrapping_add(base) as *const u8,
            per_row: bytes.div_ceil(rows.max(1)).next_multiple_of(64),
            bytes,
        }
    }

    /// Asks for output row `r`'s slice of the plane.
    #[inline(always)]
    fn row(&self, r: usize) {
        let (from, end) = (r * self.per_row, ((r + 1) * self.per_row).min(self.bytes));
        if from < end {
            prefetch_lines(self.start.wrapping_add(from), end - from);
        }
    }
}

/// One output row `dst` (at least [`LANES`] long) of [`depthwise_padded`]
/// from the padded input `from` at the row's first tap: chunks of
/// `LANES` outputs, the last one moved back to end at the row's end, `G`
/// chunks per pass (`G·LANES` accumulators in registers: eight AVX2
/// registers of `f32` for `G = 4`), so the `K` additions of each output
/// run in `G` independent chains instead of one. Each output is still the
/// sum of its products in tap order, each added by a fused multiply-add
/// ([`madd`]), so the values are those of one chain; a pass
/// past the row's end repeats its last chunk (the same values, written
/// again). `(8, 64, 56, 56)` by 3x3 taps, `f32`, 2 threads, AMD EPYC
/// family 25 (Zen 3): see `benches/README.md`.
#[inline(always)]
fn chunk_sums<T: Numeric, const K: usize, const G: usize>(
    from: &[T],
    taps: &[T; K],
    offs: &[usize; K],
    dst: &mut [MaybeUninit<T>],
) {
    let ow = dst.len();
    let last = ow - LANES;
    // One bounds check per row, not one per tap and chunk: every tap's
    // `ow` elements lie in `from`. (The checks per chunk were about 150
    // scalar instructions and 50 branches beside each pass's 72 vector
    // multiply-adds, 3x3 taps of `f32`.)
    let reach = offs.iter().max().map_or(0, |&m| m + ow);
    assert!(
        reach <= from.len(),
        "a tap's row runs past the padded plane"
    );
    let mut q = 0;
    loop {
        let mut at = [0usize; G];
        for (g, a) in at.iter_mut().enumerate() {
            *a = (q + g * LANES).min(last);
        }
        let mut acc = [[T::zero(); LANES]; G];
        for k in 0..K {
            let t = taps[k];
            for (a, &at) in acc.iter_mut().zip(&at) {
                // SAFETY: `at + LANES <= last + LANES = ow` and
                // `offs[k] + ow <= reach <= from.len()` (asserted above),
                // so the `LANES` elements from `offs[k] + at` are in `from`.
                let x: &[T; LANES] = unsafe { &*from.as_ptr().add(offs[k] + at).cast() };
                for (a, &v) in a.iter_mut().zip(x) {
                    *a = madd(*a, t, v);
                }
            }
        }
        for (a, &at) in acc.iter().zip(&at) {
            for (d, &v) in dst[at..at + LANES].iter_mut().zip(a) {
                *d = MaybeUninit::new(v);
            }
        }
        if at[G - 1] == last {
            break;
        }
        q += G * LANES;
    }
}

/// `a + t·v` rounded once (a fused multiply-add, `mul_add`) for `f32` and
/// `f64`, as oneDNN's kernels compute; `a + t * v` for the other element
/// types. Inlined into a [`Vectors::Widest`] closure on a processor with
/// FMA it is one `vfmadd` per vector: half the instructions of a
/// multiply and an add, each sum rounded once instead of twice. The value
/// is the same on every path, since `mul_add` is exactly rounded
/// everywhere; but where the loops are not compiled for FMA (an x86-64
/// without AVX2 and FMA, or `SHAPED_ISA=base`) each one is a call to the
/// C library's `fma`, several times slower than the multiply and add it
/// replaces. aarch64 has the instruction in its baseline.
#[inline(always)]
fn madd<T: Numeric>(a: T, t: T, v: T) -> T {
    use core::any::TypeId;
    use core::mem::transmute_copy as bits;
    if TypeId::of::<T>() == TypeId::of::<f32>() {
        // SAFETY: `T` is `f32` (same size and bits), both ways.
        unsafe { bits(&f32::mul_add(bits::<T, f32>(&t), bits(&v), bits(&a))) }
    } else if TypeId::of::<T>() == TypeId::of::<f64>() {
        // SAFETY: `T` is `f64` (same size and bits), both ways.
        unsafe { bits(&f64::mul_add(bits::<T, f64>(&t), bits(&v), bits(&a))) }
    } else {
        a + t * v
    }
}

/// One output plane of a depthwise convolution by the taps `taps` of its
/// channel, added tap by tap over the rows inside the input by fused
/// multiply-adds ([`madd`], as [`depthwise_padded`]) (any stride;
/// `unit`: the stride along a row and the input's inner stride are 1).
fn depthwise_rows<T: Numeric>(
    src: &Plane4<'_, T>,
    base: usize,
    taps: &[T],
    w: &Window,
    unit: bool,
    out: &mut [T],
) {
    let [kh, kw] = w.kernel;
    let ow = w.output[1];
    // The widest vectors this CPU has (AVX2 rather than the SSE2
    // baseline) for the row loops, inlined into this closure.
    Vectors::Widest.run(
        #[inline(always)]
        || {
            for i in 0..kh {
                for j in 0..kw {
                    let (lo, hi, c0) = w.inside(1, j);
                    let tap = taps[i * kw + j];
                    for (r, ih) in w.inside_rows(i) {
                        let dst = &mut out[r * ow + lo..r * ow + hi];
                        if unit {
                            let row = &src.x[base + ih * src.strides[2] + c0..][..dst.len()];
                            for (d, &v) in dst.iter_mut().zip(row) {
                                *d = madd(*d, tap, v);
                            }
                        } else {
                            for (k, d) in dst.iter_mut().enumerate() {
                                *d = madd(*d, tap, src.at(base, ih, c0 + k * w.stride[1]));
                            }
                        }
                    }
                }
            }
        },
    )
}

pub(super) fn depthwise_grad_input<T: Numeric>(
    g: Layout<'_, T>,
    weight: Layout<'_, T>,
    w: &Window,
    c: usize,
) -> Fresh<T> {
    with_elements(g, |grad| {
        with_elements(weight, |taps| grad_input_of(grad, g.dims, taps, w, c))?
    })?
}

/// [`depthwise_grad_input`] of the row-major gradient `grad` of sizes
/// `dims` and taps `taps`.
fn grad_input_of<T: Numeric>(
    grad: &[T],
    dims: &[usize],
    taps: &[T],
    w: &Window,
    c: usize,
) -> Fresh<T> {
    let (n, o) = (dims[0], dims[1]);
    let mult = o / c.max(1);
    let [kh, kw] = w.kernel;
    let [oh, ow] = w.output;
    let [h, wd] = w.input;
    if let Some(fresh) = grad_input_padded(grad, dims, taps, w, c) {
        return fresh;
    }
    planes_out(
        &[n, c, h, wd],
        h * wd,
        mult * oh * ow * kh * kw,
        &|p, out| {
            // The widest vectors this CPU has (AVX2 rather than the SSE2
            // baseline) for the row loops, inlined into this closure.
            Vectors::Widest.run(
                #[inline(always)]
                || {
                    let (b, ic) = (p / c.max(1), p % c.max(1));
                    for oc in ic * mult..(ic + 1) * mult {
                        let from = &grad[(b * o + oc) * oh * ow..][..oh * ow];
                        for i in 0..kh {
                            for j in 0..kw {
                                let tap = taps[(oc * kh + i) * kw + j];
                                scatter_tap(out, from, w, (i, j), tap);
                            }
                        }
                    }
                },
            )
        },
    )
}

/// [`grad_input_of`] for a stride-1 window with one filter per channel and
/// `K` of 9, 25 or 49 taps: the forward kernel [`depthwise_padded`] run on
/// the gradient's planes with the taps turned by 180° and the transposed
/// window (padding `dilation * (k - 1)` less the forward's, on each side),
/// whose outputs are the input's positions: each input gradient the sum of
/// its `K` products in one pass, instead of `K` passes adding one tap each.
/// `None` where that does not apply (other strides or tap counts, several
/// filters per channel, a padding wider than the dilated kernel); a plane
/// whose taps are not all finite takes the tap-by-tap loops (which skip
/// the padding, so no `0 * inf`).
fn grad_input_padded<T: Numeric>(
    grad: &[T],
    dims: &[usize],
    taps: &[T],
    w: &Window,
    c: usize,
) -> Option<Fresh<T>> {
    let (n, o) = (dims[0], dims[1]);
    let [kh, kw] = w.kernel;
    if o != c {
        return None;
    }
    let turned = turned(w)?;
    let planar: Planar<T> = match kh * kw {
        9 => depthwise_padded::<T, 9>,
        25 => depthwise_padded::<T, 25>,
        49 => depthwise_padded::<T, 49>,
        _ => return None,
    };
    let k = kh * kw;
    let flipped = flipped(taps, k);
    let [oh, ow] = w.output;
    let src = Plane4 {
        x: grad,
        strides: [o * oh * ow, oh * ow, ow, 1],
        offset: 0,
        channels: o.max(1),
    };
    let [h, wd] = w.input;
    Some(planes_written(
        &[n, c, h, wd],
        h * wd,
        h * wd * k,
        &|p, out| {
            let ch = p % c.max(1);
            let t = &flipped[ch * k..][..k];
            if t.iter().all(|&x| x.to_f64().is_finite()) {
                planar(&src, src.base(p), t, &turned, out);
            } else {
                let out = zeroed(out);
                for i in 0..kh {
                    for j in 0..kw {
                        let from = &grad[p * oh * ow..][..oh * ow];
                        scatter_tap(out, from, w, (i, j), taps[(ch * kh + i) * kw + j]);
                    }
                }
            }
        },
    ))
}

/// The window whose stride-1 depthwise convolution of the output's
/// gradient, by the taps turned by 180° ([`flipped`]), is the input's
/// gradient: the forward's kernel, padding `dilation * (k - 1)` less the
/// forward's on each side, the input and output sizes swapped. `None`
/// for a stride other than 1 or a side padded by more than the dilated
/// kernel.
pub(super) fn turned(w: &Window) -> Option<Window> {
    let [kh, kw] = w.kernel;
    let reach = [w.dilation[0] * (kh - 1), w.dilation[1] * (kw - 1)];
    let fits = (0..2).all(|a| w.before[a] <= reach[a] && w.after[a] <= reach[a]);
    (w.stride == [1, 1] && fits).then_some(Window {
        kernel: w.kernel,
        stride: [1, 1],
        dilation: w.dilation,
        before: [reach[0] - w.before[0], reach[1] - w.before[1]],
        after: [reach[0] - w.after[0], reach[1] - w.after[1]],
        input: w.output,
        output: w.input,
    })
}

/// The filters of `k` taps in `taps`, each turned by 180°: tap `(i, j)` at
/// `(kh - 1 - i, kw - 1 - j)`.
pub(super) fn flipped<T: Numeric>(taps: &[T], k: usize) -> Vec<T> {
    (0..taps.len())
        .map(|t| taps[t / k * k + (k - 1 - t % k)])
        .collect()
}

pub(super) fn depthwise_grad_weight<T: Numeric>(
    g: Layout<'_, T>,
    l: Layout<'_, T>,
    w: &Window,
) -> Fresh<T> {
    with_elements(g, |grad| grad_weight_of(grad, g.dims[1], l, w))?
}

/// [`depthwise_grad_weight`] of the row-major gradient `grad` with `o`
/// channels.
fn grad_weight_of<T: Numeric>(grad: &[T], o: usize, l: Layout<'_, T>, w: &Window) -> Fresh<T> {
    let xg = l.storage.read();
    let (n, c) = (l.dims[0], l.dims[1]);
    let src = Plane4::of(&xg, &l);
    let [kh, kw] = w.kernel;
    let [oh, ow] = w.output;
    let ch = Channels {
        grad,
        n,
        c,
        o,
        mult: (o / c.max(1)).max(1),
    };
    let planar: Option<PlanarGrad<T>> = match (w.stride, kh * kw) {
        ([1, 1], 9) => Some(grad_weight_padded::<T, 9>),
        ([1, 1], 25) => Some(grad_weight_padded::<T, 25>),
        ([1, 1], 49) => Some(grad_weight_padded::<T, 49>),
        _ => None,
    };
    // One plane per output channel: its `kh × kw` taps, each a sum over
    // the batch and the windows, accumulated in f64.
    planes_out(
        &[o, 1, kh, kw],
        kh * kw,
        n * oh * ow * kh * kw,
        &|oc, out| {
            if !planar.is_some_and(|p| p(&src, &ch, oc, w, out)) {
                grad_weight_rows(&src, &ch, oc, w, out);
            }
        },
    )
}

/// The operands of a depthwise weight gradient: the row-major gradient of
/// `(n, o, oh, ow)`, and the input's `c` channels, `mult = o / c` output
/// channels to each.
struct Channels<'a, T> {
    grad: &'a [T],
    n: usize,
    c: usize,
    o: usize,
    mult: usize,
}

impl<T> Channels<'_, T> {
    /// The gradient plane of batch element `b` and output channel `oc`, and
    /// the input plane's number in `src`.
    fn planes(&self, b: usize, oc: usize, plane: usize) -> (&[T], usize) {
        let g = &self.grad[(b * self.o + oc) * plane..][..plane];
        (g, b * self.c + oc / self.mult)
    }
}

/// The weight gradient of one output channel, by `K` taps, for a stride-1
/// window: `(input, operands, channel, window, its taps out)`; `false`
/// when a sum was not finite (nothing is written then).
type PlanarGrad<T> = fn(&Plane4<'_, T>, &Channels<'_, T>, usize, &Window, &mut [T]) -> bool;

/// Rows of a plane summed in `T` lanes before the lanes are added into the
/// `f64` totals: each lane then holds a few dozen products, as the row
/// loops' per-row sums do.
const FLUSH_ROWS: usize = 4;

/// The weight gradient of output channel `oc` of a stride-1 depthwise
/// convolution by `K = kh * kw` taps, from zero-padded copies of its input
/// planes ([`padded_plane`]): each tap's sum `Σ g[r][q] · x[r + i][q + j]`
/// over every output, three taps per pass over the gradient's rows
/// ([`tap_sums`]), in runs of `LANES` (the gradient's rows padded with
/// zeros to whole runs, so no run has a loop tail), summed in `T` lanes
/// for [`FLUSH_ROWS`] rows, then lane by lane into `f64` totals, whose
/// lanes are added once at the end. The padded zeros add `0 · g`
/// and the zero gradients `0 · x`, which are 0 unless `g` or `x` is
/// infinite or NaN; a sum that is not finite returns `false`, and the
/// caller recomputes the channel with the row loops, which skip the
/// padding. `(8, 64, 56, 56)` by 3x3 taps, padding 1, `f32`, 2 threads:
/// see `benches/README.md` (AMD EPYC Zen 5, and Zen 3 for the three taps
/// per pass).
fn grad_weight_padded<T: Numeric, const K: usize>(
    src: &Plane4<'_, T>,
    ch: &Channels<'_, T>,
    oc: usize,
    w: &Window,
    out: &mut [T],
) -> bool {
    let [oh, ow] = w.output;
    let mut sums = TapTotals::<K>::new(w);
    // The gradient's rows padded with zeros to whole runs of `LANES`.
    let gw = runs(ow);
    let mut gpad = vec![T::zero(); oh * gw];
    let mut pad = Vec::new();
    for b in 0..ch.n {
        let (g, plane) = ch.planes(b, oc, oh * ow);
        for (d, r) in gpad.chunks_exact_mut(gw).zip(g.chunks_exact(ow)) {
            d[..ow].copy_from_slice(r);
        }
        fill_padded(&mut pad, src, src.base(plane), w);
        sums.add(&gpad, &pad, w);
    }
    sums.write(out)
}

/// `n` rounded up to whole runs of [`LANES`].
pub(super) fn runs(n: usize) -> usize {
    n.div_ceil(LANES) * LANES
}

/// The `K` taps' sums of a stride-1 depthwise weight gradient over the
/// planes added so far: per tap, [`LANES`] lanes of `f64` totals, summed
/// once at the end.
pub(super) struct TapTotals<const K: usize> {
    total: [[f64; LANES]; K],
    offs: [usize; K],
}

impl<const K: usize> TapTotals<K> {
    /// No planes yet, for the window `w` (of `K` taps).
    pub(super) fn new(w: &Window) -> Self {
        TapTotals {
            total: [[0.0; LANES]; K],
            offs: tap_offsets::<K>(w),
        }
    }

    /// Adds each tap's `Σ g[r][q] · x[r + i][q + j]` over one plane: the
    /// gradient's rows `gpad` (each padded with zeros to [`runs`] of its
    /// `ow`) and the input's [`padded_plane`] `pad`, three taps per pass
    /// over the gradient's rows ([`tap_sums`]).
    pub(super) fn add<T: Numeric>(&mut self, gpad: &[T], pad: &[T], w: &Window) {
        let [oh, ow] = w.output;
        let (gw, pw, offs) = (runs(ow), w.padded(1), self.offs);
        let total = &mut self.total;
        Vectors::Widest.run(
            #[inline(always)]
            || {
                for rows in (0..oh).step_by(FLUSH_ROWS) {
                    let rows = rows..(rows + FLUSH_ROWS).min(oh);
                    let (g, x) = ((gpad, gw), (pad, pw));
                    // Three taps per pass over the gradient's rows (`K` is
                    // 9, 25 or 49: a last tap alone for the last two).
                    for k in (0..K - K % 3).step_by(3) {
                        let [t0, t1, t2] = &mut total[k..k + 3] else {
                            unreachable!("three taps")
                        };
                        tap_sums(
                            g,
                            x,
                            rows.clone(),
                            [offs[k], offs[k + 1], offs[k + 2]],
                            [t0, t1, t2],
                        );
                    }
                    if K % 3 == 1 {
                        let t = &mut total[K - 1];
                        tap_sums(g, x, rows.clone(), [offs[K - 1]], [t]);
                    }
                }
            },
        );
    }

    /// Writes the `K` sums to `out`; `false` (nothing written) when one is
    /// not finite.
    pub(super) fn write<T: Numeric>(&self, out: &mut [T]) -> bool {
        let total = self.total.map(|lanes| lanes.iter().sum::<f64>());
        if !total.iter().all(|t| t.is_finite()) {
            return false;
        }
        for (d, &t) in out.iter_mut().zip(&total) {
            *d = T::from_f64(t);
        }
        true
    }
}

/// Adds `N` taps' sums `Σ g[r][q] · x[r·pw + off + q]` over the rows
/// `rows` of the gradient `g` (rows of `gw`, a multiple of [`LANES`]) and
/// the padded input `x` (rows of `pw`, [`padded_plane`]) into `totals`,
/// each read of `g` serving all `N`: per tap, [`LANES`] lanes in `T` (lane
/// `l` takes the columns `l mod LANES`, row after row, by fused
/// multiply-adds, [`madd`]), then each lane added to its `f64` total
/// (vector conversions and additions; the lanes are summed once, at the
/// end). A third of the reads of `g` of one tap at a time; the
/// accumulators (`N·LANES` elements, six AVX2 registers for three taps of
/// `f32`) stay in registers.
#[inline(always)]
fn tap_sums<T: Numeric, const N: usize>(
    (g, gw): (&[T], usize),
    (x, pw): (&[T], usize),
    rows: core::ops::Range<usize>,
    offs: [usize; N],
    totals: [&mut [f64; LANES]; N],
) {
    let mut acc = [[T::zero(); LANES]; N];
    for r in rows {
        let gr = &g[r * gw..][..gw];
        let mut xs: [&[T]; N] = [&[]; N];
        for (xr, &off) in xs.iter_mut().zip(&offs) {
            *xr = &x[r * pw + off..][..gw];
        }
        for (c, gv) in gr.chunks_exact(LANES).enumerate() {
            let gv: &[T; LANES] = gv.try_into().expect("LANES");
            for (a, xr) in acc.iter_mut().zip(&xs) {
                let xv: &[T; LANES] = xr[c * LANES..][..LANES].try_into().expect("LANES");
                for (a, (&u, &v)) in a.iter_mut().zip(gv.iter().zip(xv)) {
                    *a = madd(*a, u, v);
                }
            }
        }
    }
    // The lanes leave the registers here: without this, the vectoriser
    // matched the loop above to the four-lane `f32 -> f64` conversions
    // below and ran it in 128-bit vectors, half the AVX2 width.
    let acc = core::hint::black_box(acc);
    for (t, a) in totals.into_iter().zip(&acc) {
        for (t, &v) in t.iter_mut().zip(a) {
            *t += v.to_f64();
        }
    }
}

/// The weight gradient of output channel `oc` by the row loops: tap by
/// tap, the rows of each window inside the input (any stride).
fn grad_weight_rows<T: Numeric>(
    src: &Plane4<'_, T>,
    ch: &Channels<'_, T>,
    oc: usize,
    w: &Window,
    out: &mut [T],
) {
    let [kh, kw] = w.kernel;
    let [oh, ow] = w.output;
    let unit = w.stride[1] == 1 && src.strides[3] == 1;
    // The widest vectors this CPU has (AVX2 rather than the SSE2
    // baseline) for the row loops, inlined into this closure.
    Vectors::Widest.run(
        #[inline(always)]
        || {
            for i in 0..kh {
                for j in 0..kw {
                    let (lo, hi, c0) = w.inside(1, j);
                    let mut acc = 0f64;
                    for b in 0..ch.n {
                        let (from, plane) = ch.planes(b, oc, oh * ow);
                        let base = src.base(plane);
                        for (r, ih) in w.inside_rows(i) {
                            let gr = &from[r * ow + lo..r * ow + hi];
                            if unit {
                                let xr = &src.x[base + ih * src.strides[2] + c0..][..gr.len()];
                                acc += dot(gr, xr);
                            } else {
                                for (k, &v) in gr.iter().enumerate() {
                                    let xv = src.at(base, ih, c0 + k * w.stride[1]);
                                    acc += Numeric::to_f64(v * xv);
                                }
                            }
                        }
                    }
                    out[i * kw + j] = T::from_f64(acc);
                }
            }
        },
    )
}

/// `Σ a·b` of two rows in `T`, in eight lanes, summed in f64.
#[inline(always)]
fn dot<T: Numeric>(a: &[T], b: &[T]) -> f64 {
    let mut lanes = [T::zero(); 8];
    let (ac, bc) = (a.chunks_exact(8), b.chunks_exact(8));
    let rest: f64 = ac
        .remainder()
        .iter()
        .zip(bc.remainder())
        .map(|(&x, &y)| Numeric::to_f64(x * y))
        .sum();
    for (x, y) in ac.zip(bc) {
        for k in 0..8 {
            lanes[k] = lanes[k] + x[k] * y[k];
        }
    }
    lanes.iter().map(|&v| Numeric::to_f64(v)).sum::<f64>() + rest
}
