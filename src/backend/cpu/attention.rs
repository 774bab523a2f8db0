//! Scaled dot-product attention without gradients, in one pass per tile of
//! (batch, head, block of query rows): the block's scores
//! (`scale · q kᵀ`), its mask, its softmax and its product with the values
//! are computed in a buffer the size of the block, never the whole `(Q, K)`
//! matrix of every head, as PyTorch's CPU attention kernel does for
//! inference. Each tile's two products are single-threaded products of the
//! GEMM module's kernel; the tiles run on the pool.
//!
//! Values equal the composed pass's (product, scale, `where`, softmax,
//! product): the scale is the product's `alpha`, applied once to each sum
//! as the composed pass's multiplication is, and the softmax sums in `f64`
//! and divides, as the softmax kernel does. A query whose keys are all
//! masked (a row of `-inf`) gets zeros.

use core::mem::MaybeUninit;

use super::alloc::try_alloc_filled_by;
use super::exec::Layout;
use super::gemm::{Accum, kernel};
use super::isa::widest;
use super::mat::Mat;
use super::pool;
use super::softmax::row as softmax_row;
use crate::element::Float;
use crate::shape::ShapeError;

/// Query rows per tile: a 64 x K block of scores (128 KiB of `f32` at
/// K = 512) stays in the core's L2 between its softmax and its product.
const BLOCK: usize = 64;

