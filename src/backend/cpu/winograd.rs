//! Convolutions by 3x3 taps of stride 1 and dilation 1 with Winograd's
//! minimal filtering F(2x2, 3x3): each 2x2 block of outputs from the 4x4
//! block of padded input under it, with 16 multiplications per input
//! channel instead of 36, so the matrix products do 2.25 times fewer
//! multiply-adds than [`unit_stride_conv`](super::unit_stride_conv)'s nine
//! products per tap.
//!
//! With `d` a 4x4 input block, `g` a 3x3 filter, the 2x2 outputs are
//! `Aᵀ [(G g Gᵀ) ⊙ (Bᵀ d B)] A` (Lavin and Gray, "Fast Algorithms for
//! Convolutional Neural Networks", 2016), where
//!
//! ```text
//!      | 1  0 -1  0 |        | 1    0    0  |
//! Bᵀ = | 0  1  1  0 |    G = | 1/2  1/2  1/2 |    Aᵀ = | 1  1  1  0 |
//!      | 0 -1  1  0 |        | 1/2 -1/2  1/2 |         | 0  1 -1 -1 |
//!      | 0  1  0 -1 |        | 0    0    1  |
//! ```
//!
//! Every coefficient is 0, ±1 or ±1/2, so the transforms add and halve
//! and do not multiply by rounded constants; on small integers the
//! results are exact, as the direct products are.
//!
//! For each of the 16 positions `ξ` of the transformed block, the sums
//! over input channels are one matrix product, `M[ξ] = U[ξ] @ V[ξ]`, `(O,
//! C) @ (C, blocks)`, by the `gemm` crate's kernel. The blocks of an image
//! are taken [`CHUNK`] at a time: their transformed input `V` and products
//! `M` stay in the second-level cache between the transform, the 16
//! products and the inverse transform, which writes the outputs.
//!
//! The weight's gradient ([`grad_weight`]) is the transpose of the same
//! formula, `Gᵀ [(Bᵀ d B) ⊙ (A y Aᵀ)] G` for an output gradient block `y`,
//! summed over the blocks by 16 products `(O, blocks) @ (blocks, C)`,
//! [`GRAD_CHUNK`] blocks at a time (longer sums per product: 512 were
//! 5-10% faster than 64 or 256 in the ResNet block's forward + backward on
//! AMD EPYC Zen 3, 2 threads).
//!
//! The caller ([`unit_stride_conv`](super::unit_stride_conv)) runs this
//! only where every input element and tap is finite: the transforms
//! subtract elements, and `∞ - ∞` would be NaN where the direct sums give
//! `∞`.

use super::alloc;
use super::cache;
use super::gemm::{Accum, kernel, row_blocks};
use super::isa::Vectors;
use super::mat::Mat;
use super::pool;
use super::windows::Out;
use crate::element::Numeric;
use crate::shape::ShapeError;

/// Output blocks per chunk: the transformed input and the products of 64
/// channels are 256 KiB each in `f32`.
const CHUNK: usize = 64;

/// Blocks per chunk of the weight's gradient, whose products sum over the
/// blocks: longer sums per product call.
const GRAD_CHUNK: usize = 512;

/// Filters of 3x3 taps transformed, `U[ξ][o][c] = (G g[o][c] Gᵀ)[ξ]`, from
/// `tap(o, c, t)`, tap `t = 3i + j` of filter `(o, c)`.
pub(super) fn transform_filters<T: Numeric>(
    o: usize,
    c: usize,
    tap: impl Fn(usize, usize, usize) -> T,
) -> Vec<T> {
    let half = T::from_f64(0.5);
    let mut u = vec![T::zero(); 16 * o * c];
    for oc in 0..o {
        for ic in 0..c {
            let g = |i: usize, j: usize| tap(oc, ic, 3 * i + j);
            // `G g`: 4 rows of 3.
            let mut gg = [[T::zero(); 3]; 4];
            for (j, col) in (0..3).map(|j| (j, [g(0, j), g(1, j), g(2, j)])) {
                gg[0][j] = col[0];
                gg[1][j] = (col[0] + col[1] + col[2]) * half;
                gg[2][j] = (col[0] - col[1] + col[2]) * half;
                gg[3][j] = col[2];
            }
            // `(G g) Gᵀ`: 4 by 4.
            for (i, r) in gg.iter().enumerate() {
                let row = [
                    r[0],
                    (r[0] + r[1] + r[2]) * half,
                    (r[0] - r[1] + r[2]) * half,
                    r[2],
                ];
                for (j, v) in row.into_iter().enumerate() {
                    u[((4 * i + j) * o + oc) * c + ic] = v;
                }
            }
        }
    }
    u
}

