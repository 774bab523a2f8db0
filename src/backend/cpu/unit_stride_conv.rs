//! Convolutions of stride 1 as one matrix product per kernel tap over the
//! zero-padded input, with no window matrix (im2col) in between; and their
//! gradients for the input (the same products, by the taps turned 180°
//! and transposed) and for the weight (one product per tap, summed over
//! the batch).
//!
//! The input's `(sample, channel)` planes are copied once into rows of the
//! padded width `pw`, with zeros around them. Output `(r, c)`'s tap
//! `(i, j)` then reads padded element `(r + i·dh)·pw + c + j·dw`: over the
//! output positions laid out in rows of `pw` (the last `pw - ow` columns
//! of each row are extra, read across the row's end, and dropped), each tap
//! is a plain strided matrix, `(channels, positions)` with row stride the
//! padded plane. So the convolution is `kh·kw` products of `(O, C) @ (C,
//! positions)`, added up in a tile of output rows that stays in cache (the
//! `gemm` crate packs each operand's panels, as for any product), and the
//! input is read from a buffer the size of the input, not from one `kh·kw`
//! times its size.
//!
//! 3x3 taps of dilation 1 with one group and at least 16 filters, in
//! `f32` or `f64`, go instead by Winograd's F(2x2, 3x3) (`winograd.rs`),
//! 2.25 times fewer multiply-adds, where every input element and tap is
//! finite (the input's padded copy checks that as it is made); for the
//! weight's gradient too, where its result is finite (else the products
//! per tap run again).
//!
//! `(8, 64, 56, 56)` by `(64, 64, 3, 3)`, padding 1, `f32`, 2 threads, AMD
//! EPYC Zen 5 and Zen 3: figures in `benches/README.md` ("Convolutions").

use super::alloc;
use super::cache;
use super::exec::{Layout, with_elements};
use super::gemm::{Accum, kernel, row_blocks};
use super::mat::Mat;
use super::pool;
use super::primitives::whole;
use super::windows::{Out, Plane4, col2im_of, im2col, pad_plane_into};
use super::winograd;
use crate::backend::Output;
use crate::backend::windows::Window;
use crate::element::Numeric;
use crate::shape::ShapeError;

/// A kernel's result: a new storage and its sizes.
type Fresh<T> = Result<Output<super::storage::Storage<T>>, ShapeError>;

/// Input channels per group below which the window matrix and one product
/// with `kh·kw` times the channels are left to do the work: a product per
/// tap over a handful of channels reads and writes its output tile once
/// for every few multiply-adds.
const MIN_CHANNELS: usize = 16;

/// Output elements per tile (128 KiB of `f32`): the tile of output rows
/// that a task adds its taps' products into, with the input rows they read,
/// stays in the second-level cache.
const TILE_ELEMENTS: usize = 1 << 15;

/// Grid positions per window matrix of the weight's gradient: `C·kh·kw`
/// rows of this many elements (1.1 MiB of `f32` for 64 channels by 3x3
/// taps) stay in the second-level cache while one product reads them.
const GRAD_CHUNK: usize = 512;

/// Whether a convolution with window `w` and `channels` input channels per
/// group runs here: stride 1, at least [`MIN_CHANNELS`] channels, and no
/// side padded by more than the dilated kernel's reach (so that its input
/// gradient is a convolution of the same kind).
pub(super) fn applies(w: &Window, channels: usize) -> bool {
    w.stride == [1, 1]
        && channels >= MIN_CHANNELS
        && (0..2).all(|a| {
            let reach = w.dilation[a] * (w.kernel[a] - 1);
            w.kernel[a] > 0 && w.before[a] <= reach && w.after[a] <= reach
        })
}

/// Whether a convolution with window `w` runs by Winograd's F(2x2, 3x3)
/// (`winograd.rs`) where its input and taps are finite: 3x3 taps,
/// dilation 1, one group, at least [`MIN_CHANNELS`] output channels, in
/// `f32` or `f64` (`f16` and `bf16` products are summed in `f32` and
/// rounded once, by the direct products).
fn by_winograd<T: Numeric>(w: &Window, groups: usize, rows: usize) -> bool {
    T::IS_FLOAT
        && !T::MATMUL_IN_F32
        && groups == 1
        && w.kernel == [3, 3]
        && w.dilation == [1, 1]
        && rows >= MIN_CHANNELS
}