/// `softmax(scale · q kᵀ, masked) v` for `q` `(B, H, Q, E)`, `k`
/// `(B, H, K, E)`, `v` `(B, H, K, F)` and `keep` (where attention is
/// allowed) of sizes `(B, H, Q, K)` (stride 0 where broadcast): the result's
/// elements, `(B, H, Q, F)` row-major.
///
/// # Errors
/// PyTorch's allocation errors for the result.
///
/// # Panics
/// When the sizes do not fit together (the caller checks them).
pub(crate) fn attention<T: Float>(
    q: Layout<'_, T>,
    k: Layout<'_, T>,
    v: Layout<'_, T>,
    keep: Option<Layout<'_, bool>>,
    scale: T,
) -> Result<Vec<T>, ShapeError> {
    let [b, h, nq, e] = four(q.dims);
    let [_, _, nk, f] = four(v.dims);
    assert_eq!(k.dims, [b, h, nk, e], "keys' sizes");
    assert_eq!(v.dims, [b, h, nk, f], "values' sizes");
    if let Some(m) = &keep {
        assert_eq!(m.dims, [b, h, nq, nk], "mask's sizes");
    }
    let (gq, gk, gv) = (q.storage.read(), k.storage.read(), v.storage.read());
    let gm = keep.as_ref().map(|m| m.storage.read());
    let blocks = nq.div_ceil(BLOCK);
    let tiles = b * h * blocks;
    let ptrs = Ptrs {
        q: gq.as_ptr(),
        k: gk.as_ptr(),
        v: gv.as_ptr(),
        m: gm.as_ref().map_or(core::ptr::null(), |g| g.as_ptr()),
    };
    let out = |o: *mut T| {
        let o = Out(o);
        pool::for_each_tile(tiles, &|t| {
            let (bh, blk) = (t / blocks, t % blocks);
            let (bi, hi) = (bh / h, bh % h);
            let q0 = blk * BLOCK;
            let rows = BLOCK.min(nq - q0);
            let mut s: Vec<MaybeUninit<T>> = Vec::with_capacity(rows * nk);
            // SAFETY: `MaybeUninit` needs no initialisation.
            unsafe { s.set_len(rows * nk) };
            let sp = s.as_mut_ptr().cast::<T>();
            let ptrs = &ptrs;
            // Scores: `scale · q[rows] kᵀ` into `s`, row-major.
            if e == 0 {
                s.fill(MaybeUninit::new(T::zero()));
            } else {
                // SAFETY: the products' addresses are the operands' own
                // elements (offsets and strides of their layouts, indices
                // below their sizes, inside their storages by the tensor
                // invariant) and `s`'s `rows x nk` elements; `s` is this
                // tile's own buffer.
                unsafe {
                    kernel(
                        (rows, nk, e),
                        Mat {
                            ptr: sp,
                            rs: nk,
                            cs: 1,
                        },
                        Mat {
                            ptr: ptrs.q.add(at(&q, bi, hi) + q0 * q.strides[2]),
                            rs: q.strides[2],
                            cs: q.strides[3],
                        },
                        Mat {
                            ptr: ptrs.k.add(at(&k, bi, hi)),
                            rs: k.strides[3],
                            cs: k.strides[2],
                        },
                        scale,
                        Accum::Replace,
                    );
                }
            }
            // SAFETY: every element of `s` was written above.
            let s: &mut [T] = unsafe { core::slice::from_raw_parts_mut(sp, rows * nk) };
            if let Some(m) = &keep {
                for (i, row) in s.chunks_exact_mut(nk.max(1)).enumerate() {
                    let base = at(m, bi, hi) + (q0 + i) * m.strides[2];
                    for (j, x) in row.iter_mut().enumerate() {
                        // SAFETY: a mask element inside its layout, read
                        // under the guard taken above.
                        if !unsafe { *ptrs.m.add(base + j * m.strides[3]) } {
                            *x = T::neg_infinity();
                        }
                    }
                }
            }
            // Probabilities: the softmax kernel's row function (the
            // composed pass's values), zeros for a row with every key masked.
            let mut p: Vec<MaybeUninit<T>> = Vec::with_capacity(rows * nk);
            // SAFETY: `MaybeUninit` needs no initialisation.
            unsafe { p.set_len(rows * nk) };
            if nk > 0 {
                widest(
                    #[inline(always)]
                    || {
                        for (x, o) in s.chunks_exact(nk).zip(p.chunks_exact_mut(nk)) {
                            if x.iter().all(|&v| v == T::neg_infinity()) {
                                o.fill(MaybeUninit::new(T::zero()));
                            } else {
                                softmax_row(x, false, o);
                            }
                        }
                    },
                );
            }
            let pp = p.as_ptr().cast::<T>();
            // Result rows: `s v` (zeros when there are no keys).
            let dst = o.ptr();
            // SAFETY: the result has `b·h·nq·f` elements, row-major; this
            // tile writes its own `rows x f` block of them.
            let dst = unsafe { dst.add(((bi * h + hi) * nq + q0) * f) };
            if nk == 0 || f == 0 {
                for i in 0..rows * f {
                    // SAFETY: inside this tile's block, as above.
                    unsafe { dst.add(i).write(T::zero()) };
                }
            } else {
                // SAFETY: as for the scores; `dst` is this tile's block.
                unsafe {
                    kernel(
                        (rows, f, nk),
                        Mat {
                            ptr: dst,
                            rs: f,
                            cs: 1,
                        },
                        Mat {
                            ptr: pp,
                            rs: nk,
                            cs: 1,
                        },
                        Mat {
                            ptr: ptrs.v.add(at(&v, bi, hi)),
                            rs: v.strides[2],
                            cs: v.strides[3],
                        },
                        T::one(),
                        Accum::Replace,
                    );
                }
            }
        });
    };
    // SAFETY: the tiles together write every element of the result: each
    // (batch, head) has `blocks` tiles covering its `nq` rows of `f`.
    unsafe { try_alloc_filled_by(&[b, h, nq, f], out) }
}

/// Where `l`'s matrix `[i, j, .., ..]` starts (rank 4).
fn at<E>(l: &Layout<'_, E>, i: usize, j: usize) -> usize {
    l.offset + i * l.strides[0] + j * l.strides[1]
}

/// The four sizes of a rank-4 layout.
fn four(dims: &[usize]) -> [usize; 4] {
    dims.try_into().expect("a rank-4 operand")
}

/// The operands' base pointers, shared by the tiles (read only).
struct Ptrs<T> {
    q: *const T,
    k: *const T,
    v: *const T,
    m: *const bool,
}

// SAFETY: the pointers are only read, under the guards `attention` holds
// until every tile is done.
unsafe impl<T: Sync> Sync for Ptrs<T> {}

/// The result's base pointer, shared by the tiles, each writing its own
/// block.
struct Out<T>(*mut T);

impl<T> Out<T> {
    /// The pointer (a method, so that a closure captures the whole `Out`,
    /// which is `Sync`, and not its field).
    fn ptr(&self) -> *mut T {
        self.0
    }
}

// SAFETY: tiles write disjoint blocks.
unsafe impl<T: Send> Sync for Out<T> {}