/// The input of a convolution, as zero-padded planes: plane `p` (sample
/// `p / c`, channel `p % c`) starts at `data[p·plane]`, rows of `pw`
/// elements, `ph` rows, and at least 2 more elements after the last row.
pub(super) struct Planes<'a, T> {
    pub(super) data: &'a [T],
    pub(super) plane: usize,
    pub(super) pw: usize,
    pub(super) ph: usize,
}

/// The convolution `(N, O, oh, ow)` of `x`'s `n·c` planes by the
/// transformed filters `u` ([`transform_filters`], `o` by `c`), where the
/// padded planes are `oh + 2` by `ow + 2`.
pub(super) fn convolve<T: Numeric>(
    x: &Planes<'_, T>,
    u: &[T],
    [n, c, o]: [usize; 3],
    [oh, ow]: [usize; 2],
) -> Result<Vec<T>, ShapeError> {
    debug_assert!(x.ph == oh + 2 && x.pw >= ow + 2 && u.len() == 16 * o * c);
    let (bh, bw) = (oh.div_ceil(2), ow.div_ceil(2));
    let blocks = bh * bw;
    let chunks = Chunks::new(n, blocks, CHUNK);
    let len = n * o * oh * ow;
    let mut y = alloc::try_with_len::<T>(len)?;
    let out = Out(y.as_mut_ptr());
    pool::try_for_each_tile(chunks.tiles, &|t| {
        let Scratch {
            mut v,
            w: mut m,
            mut rows,
            zeros,
        } = Scratch::new([c, o, CHUNK], bw)?;
        for (b, q0, q1) in chunks.of_tile(t) {
            Vectors::Widest.run(
                #[inline(always)]
                || {
                    transform_input(
                        x,
                        [b * c, c, CHUNK],
                        bw,
                        (q0, q1),
                        &mut v,
                        &mut rows,
                        &zeros,
                    )
                },
            );
            for xi in 0..16 {
                for (o0, r) in row_blocks(o) {
                    // SAFETY: `m[ξ]` is `o` rows of `CHUNK`, of which the
                    // product writes rows `o0..o0 + r`, columns `..q1 -
                    // q0 ≤ CHUNK`; `u[ξ]` is `o` rows of `c`; `v[ξ]` is
                    // `c` rows of `CHUNK`, of which the first `q1 - q0`
                    // columns are read. All three are live buffers of
                    // those sizes, the destination distinct from both.
                    unsafe {
                        kernel::<T>(
                            (r, q1 - q0, c),
                            Mat {
                                ptr: m.as_mut_ptr().add((xi * o + o0) * CHUNK),
                                rs: CHUNK,
                                cs: 1,
                            },
                            Mat {
                                ptr: u.as_ptr().add((xi * o + o0) * c),
                                rs: c,
                                cs: 1,
                            },
                            Mat {
                                ptr: v.as_ptr().add(xi * c * CHUNK),
                                rs: CHUNK,
                                cs: 1,
                            },
                            T::one(),
                            Accum::Replace,
                        )
                    }
                }
            }
            Vectors::Widest.run(
                #[inline(always)]
                || transform_output(&m, &out, [b, o, oh, ow], bw, (q0, q1), &mut rows),
            );
        }
        cache::give(v);
        cache::give(m);
        Ok(())
    })?;
    // SAFETY: every output `(b, oc, r, col)` is written by the chunk of
    // sample `b` holding block `(r / 2)·bw + col / 2`, each once; the
    // chunks cover every block of every sample.
    unsafe { y.set_len(len) };
    Ok(y)
}