/// The `(N, C)` planes of an input, zero-padded and contiguous: plane `p`
/// is `data[p·plane..]`, rows of `pw` elements, with `slack` zeros after
/// the last row for the extra columns of the last output row.
struct Padded<T> {
    data: Vec<T>,
    plane: usize,
    pw: usize,
    /// Whether every input element is finite (checked only when asked).
    finite: bool,
}

impl<T: Numeric> Padded<T> {
    /// The `n·c` planes of `src` (`(N, C, H, W)`) padded by `w`'s padding,
    /// spread over the pool; whether every element is finite is checked
    /// where `check` (else `finite` is `false`). Each element is written
    /// once: the zeros around the rows with the rows.
    fn of(
        src: &Plane4<'_, T>,
        [n, c]: [usize; 2],
        w: &Window,
        check: bool,
    ) -> Result<Self, ShapeError> {
        let (ph, pw) = (w.padded(0), w.padded(1));
        let slack = w.dilation[1] * (w.kernel[1] - 1);
        let plane = ph * pw + slack;
        let planes = n * c;
        let len = planes * plane;
        let mut data = alloc::try_with_len::<T>(len)?;
        // The last row's padding runs `before[1]` into the row after it,
        // which the slack holds where no rows follow ([`applies`]: no side
        // is padded by more than the kernel's reach).
        debug_assert!(w.before[1] <= w.after[0] * pw + slack);
        let out = Out(data.as_mut_ptr());
        let finite = core::sync::atomic::AtomicBool::new(true);
        let tiles = planes.min(pool::threads() * 4).max(1);
        pool::for_each_tile(tiles, &|t| {
            let mut all = true;
            for p in t * planes / tiles..(t + 1) * planes / tiles {
                // SAFETY: plane `p` is `p·plane..(p + 1)·plane` of the
                // buffer's capacity of `planes·plane`; each plane is in one
                // tile, so the slices are disjoint. `pad_plane_into` writes
                // every element of it, through `MaybeUninit`, before the
                // buffer's length is set.
                let dst = unsafe {
                    core::slice::from_raw_parts_mut(
                        out.ptr().add(p * plane) as *mut core::mem::MaybeUninit<T>,
                        plane,
                    )
                };
                pad_plane_into(src, src.base(p), w, dst);
                if check {
                    // SAFETY: every element of the plane is written above.
                    let done =
                        unsafe { &*(dst as *const [core::mem::MaybeUninit<T>] as *const [T]) };
                    all &= done
                        .iter()
                        .fold(true, |a, v| a & Numeric::to_f64(*v).is_finite());
                }
            }
            if !all {
                finite.store(false, core::sync::atomic::Ordering::Relaxed);
            }
        });
        // SAFETY: every plane's elements are written above, `planes·plane
        // = len` in all, within the capacity `try_with_len` gave.
        unsafe { data.set_len(len) };
        Ok(Padded {
            data,
            plane,
            pw,
            finite: check && finite.into_inner(),
        })
    }

    /// Where tap `(i, j)` (`t = i·kw + j`) reads a plane, from the element
    /// under output `(0, 0)`.
    fn taps(&self, w: &Window) -> Vec<usize> {
        let [kh, kw] = w.kernel;
        (0..kh * kw)
            .map(|t| (t / kw) * w.dilation[0] * self.pw + (t % kw) * w.dilation[1])
            .collect()
    }
}

/// A weight `(O, C / groups, kh, kw)` as the left operand of each tap's
/// product: `rows x cols` per group, tap `t`'s matrix at `tap[t]`.
struct Filters<'a, T> {
    w: &'a [T],
    /// The offset of each tap's matrix.
    tap: Vec<usize>,
    /// Strides along the product's rows and columns, and between groups.
    rs: usize,
    cs: usize,
    group: usize,
    /// The product's rows (output channels) and columns (input channels)
    /// per group.
    rows: usize,
    cols: usize,
}