/// The blocks of `n` images of `blocks` each, cut into chunks of `size`
/// blocks (none across two images), and the chunks dealt into `tiles` for
/// the pool.
struct Chunks {
    per_image: usize,
    count: usize,
    tiles: usize,
    size: usize,
    blocks: usize,
}

impl Chunks {
    fn new(n: usize, blocks: usize, size: usize) -> Self {
        let per_image = blocks.div_ceil(size);
        let count = n * per_image;
        let tiles = count.min(pool::threads() * 4).max(1);
        Chunks {
            per_image,
            count,
            tiles,
            size,
            blocks,
        }
    }

    /// Tile `t`'s chunks: (sample, first block, end of the blocks).
    fn of_tile(&self, t: usize) -> impl Iterator<Item = (usize, usize, usize)> + '_ {
        (t * self.count / self.tiles..(t + 1) * self.count / self.tiles).map(move |chunk| {
            let q0 = (chunk % self.per_image) * self.size;
            (
                chunk / self.per_image,
                q0,
                (q0 + self.size).min(self.blocks),
            )
        })
    }
}

/// A tile's buffers for chunks of `size` blocks of `c` input and `o`
/// output channels, in rows of `bw` blocks: the transformed input `v`
/// (`16·c·size`), the other side's `16·o·size` (products or transformed
/// gradient) `w`, the transforms' scratch `rows`, and a row of `zeros`.
struct Scratch<T> {
    v: Vec<T>,
    w: Vec<T>,
    rows: Vec<T>,
    zeros: Vec<T>,
}

impl<T: Numeric> Scratch<T> {
    /// `v` and `w` come from the caching allocator (give them back with
    /// `cache::give`): 256 KiB and more from the C allocator would be
    /// fresh pages on every call.
    fn new([c, o, size]: [usize; 3], bw: usize) -> Result<Self, ShapeError> {
        Ok(Scratch {
            v: alloc::try_zeroed::<T>(16 * c * size)?,
            w: alloc::try_zeroed::<T>(16 * o * size)?,
            rows: vec![T::zero(); 16 * (bw + 1)],
            zeros: vec![T::zero(); 2 * (bw + 1)],
        })
    }
}

/// The blocks `q0..q1` of the image whose planes start at plane `p0`, as
/// `v[ξ][ch][q - q0] = (Bᵀ d B)[ξ]` for each of the `c` channels. `rows`
/// is scratch of at least `8·(bw + 1)` elements, `zeros` at least `2·(bw
/// + 1)` zeros.
#[inline(always)]
fn transform_input<T: Numeric>(
    x: &Planes<'_, T>,
    [p0, c, chunk]: [usize; 3],
    bw: usize,
    (q0, q1): (usize, usize),
    v: &mut [T],
    rows: &mut [T],
    zeros: &[T],
) {
    for by in q0 / bw..q1.div_ceil(bw) {
        // Blocks `a..e` of block row `by`, at `v`'s column `at`.
        let a = q0.max(by * bw) - by * bw;
        let e = q1.min((by + 1) * bw) - by * bw;
        let at = by * bw + a - q0;
        let k = e - a + 1;
        for ch in 0..c {
            let plane = &x.data[(p0 + ch) * x.plane..];
            // Padded rows 2by..2by+3 from column 2a: 2k elements each
            // (the last block's 4th column may be the next row's first,
            // or the zeros after the plane's last row: it only reaches
            // the output column past `ow` that is dropped). A row below
            // the plane (odd `oh`) is zeros: it only reaches the dropped
            // output row.
            let row = |i: usize| -> &[T] {
                let r = 2 * by + i;
                if r < x.ph {
                    &plane[r * x.pw + 2 * a..][..2 * k]
                } else {
                    &zeros[..2 * k]
                }
            };
            let (r0, r1, r2, r3) = (row(0), row(1), row(2), row(3));
            // Each row split into its even and odd columns, `k` of each:
            // `ev[i·k + j]` is row `i` at column `2j`, `od` at `2j + 1`.
            let (ev, od) = rows[..8 * k].split_at_mut(4 * k);
            for (i, r) in [r0, r1, r2, r3].into_iter().enumerate() {
                deinterleave(&r[..2 * k], &mut ev[i * k..][..k], &mut od[i * k..][..k]);
            }
            // `Bᵀ d` down the columns, in place.
            down(ev, k);
            down(od, k);
            // `(Bᵀ d) B` along the rows, block `j` from columns `2j..2j+3`.
            let n = k - 1;
            for i in 0..4 {
                let (e0, o0) = (&ev[i * k..][..k], &od[i * k..][..k]);
                let base = (4 * i * c + ch) * chunk + at;
                let (v0, rest) = v[base..].split_at_mut(c * chunk);
                let (v1, rest) = rest.split_at_mut(c * chunk);
                let (v2, v3) = rest.split_at_mut(c * chunk);
                let (v0, v1, v2, v3) = (&mut v0[..n], &mut v1[..n], &mut v2[..n], &mut v3[..n]);
                let (ea, eb, oa, ob) = (&e0[..n], &e0[1..][..n], &o0[..n], &o0[1..][..n]);
                for j in 0..n {
                    v0[j] = ea[j] - eb[j];
                    v1[j] = oa[j] + eb[j];
                    v2[j] = eb[j] - oa[j];
                    v3[j] = oa[j] - ob[j];
                }
            }
        }
    }
}

/// `r`'s even elements into `e`, its odd ones into `o` (`r` twice as
/// long as each).
#[inline(always)]
fn deinterleave<T: Copy>(r: &[T], e: &mut [T], o: &mut [T]) {
    let n = e.len().min(o.len()).min(r.len() / 2);
    let (r, e, o) = (&r[..2 * n], &mut e[..n], &mut o[..n]);
    for j in 0..n {
        e[j] = r[2 * j];
        o[j] = r[2 * j + 1];
    }
}

/// `Aᵀ` applied to 4 runs `m`: `a = m0 + m1 + m2`, `b = m1 - m2 - m3`
/// (down a column of the block, or, as `A`, along a row).
#[inline(always)]
fn transpose_a<T: Numeric>(m: [&[T]; 4], a: &mut [T], b: &mut [T]) {
    let n = a.len().min(b.len());
    let [m0, m1, m2, m3] = m;
    let (m0, m1, m2, m3) = (&m0[..n], &m1[..n], &m2[..n], &m3[..n]);
    let (a, b) = (&mut a[..n], &mut b[..n]);
    for j in 0..n {
        a[j] = m0[j] + m1[j] + m2[j];
        b[j] = m1[j] - m2[j] - m3[j];
    }
}

/// `e` and `o` as the even and odd elements of `r`.
#[inline(always)]
fn interleave<T: Copy>(e: &[T], o: &[T], r: &mut [T]) {
    let n = e.len().min(o.len()).min(r.len() / 2);
    let (r, e, o) = (&mut r[..2 * n], &e[..n], &o[..n]);
    for j in 0..n {
        r[2 * j] = e[j];
        r[2 * j + 1] = o[j];
    }
}

/// `Bᵀ` applied down the columns of the 4 rows of `k` in `t`, in place:
/// `(d0 - d2, d1 + d2, d2 - d1, d1 - d3)`.
#[inline(always)]
fn down<T: Numeric>(t: &mut [T], k: usize) {
    let (t0, rest) = t[..4 * k].split_at_mut(k);
    let (t1, rest) = rest.split_at_mut(k);
    let (t2, t3) = rest.split_at_mut(k);
    let (t0, t1, t2, t3) = (&mut t0[..k], &mut t1[..k], &mut t2[..k], &mut t3[..k]);
    for j in 0..k {
        let (d0, d1, d2, d3) = (t0[j], t1[j], t2[j], t3[j]);
        t0[j] = d0 - d2;
        t1[j] = d1 + d2;
        t2[j] = d2 - d1;
        t3[j] = d1 - d3;
    }
}