/// One convolution of stride 1 over padded planes: `out` `(N, groups·rows,
/// oh, ow)` from `x`'s planes `(N, groups·cols)` and the filters.
fn convolve<T: Numeric>(
    x: &Padded<T>,
    f: &Filters<'_, T>,
    n: usize,
    groups: usize,
    w: &Window,
) -> Fresh<T> {
    let [oh, ow] = w.output;
    let o = groups * f.rows;
    let dims = [n, o, oh, ow];
    if by_winograd::<T>(w, groups, f.rows) && x.finite {
        let u = winograd::transform_filters(f.rows, f.cols, |oc, ic, t| {
            f.w[f.tap[t] + oc * f.rs + ic * f.cs]
        });
        if u.iter().all(|v| Numeric::to_f64(*v).is_finite()) {
            let planes = winograd::Planes {
                data: &x.data,
                plane: x.plane,
                pw: x.pw,
                ph: w.padded(0),
            };
            let y = winograd::convolve(&planes, &u, [n, f.cols, f.rows], w.output)?;
            return Ok(whole(y, &dims));
        }
    }
    let taps = x.taps(w);
    let pw = x.pw;
    // Positions of the output grid (rows of `pw`) per tile: a multiple of
    // the gemm crate's 64-row kernel, so that only an image's last tile
    // has an edge.
    let grid = oh * pw;
    let per = (TILE_ELEMENTS / o.max(1) / 64 * 64).clamp(64, grid.max(64));
    let tiles = grid.div_ceil(per);
    let tasks = n * tiles;
    let cin = groups * f.cols;
    let len = alloc::checked_len::<T>(&dims)?;
    let mut data = alloc::try_with_len::<T>(len)?;
    let out = Out(data.as_mut_ptr());
    pool::try_for_each_tile(tasks, &|task| {
        let (b, q0) = (task / tiles, (task % tiles) * per);
        let cols = per.min(grid - q0);
        // At most the output's size (one row tile of each channel).
        let mut tile = alloc::try_zeroed::<T>(o * cols)?;
        // SAFETY: every output element `(b, oc, r, c)` is written by the task
        // of sample `b` and the tile holding grid position `r·pw + c`, once;
        // tasks write disjoint positions. Each product's operands lie inside
        // their buffers: tap `t` of positions `q0..q1` reads padded elements
        // up to `taps[t] + q1 - 1 ≤ (oh - 1 + (kh - 1)·dh)·pw + pw - 1 + (kw -
        // 1)·dw`, which is below the plane's `ph·pw + slack` since `oh + (kh -
        // 1)·dh = ph`; the filters' offsets are their layout's.
        unsafe {
            for g in 0..groups {
                if f.cols == 0 {
                    continue;
                }
                for (o0, rows) in row_blocks(f.rows) {
                    let dst = tile.as_mut_ptr().add((g * f.rows + o0) * cols);
                    for (t, &off) in taps.iter().enumerate() {
                        let rhs = x
                            .data
                            .as_ptr()
                            .add((b * cin + g * f.cols) * x.plane + q0 + off);
                        kernel::<T>(
                            (rows, cols, f.cols),
                            Mat {
                                ptr: dst,
                                rs: cols,
                                cs: 1,
                            },
                            Mat {
                                ptr: f.w.as_ptr().add(f.tap[t] + g * f.group + o0 * f.rs),
                                rs: f.rs,
                                cs: f.cs,
                            },
                            Mat {
                                ptr: rhs,
                                rs: x.plane,
                                cs: 1,
                            },
                            T::one(),
                            if t == 0 {
                                Accum::Replace
                            } else {
                                Accum::Add(T::one())
                            },
                        );
                    }
                }
            }
            // The tile's positions in each output row it meets, the
            // extra columns dropped.
            for r in q0 / pw..(q0 + cols).div_ceil(pw) {
                let c0 = (q0.max(r * pw) - r * pw).min(ow);
                let c1 = (q0 + cols - r * pw).min(ow);
                if c0 >= c1 {
                    continue;
                }
                for oc in 0..o {
                    let from = &tile[oc * cols + r * pw + c0 - q0..][..c1 - c0];
                    let to = out.ptr().add(((b * o + oc) * oh + r) * ow + c0);
                    core::ptr::copy_nonoverlapping(from.as_ptr(), to, c1 - c0);
                }
            }
        }
        cache::give(tile);
        Ok(())
    })?;
    // SAFETY: the tiles above wrote every element `0..len` (see there).
    unsafe { data.set_len(len) };
    Ok(whole(data, &dims))
}

/// The convolution of stride 1 of `x` `(N, C, H, W)` by `weight` `(O, C /
/// groups, kh, kw)`: `(N, O, oh, ow)`, no bias; `None` where it does not
/// [`apply`](applies).
pub(super) fn forward<T: Numeric>(
    x: Layout<'_, T>,
    weight: Layout<'_, T>,
    w: &Window,
    groups: usize,
) -> Option<Fresh<T>> {
    applies(w, weight.dims[1]).then(|| forward_by(x, weight, w, groups))
}

/// [`forward`] once it applies.
fn forward_by<T: Numeric>(
    x: Layout<'_, T>,
    weight: Layout<'_, T>,
    w: &Window,
    groups: usize,
) -> Fresh<T> {
    let (n, o) = (x.dims[0], weight.dims[0]);
    let xg = x.storage.read();
    let check = by_winograd::<T>(w, groups, o / groups.max(1));
    let padded = Padded::of(&Plane4::of(&xg, &x), [n, x.dims[1]], w, check)?;
    drop(xg);
    let wg = weight.storage.read();
    let [kh, kw] = w.kernel;
    let s = weight.strides;
    let rows = o / groups.max(1);
    let filters = Filters {
        w: &wg,
        tap: (0..kh * kw)
            .map(|t| weight.offset + (t / kw) * s[2] + (t % kw) * s[3])
            .collect(),
        rs: s[0],
        cs: s[1],
        group: rows * s[0],
        rows,
        cols: weight.dims[1],
    };
    let y = convolve(&padded, &filters, n, groups, w);
    cache::give(padded.data);
    y
}

/// The window of the input gradient's convolution: over the output's
/// gradient, padded by the dilated kernel's reach less the forward's
/// padding, giving the input's sizes.
fn transposed(w: &Window) -> Window {
    let reach = |a: usize| w.dilation[a] * (w.kernel[a] - 1);
    Window {
        kernel: w.kernel,
        stride: [1, 1],
        dilation: w.dilation,
        before: [reach(0) - w.before[0], reach(1) - w.before[1]],
        after: [reach(0) - w.after[0], reach(1) - w.after[1]],
        input: w.output,
        output: w.input,
    }
}

/// The gradient of [`forward`] for its input `(N, C, H, W)`, from the
/// output's gradient `g` `(N, O, oh, ow)`: the convolution of `g` by the
/// taps turned 180°, each tap's matrix transposed. Where a tap is not
/// finite, a zero of the padding times it would be NaN: the products then
/// go through the window matrix (col2im), which has no padding.
pub(super) fn grad_input<T: Numeric>(
    g: Layout<'_, T>,
    weight: Layout<'_, T>,
    w: &Window,
    groups: usize,
    channels: usize,
) -> Option<Fresh<T>> {
    if !applies(w, weight.dims[1]) {
        return None;
    }
    let finite = with_elements(weight, |t| {
        t.iter().all(|v| Numeric::to_f64(*v).is_finite())
    });
    Some(match finite {
        Ok(true) => grad_input_by(g, weight, w, groups),
        Ok(false) => grad_input_folded(g, weight, w, groups, channels),
        Err(e) => Err(e),
    })
}

/// [`grad_input`] by the turned taps.
fn grad_input_by<T: Numeric>(
    g: Layout<'_, T>,
    weight: Layout<'_, T>,
    w: &Window,
    groups: usize,
) -> Fresh<T> {
    let t = transposed(w);
    let n = g.dims[0];
    let gg = g.storage.read();
    let check = by_winograd::<T>(&t, groups, weight.dims[1]);
    let padded = Padded::of(&Plane4::of(&gg, &g), [n, g.dims[1]], &t, check)?;
    drop(gg);
    let wg = weight.storage.read();
    let [kh, kw] = w.kernel;
    let s = weight.strides;
    let per = weight.dims[0] / groups.max(1);
    let filters = Filters {
        w: &wg,
        // Tap (i, j) of the turned kernel is the weight's (kh-1-i, kw-1-j).
        tap: (0..kh * kw)
            .map(|k| weight.offset + (kh - 1 - k / kw) * s[2] + (kw - 1 - k % kw) * s[3])
            .collect(),
        rs: s[1],
        cs: s[0],
        group: per * s[0],
        rows: weight.dims[1],
        cols: per,
    };
    let y = convolve(&padded, &filters, n, groups, &t);
    cache::give(padded.data);
    y
}