/// The outputs of blocks `q0..q1` of sample `b` from their products `m`
/// (`m[ξ][oc][q - q0]`): `Aᵀ m A`, 2x2 outputs per block, those past
/// `oh` or `ow` dropped. `rows` is scratch of at least `16·bw` elements.
#[inline(always)]
fn transform_output<T: Numeric>(
    m: &[T],
    out: &Out<T>,
    [b, o, oh, ow]: [usize; 4],
    bw: usize,
    (q0, q1): (usize, usize),
    rows: &mut [T],
) {
    for by in q0 / bw..q1.div_ceil(bw) {
        let a = q0.max(by * bw) - by * bw;
        let e = q1.min((by + 1) * bw) - by * bw;
        let at = by * bw + a - q0;
        let k = e - a;
        // The output columns of blocks `a..e`, `2a..min(2e, ow)`.
        let (c0, c1) = (2 * a, (2 * e).min(ow));
        for oc in 0..o {
            let at_xi = |xi: usize| &m[(xi * o + oc) * CHUNK + at..][..k];
            let mm: [&[T]; 16] = core::array::from_fn(at_xi);
            // The two rows of `Aᵀ m`, column by column of the block
            // (`sa[col]`, `sb[col]`), then each times `A`: a block's 2x2
            // outputs in four runs, `y00`, `y01`, `y10`, `y11`.
            let (s, rest) = rows[..16 * k].split_at_mut(8 * k);
            let (y, line) = rest.split_at_mut(4 * k);
            let mut parts = s.chunks_exact_mut(k);
            let sa: [&mut [T]; 4] = core::array::from_fn(|_| parts.next().unwrap_or_default());
            let sb: [&mut [T]; 4] = core::array::from_fn(|_| parts.next().unwrap_or_default());
            for col in 0..4 {
                transpose_a(
                    [mm[col], mm[4 + col], mm[8 + col], mm[12 + col]],
                    sa[col],
                    sb[col],
                );
            }
            let (y00, rest) = y.split_at_mut(k);
            let (y01, rest) = rest.split_at_mut(k);
            let (y10, y11) = rest.split_at_mut(k);
            transpose_a([&*sa[0], &*sa[1], &*sa[2], &*sa[3]], y00, y01);
            transpose_a([&*sb[0], &*sb[1], &*sb[2], &*sb[3]], y10, y11);
            let (line0, line1) = line.split_at_mut(2 * k);
            interleave(y00, y01, line0);
            interleave(y10, y11, line1);
            for (r, line) in [&*line0, &*line1].into_iter().enumerate() {
                if 2 * by + r >= oh {
                    break;
                }
                let to = ((b * o + oc) * oh + 2 * by + r) * ow + c0;
                // SAFETY: output row `2by + r < oh` of channel `oc` of
                // sample `b`, columns `c0..c1 ≤ ow`, inside the `n·o·oh·ow`
                // elements of the output; only this block row's chunk
                // writes them. `line` holds `2k ≥ c1 - c0` elements.
                unsafe {
                    core::ptr::copy_nonoverlapping(line.as_ptr(), out.ptr().add(to), c1 - c0)
                };
            }
        }
    }
}