/// [`grad_input`] through the window matrix: per sample and group, the
/// weight's transpose times `g`, added back into the input (col2im).
fn grad_input_folded<T: Numeric>(
    g: Layout<'_, T>,
    weight: Layout<'_, T>,
    w: &Window,
    groups: usize,
    channels: usize,
) -> Fresh<T> {
    let (n, o) = (g.dims[0], g.dims[1]);
    let [kh, kw] = w.kernel;
    let l = w.positions();
    let (m, k) = (o / groups.max(1), channels / groups.max(1) * kh * kw);
    let dims = [n, channels, kh, kw, w.output[0], w.output[1]];
    with_elements(weight, |wt| {
        with_elements(g, |gv| {
            let mut cols = vec![T::zero(); n * channels * kh * kw * l];
            for b in 0..n {
                for gi in 0..groups {
                    // SAFETY: the weight is `(O, k)` row-major, group `gi`'s
                    // rows `gi·m..`; `g` is `(N, O, l)` and the columns `(N,
                    // channels·kh·kw, l)`, group `gi`'s rows `gi·k..`.
                    unsafe {
                        kernel::<T>(
                            (k, l, m),
                            Mat {
                                ptr: cols.as_mut_ptr().add((b * groups + gi) * k * l),
                                rs: l,
                                cs: 1,
                            },
                            Mat {
                                ptr: wt.as_ptr().add(gi * m * k),
                                rs: 1,
                                cs: k,
                            },
                            Mat {
                                ptr: gv.as_ptr().add((b * o + gi * m) * l),
                                rs: l,
                                cs: 1,
                            },
                            T::one(),
                            Accum::Replace,
                        )
                    }
                }
            }
            col2im_of(&cols, &dims, w)
        })
    })??
}

/// The gradient of [`forward`] for its weight `(O, C / groups, kh, kw)`,
/// from the output's gradient `g` and the input `x`: tap by tap, `g`'s
/// rows (laid out in the padded rows, zero in the extra columns) times the
/// padded input read at the tap's offset, summed over the batch. Where an
/// input element is not finite, a zero of the extra columns times it would
/// be NaN: the products then read the window matrix (im2col) instead.
pub(super) fn grad_weight<T: Numeric>(
    g: Layout<'_, T>,
    x: Layout<'_, T>,
    w: &Window,
    groups: usize,
) -> Option<Fresh<T>> {
    applies(w, x.dims[1] / groups.max(1)).then(|| grad_weight_by(g, x, w, groups))
}

/// [`grad_weight`] once it applies.
fn grad_weight_by<T: Numeric>(
    g: Layout<'_, T>,
    x: Layout<'_, T>,
    w: &Window,
    groups: usize,
) -> Fresh<T> {
    let (n, o, c) = (x.dims[0], g.dims[1], x.dims[1]);
    let [kh, kw] = w.kernel;
    let [oh, ow] = w.output;
    let (m, k) = (o / groups.max(1), c / groups.max(1));
    let dims = [o, k, kh, kw];
    let xg = x.storage.read();
    let padded = Padded::of(&Plane4::of(&xg, &x), [n, c], w, true)?;
    drop(xg);
    if !padded.finite {
        cache::give(padded.data);
        return grad_weight_windows(g, x, w, groups);
    }
    if by_winograd::<T>(w, groups, m) && n * oh * ow > 0 {
        let planes = winograd::Planes {
            data: &padded.data,
            plane: padded.plane,
            pw: padded.pw,
            ph: w.padded(0),
        };
        let dw = with_elements(g, |gv| {
            winograd::grad_weight(&planes, gv, [n, c, o], w.output)
        })??;
        if dw.iter().all(|v| Numeric::to_f64(*v).is_finite()) {
            cache::give(padded.data);
            return Ok(whole(dw, &dims));
        }
    }
    let pw = padded.pw;
    let q = oh * pw;
    if m == 0 || k == 0 || n * q == 0 {
        cache::give(padded.data);
        return Ok(whole(vec![T::zero(); o * k * kh * kw], &dims));
    }
    // `g` in rows of the padded width, zero in the extra columns: its
    // planes padded after each row by `pw - ow`.
    let rows = Window {
        kernel: [1, 1],
        stride: [1, 1],
        dilation: [1, 1],
        before: [0, 0],
        after: [0, pw - ow],
        input: [oh, ow],
        output: [oh, pw],
    };
    let grid = {
        let gg = g.storage.read();
        Padded::of(&Plane4::of(&gg, &g), [n, o], &rows, false)?.data
    };
    let taps = padded.taps(w);
    let khw = kh * kw;
    // A window row per (input channel, tap), over a chunk of the grid's
    // positions: `(C·kh·kw, CHUNK)`, in the second-level cache.
    let chunk = GRAD_CHUNK.min(q);
    let chunks = q.div_ceil(chunk);
    let units = n * chunks;
    let tasks = units.min(pool::threads() * 4).max(1);
    let numel = o * k * khw;
    // One partial sum of the weight's gradient per task.
    let mut partial = alloc::try_zeroed::<T>(tasks * numel)?;
    let parts = Out(partial.as_mut_ptr());
    pool::try_for_each_tile(tasks, &|task| {
        let mut cols = alloc::try_zeroed::<T>(c * khw * chunk)?;
        for (u, unit) in (task * units / tasks..(task + 1) * units / tasks).enumerate() {
            let (b, q0) = (unit / chunks, (unit % chunks) * chunk);
            let len = chunk.min(q - q0);
            for ch in 0..c {
                let plane = &padded.data[(b * c + ch) * padded.plane..][..padded.plane];
                for (t, &off) in taps.iter().enumerate() {
                    cols[(ch * khw + t) * chunk..][..len]
                        .copy_from_slice(&plane[off + q0..][..len]);
                }
            }
            for gi in 0..groups {
                for (o0, rows) in row_blocks(m) {
                    let oc = gi * m + o0;
                    // SAFETY: each task writes only its own partial `(O,
                    // k·kh·kw)`, rows `oc..oc + rows`; the grid is `(N, O,
                    // q)`, read at positions `q0..q0 + len`; the window rows
                    // are `(c·kh·kw, chunk)`, group `gi`'s from row
                    // `gi·k·kh·kw`.
                    unsafe {
                        kernel::<T>(
                            (rows, k * khw, len),
                            Mat {
                                ptr: parts.ptr().add(task * numel + oc * k * khw),
                                rs: k * khw,
                                cs: 1,
                            },
                            Mat {
                                ptr: grid.as_ptr().add((b * o + oc) * q + q0),
                                rs: q,
                                cs: 1,
                            },
                            Mat {
                                ptr: cols.as_ptr().add(gi * k * khw * chunk),
                                rs: 1,
                                cs: chunk,
                            },
                            T::one(),
                            if u == 0 {
                                Accum::Replace
                            } else {
                                Accum::Add(T::one())
                            },
                        );
                    }
                }
            }
        }
        cache::give(cols);
        Ok(())
    })?;
    cache::give(padded.data);
    cache::give(grid);
    // The partials are laid out as the weight, `(O, k, kh, kw)`.
    let mut out = vec![T::zero(); numel];
    for part in partial.chunks_exact(numel) {
        for (d, &v) in out.iter_mut().zip(part) {
            *d = *d + v;
        }
    }
    cache::give(partial);
    Ok(whole(out, &dims))
}

/// [`grad_weight`] through the window matrix (im2col): per sample and
/// group, `g`'s rows times the windows' transpose, summed.
fn grad_weight_windows<T: Numeric>(
    g: Layout<'_, T>,
    x: Layout<'_, T>,
    w: &Window,
    groups: usize,
) -> Fresh<T> {
    let (n, o, c) = (x.dims[0], g.dims[1], x.dims[1]);
    let [kh, kw] = w.kernel;
    let l = w.positions();
    let (m, k) = (o / groups.max(1), c / groups.max(1) * kh * kw);
    let cols = im2col(x, w, T::zero())?;
    let cg = cols.storage.read();
    with_elements(g, |gv| {
        let mut out = vec![T::zero(); o * k];
        for b in 0..n {
            for gi in 0..groups {
                // SAFETY: the windows are `(N, C·kh·kw, l)`, group `gi`'s
                // rows `gi·k..`; `g` is `(N, O, l)`; the result `(O, k)`.
                unsafe {
                    kernel::<T>(
                        (m, k, l),
                        Mat {
                            ptr: out.as_mut_ptr().add(gi * m * k),
                            rs: k,
                            cs: 1,
                        },
                        Mat {
                            ptr: gv.as_ptr().add((b * o + gi * m) * l),
                            rs: l,
                            cs: 1,
                        },
                        Mat {
                            ptr: cg.as_ptr().add((b * groups + gi) * k * l),
                            rs: 1,
                            cs: l,
                        },
                        T::one(),
                        if b == 0 {
                            Accum::Replace
                        } else {
                            Accum::Add(T::one())
                        },
                    )
                }
            }
        }
        whole(out, &[o, c / groups.max(1), kh, kw])
    })
}