/// The weight gradient `(O, C, 3, 3)` of the convolution [`convolve`]
/// runs, from its padded input `x` and its output gradient `g` `(N, O, oh,
/// ow)`, contiguous: with `d` an input block and `y` the gradient's 2x2
/// block over it, `Gᵀ [(Bᵀ d B) ⊙ (A y Aᵀ)] G` summed over every block of
/// every sample (the transpose of the forward formula), so that the sums
/// over blocks are 16 matrix products `(O, blocks) @ (blocks, C)`. Output
/// positions past `oh` or `ow` in a last block count with a zero
/// gradient. A NaN or infinite element of `g` gives a NaN or infinite
/// result where the direct sums might give another one: the caller
/// checks the result.
///
/// # Errors
/// PyTorch's out-of-memory message when a scratch buffer is refused.
pub(super) fn grad_weight<T: Numeric>(
    x: &Planes<'_, T>,
    g: &[T],
    [n, c, o]: [usize; 3],
    [oh, ow]: [usize; 2],
) -> Result<Vec<T>, ShapeError> {
    debug_assert!(x.ph == oh + 2 && x.pw >= ow + 2 && g.len() == n * o * oh * ow);
    let (bh, bw) = (oh.div_ceil(2), ow.div_ceil(2));
    let blocks = bh * bw;
    let chunks = Chunks::new(n, blocks, GRAD_CHUNK);
    let numel = 16 * o * c;
    // One partial sum of the products `M[ξ]` per tile.
    let mut partial = alloc::try_zeroed::<T>(chunks.tiles * numel)?;
    let parts = Out(partial.as_mut_ptr());
    pool::try_for_each_tile(chunks.tiles, &|t| {
        let Scratch {
            mut v,
            w: mut gt,
            mut rows,
            zeros,
        } = Scratch::new([c, o, GRAD_CHUNK], bw)?;
        for (b, q0, q1) in chunks.of_tile(t) {
            Vectors::Widest.run(
                #[inline(always)]
                || {
                    transform_input(
                        x,
                        [b * c, c, GRAD_CHUNK],
                        bw,
                        (q0, q1),
                        &mut v,
                        &mut rows,
                        &zeros,
                    );
                    transform_gradient(
                        g,
                        [b, o, oh, ow, GRAD_CHUNK],
                        bw,
                        (q0, q1),
                        &mut gt,
                        &mut rows,
                    );
                },
            );
            for xi in 0..16 {
                for (o0, r) in row_blocks(o) {
                    // SAFETY: tile `t`'s partial is `numel` elements of
                    // `partial`, written by this tile only; `M[ξ]` rows
                    // `o0..o0 + r` of `c`. `gt[ξ]` is `o` rows of `GRAD_CHUNK`
                    // and `v[ξ]` `c` rows of `GRAD_CHUNK`, of which the first
                    // `q1 - q0` columns are read (`v[ξ]` transposed).
                    unsafe {
                        kernel::<T>(
                            (r, c, q1 - q0),
                            Mat {
                                ptr: parts.ptr().add(t * numel + (xi * o + o0) * c),
                                rs: c,
                                cs: 1,
                            },
                            Mat {
                                ptr: gt.as_ptr().add((xi * o + o0) * GRAD_CHUNK),
                                rs: GRAD_CHUNK,
                                cs: 1,
                            },
                            Mat {
                                ptr: v.as_ptr().add(xi * c * GRAD_CHUNK),
                                rs: 1,
                                cs: GRAD_CHUNK,
                            },
                            T::one(),
                            Accum::Add(T::one()),
                        )
                    }
                }
            }
        }
        cache::give(v);
        cache::give(gt);
        Ok(())
    })?;
    let mut m = vec![T::zero(); numel];
    for part in partial.chunks_exact(numel) {
        for (d, &p) in m.iter_mut().zip(part) {
            *d = *d + p;
        }
    }
    cache::give(partial);
    // `Gᵀ M G` per filter: 4x4 to 3x3.
    let half = T::from_f64(0.5);
    let gt3 = |m0: T, m1: T, m2: T, m3: T| {
        [
            m0 + (m1 + m2) * half,
            (m1 - m2) * half,
            (m1 + m2) * half + m3,
        ]
    };
    let mut dw = vec![T::zero(); o * c * 9];
    for oc in 0..o {
        for ic in 0..c {
            let at = |xi: usize| m[(xi * o + oc) * c + ic];
            let cols: [[T; 3]; 4] =
                core::array::from_fn(|j| gt3(at(j), at(4 + j), at(8 + j), at(12 + j)));
            for i in 0..3 {
                let row = gt3(cols[0][i], cols[1][i], cols[2][i], cols[3][i]);
                dw[(oc * c + ic) * 9 + 3 * i..][..3].copy_from_slice(&row);
            }
        }
    }
    Ok(dw)
}

/// The output gradient's blocks `q0..q1` of sample `b`, as `gt[ξ][oc][q -
/// q0] = (A y Aᵀ)[ξ]` for its 2x2 block `y` (zero past `oh` or `ow`).
/// `rows` is scratch of at least `16·bw` elements.
#[inline(always)]
fn transform_gradient<T: Numeric>(
    g: &[T],
    [b, o, oh, ow, chunk]: [usize; 5],
    bw: usize,
    (q0, q1): (usize, usize),
    gt: &mut [T],
    rows: &mut [T],
) {
    for by in q0 / bw..q1.div_ceil(bw) {
        let a = q0.max(by * bw) - by * bw;
        let e = q1.min((by + 1) * bw) - by * bw;
        let at = by * bw + a - q0;
        let k = e - a;
        let (c0, c1) = (2 * a, (2 * e).min(ow));
        for oc in 0..o {
            // The block row's two gradient rows, zero past `oh` and `ow`,
            // then split into even and odd columns.
            let (line, rest) = rows[..16 * k].split_at_mut(4 * k);
            let (split, rest) = rest.split_at_mut(4 * k);
            let (h, _) = rest.split_at_mut(8 * k);
            for (r, l) in line.chunks_exact_mut(2 * k).enumerate() {
                let row = 2 * by + r;
                l.fill(T::zero());
                if row < oh {
                    let from = &g[((b * o + oc) * oh + row) * ow + c0..][..c1 - c0];
                    l[..c1 - c0].copy_from_slice(from);
                }
            }
            let (e0, rest) = split.split_at_mut(k);
            let (o0, rest) = rest.split_at_mut(k);
            let (e1, o1) = rest.split_at_mut(k);
            deinterleave(&line[..2 * k], e0, o0);
            deinterleave(&line[2 * k..], e1, o1);
            // `y Aᵀ` along each row: `(e, e + o, e - o, -o)`, the 4
            // columns of row 0 in `h[..4k]`, of row 1 in `h[4k..]`.
            for (r, (ev, od)) in [(&*e0, &*o0), (&*e1, &*o1)].into_iter().enumerate() {
                let hr = &mut h[4 * k * r..][..4 * k];
                let (h0, rest) = hr.split_at_mut(k);
                let (h1, rest) = rest.split_at_mut(k);
                let (h2, h3) = rest.split_at_mut(k);
                let (ev, od) = (&ev[..k], &od[..k]);
                for j in 0..k {
                    h0[j] = ev[j];
                    h1[j] = ev[j] + od[j];
                    h2[j] = ev[j] - od[j];
                    h3[j] = T::zero() - od[j];
                }
            }
            // `A (y Aᵀ)` down each column `col`: `(r0, r0 + r1, r0 - r1,
            // -r1)`, into `gt[4i + col]`.
            for col in 0..4 {
                let (r0, r1) = (&h[col * k..][..k], &h[4 * k + col * k..][..k]);
                let base = (col * o + oc) * chunk + at;
                let (t0, rest) = gt[base..].split_at_mut(4 * o * chunk);
                let (t1, rest) = rest.split_at_mut(4 * o * chunk);
                let (t2, t3) = rest.split_at_mut(4 * o * chunk);
                let (t0, t1, t2, t3) = (&mut t0[..k], &mut t1[..k], &mut t2[..k], &mut t3[..k]);
                for j in 0..k {
                    t0[j] = r0[j];
                    t1[j] = r0[j] + r1[j];
                    t2[j] = r0[j] - r1[j];
                    t3[j] = T::zero() - r1[j];
                }
            }
        }
    }
}
