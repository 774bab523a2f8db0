//! Matrix products on the CPU: batches of `dst = alpha * lhs @ rhs (+ beta *
//! dst)` over strided operands.
//!
//! Large `f32` products go to Intel AMX tiles where the processor has them
//! (`amx.rs`: the operands split into `bf16` parts, as accurate as the
//! vector path, about 1.1-1.3 times as fast on 2 threads); other `f32`
//! products and `f64` go to the `gemm` crates (`gemm-f32`, `gemm-f64`,
//! through `gemm_crates.rs`), whose AVX-512 kernels are chosen at run time
//! (their `x86-v4` feature; see `benches/README.md` for why); other element types go to a plain loop with PyTorch's
//! wrapping integer arithmetic. Operands are read in place through their strides: a
//! transposed or sliced operand is not copied, and a batch dimension of
//! stride 0 (an expanded operand) is iterated, not materialised.
//!
//! Batches are walked with the iteration plan. Before that, batch
//! dimensions over which the right operand is constant and the left operand
//! and the result continue their rows are folded into the rows, so that
//! `(16, 256, 256) @ (256, 256)` is one `4096 x 256 x 256` product (the right
//! operand packed once), as PyTorch folds it. The remaining batch runs in
//! parallel, one single-threaded product per task, when it has at least as
//! many entries as threads; otherwise each product is cut into tiles of
//! whole rows or columns, each a single-threaded product. Both run on the
//! CPU backend's pool (`pool.rs`), whose helper threads spin between calls.
//!
//! # Design
//! Why tiles rather than the crate's own threading: on a shared machine a
//! thread is often descheduled for a while, and a multithreaded GEMM whose
//! threads meet at every block then runs at the pace of the slowest one.
//! Tiles, handed out one at a time, let the free core take the slowed
//! thread's share, and the threads meet once. Measured on the Cascade Lake
//! machine of an earlier session (2 vCPUs, shared): f32 2048^3 at 108
//! GFLOP/s best and 108 median with tiles, against 94 and 91 with
//! `gemm::Parallelism::Rayon`. On the AVX-512 machine of 2026-11-23
//! (quiet), tiles on the pool and the crate's threading were level at
//! 1024^3 and 2048^3, and tiles ahead at 256^3 (349 against 333 GFLOP/s
//! best). A tile packs the whole of the operand it shares with the others,
//! so small products get one tile per thread ([`tile_count`]); a
//! single-threaded `2048^3` cut into 8 column tiles ran as fast as uncut.
//! Figures in `benches/README.md` ("Tile counts").
//!
//! The two entry points, [`gemm_new`] and [`gemm_into`], are safe: they
//! check that every layout stays inside its slice and that the
//! destination's elements are distinct, then call the `unsafe` core.
//!
//! **Contract** of every `unsafe fn` here: each pointer is the base of a
//! buffer, and every element address a [`Problem`] describes for that
//! operand (offset, plus index times stride over the batch, rows, columns
//! and the contracted dimension, for indices below the sizes) is in bounds
//! of it. The destination's addresses are pairwise distinct, except across
//! the batch in [`Batches::Sum`] mode, where the stride is 0; it does not
//! overlap either operand. For [`Accum::Add`] every destination element is
//! initialised; for [`Accum::Replace`] it may be uninitialised and is only
//! written.

use core::any::TypeId;

use super::alloc as cpu_alloc;
#[cfg(target_arch = "x86_64")]
use super::amx;
use super::gemm_crates;
use super::mat::Mat;
use super::pool;
use crate::element::Numeric;
use crate::iter::Plan;
use crate::shape::{DimVec, ShapeError};

/// Products smaller than this many multiply-adds run on one thread.
const PARALLEL_WORK: usize = 1 << 18;

/// One operand of a batched product.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MatDesc {
    /// The offset of element `[0, .., 0]` in the buffer.
    pub offset: usize,
    /// The stride of each batch dimension (0 where broadcast).
    pub batch_strides: DimVec,
    /// The stride between rows.
    pub rs: usize,
    /// The stride between columns.
    pub cs: usize,
}

/// Whether each batch entry has its own result or all add into one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Batches {
    /// `dst[i] = lhs[i] @ rhs[i]`.
    Each,
    /// `dst = sum over i of lhs[i] @ rhs[i]` (`addbmm`).
    Sum,
}

/// What happens to the destination's old values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Accum<T> {
    /// Ignored, NaN included: `dst = alpha * lhs @ rhs`.
    Replace,
    /// Scaled and added to: `dst = beta * dst + alpha * lhs @ rhs`.
    Add(T),
}

/// A batch of `m x k` by `k x n` products, with its destination.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Problem {
    /// Rows of each product.
    m: usize,
    /// Columns of each product.
    n: usize,
    /// The contracted size.
    k: usize,
    /// The batch sizes.
    batch: DimVec,
    /// Whether products are kept or summed over the batch.
    batches: Batches,
    /// The result.
    dst: MatDesc,
    /// The left operand (`m x k`).
    lhs: MatDesc,
    /// The right operand (`k x n`).
    rhs: MatDesc,
}

/// Base pointers of the three buffers, shareable across threads.
#[derive(Debug)]
struct Bases<T> {
    dst: *mut T,
    lhs: *const T,
    rhs: *const T,
}

impl<T> Bases<T> {
    /// The three pointers (a method, so closures capture the `Sync`
    /// wrapper, not its fields).
    fn parts(self) -> (*mut T, *const T, *const T) {
        (self.dst, self.lhs, self.rhs)
    }
}

impl<T> Clone for Bases<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Bases<T> {}
// SAFETY: the buffers outlive the kernel call (the caller holds their
// guards); tasks read the operands and write pairwise distinct destination
// elements (the module's contract), so sharing the pointers is sound.
unsafe impl<T: Send + Sync> Send for Bases<T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for Bases<T> {}

/// Whether the `gemm` crate has kernels for `T`.
fn has_simd_kernel<T: 'static>() -> bool {
    TypeId::of::<T>() == TypeId::of::<f32>() || TypeId::of::<T>() == TypeId::of::<f64>()
}

/// A batch of `m x k` by `k x n` products, given by its operands; the
/// destination is given where the product is run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct GemmProblem {
    /// Rows of each product.
    pub m: usize,
    /// Columns of each product.
    pub n: usize,
    /// The contracted size.
    pub k: usize,
    /// The batch sizes.
    pub batch: DimVec,
    /// Whether products are kept or summed over the batch.
    pub batches: Batches,
    /// The left operand (`m x k`).
    pub lhs: MatDesc,
    /// The right operand (`k x n`).
    pub rhs: MatDesc,
}

impl GemmProblem {
    fn with_dst(&self, dst: MatDesc) -> Problem {
        Problem {
            m: self.m,
            n: self.n,
            k: self.k,
            batch: self.batch.clone(),
            batches: self.batches,
            dst,
            lhs: self.lhs.clone(),
            rhs: self.rhs.clone(),
        }
    }

    /// The contiguous layout of a fresh result.
    fn contiguous_dst(&self) -> MatDesc {
        let mut batch_strides: DimVec = smallvec::smallvec![0; self.batch.len()];
        if self.batches == Batches::Each {
            let mut step = self.m * self.n;
            for (s, &d) in batch_strides.iter_mut().zip(&self.batch).rev() {
                *s = step;
                step *= d.max(1);
            }
        }
        MatDesc {
            offset: 0,
            batch_strides,
            rs: self.n,
            cs: 1,
        }
    }
}

/// `alpha * lhs @ rhs` into a new contiguous buffer (batch, rows, columns),
/// summed over the batch in [`Batches::Sum`] mode.
///
/// # Errors
/// When the result's buffer cannot be allocated (PyTorch's messages, see
/// `alloc.rs`).
///
/// # Panics
/// When an operand's layout reaches outside its buffer (an internal error:
/// layouts come from tensors).
pub(crate) fn gemm_new<T: Numeric>(
    p: &GemmProblem,
    lhs: &[T],
    rhs: &[T],
    alpha: T,
) -> Result<Vec<T>, ShapeError> {
    let mut sizes: DimVec = match p.batches {
        Batches::Each => p.batch.clone(),
        Batches::Sum => DimVec::new(),
    };
    sizes.extend_from_slice(&[p.m, p.n]);
    // The byte count is checked before the strides multiply sizes out.
    cpu_alloc::checked_len::<T>(&sizes)?;
    let q = p.with_dst(p.contiguous_dst());
    check_operands(&q, lhs, rhs);
    // SAFETY: the operands' extents lie in their slices (checked above);
    // the destination is a fresh contiguous buffer of `numel(sizes)` elements,
    // whose distinct addresses the problem covers exactly, every one written
    // by `Accum::Replace` (each product, or zeros for an empty sum).
    unsafe {
        cpu_alloc::try_alloc_filled_by(&sizes, |o| {
            run(&q, o, lhs.as_ptr(), rhs.as_ptr(), alpha, Accum::Replace)
        })
    }
}

/// `out = alpha * lhs @ rhs + beta * out` (per `accum`) in place, `out`
/// laid out by `dst`.
///
/// # Panics
/// When a layout reaches outside its buffer, or two elements of the
/// destination (outside a summed batch) may share an address (internal
/// errors: callers check overlap with PyTorch's message first).
pub(crate) fn gemm_into<T: Numeric>(
    p: &GemmProblem,
    dst: MatDesc,
    out: &mut [T],
    lhs: &[T],
    rhs: &[T],
    alpha: T,
    accum: Accum<T>,
) {
    let q = p.with_dst(dst);
    check_operands(&q, lhs, rhs);
    assert!(
        within(&q.dst, &q.batch, q.m, q.n, out.len()),
        "gemm: the destination's layout reaches outside its buffer"
    );
    let mut dims: DimVec = DimVec::from_slice(&[q.m, q.n]);
    let mut strides: DimVec = DimVec::from_slice(&[q.dst.rs, q.dst.cs]);
    if q.batches == Batches::Each {
        dims.extend_from_slice(&q.batch);
        strides.extend_from_slice(&q.dst.batch_strides);
    }
    assert!(
        non_overlapping(&dims, &strides),
        "gemm: elements of the destination may share memory"
    );
    // SAFETY: every operand's extent lies in its slice and the
    // destination's elements are distinct (checked above); `out` is a
    // `&mut` slice, so no operand slice overlaps it, and it is initialised.
    unsafe {
        run(
            &q,
            out.as_mut_ptr(),
            lhs.as_ptr(),
            rhs.as_ptr(),
            alpha,
            accum,
        )
    }
}

/// Panics unless both operands' layouts lie inside their buffers.
fn check_operands<T>(q: &Problem, lhs: &[T], rhs: &[T]) {
    assert!(
        within(&q.lhs, &q.batch, q.m, q.k, lhs.len()),
        "gemm: the left operand's layout reaches outside its buffer"
    );
    assert!(
        within(&q.rhs, &q.batch, q.k, q.n, rhs.len()),
        "gemm: the right operand's layout reaches outside its buffer"
    );
}

/// Whether every element a matrix layout addresses over the batch, `rows`
/// and `cols` is below `len` (true when there is none).
fn within(d: &MatDesc, batch: &[usize], rows: usize, cols: usize, len: usize) -> bool {
    let sizes = batch.iter().chain([&rows, &cols]);
    let strides = d.batch_strides.iter().chain([&d.rs, &d.cs]);
    let mut last = Some(d.offset);
    for (&size, &stride) in sizes.zip(strides) {
        if size == 0 {
            return true;
        }
        last = last.and_then(|l| {
            (size - 1)
                .checked_mul(stride)
                .and_then(|x| l.checked_add(x))
        });
    }
    last.is_some_and(|l| l < len)
}

/// A sufficient condition for a strided layout's elements to be distinct:
/// ordered by stride, each stride of a dimension larger than 1 exceeds the
/// extent of all smaller ones (true of every view `shaped` makes other than
/// an expanded one).
fn non_overlapping(dims: &[usize], strides: &[usize]) -> bool {
    if dims.contains(&0) {
        return true;
    }
    let mut order: Vec<(usize, usize)> = strides
        .iter()
        .zip(dims)
        .filter(|&(_, &d)| d > 1)
        .map(|(&s, &d)| (s, d))
        .collect();
    order.sort_unstable();
    let mut extent = 0usize;
    for (s, d) in order {
        if s <= extent {
            return false;
        }
        extent = match (d - 1).checked_mul(s).and_then(|x| x.checked_add(extent)) {
            Some(e) => e,
            None => return false,
        };
    }
    true
}

/// Runs the batched product `p`.
///
/// # Safety
/// The module's contract, for `p` over the buffers `dst`, `lhs`, `rhs`.
unsafe fn run<T: Numeric>(
    p: &Problem,
    dst: *mut T,
    lhs: *const T,
    rhs: *const T,
    alpha: T,
    accum: Accum<T>,
) {
    if p.m == 0 || p.n == 0 {
        return;
    }
    let bases = Bases { dst, lhs, rhs };
    // SAFETY: forwarded to the caller.
    unsafe {
        match p.batches {
            Batches::Each => each(&fold_into_rows(p), bases, alpha, accum),
            Batches::Sum => sum(p, bases, alpha, accum),
        }
    }
}

/// `p` with batch dimensions folded into the rows where that describes the
/// same elements: the right operand does not move along the dimension, and
/// the left operand and the destination step by exactly `m` rows.
fn fold_into_rows(p: &Problem) -> Problem {
    let mut q = p.clone();
    while let Some(i) = q.batch.len().checked_sub(1) {
        let size = q.batch[i];
        let (sl, sd) = (q.lhs.batch_strides[i], q.dst.batch_strides[i]);
        if size != 1 {
            if q.rhs.batch_strides[i] != 0 {
                break;
            }
            if q.m == 1 {
                // A single row: its row stride is free to become the step.
                (q.lhs.rs, q.dst.rs) = (sl, sd);
            } else if sl != q.m * q.lhs.rs || sd != q.m * q.dst.rs {
                break;
            }
            q.m *= size;
        }
        q.batch.pop();
        for d in [&mut q.dst, &mut q.lhs, &mut q.rhs] {
            d.batch_strides.pop();
        }
    }
    q
}

/// One product per batch entry.
///
/// # Safety
/// The module's contract.
unsafe fn each<T: Numeric>(p: &Problem, bases: Bases<T>, alpha: T, accum: Accum<T>) {
    let nb: usize = p.batch.iter().product();
    if nb == 0 {
        return;
    }
    let plan = Plan::new(
        &p.batch,
        [
            (&p.dst.batch_strides, p.dst.offset),
            (&p.lhs.batch_strides, p.lhs.offset),
            (&p.rhs.batch_strides, p.rhs.offset),
        ],
    );
    let work = p.m.saturating_mul(p.n).saturating_mul(p.k);
    let threads = pool::threads();
    let parallel = threads > 1 && work.saturating_mul(nb) >= PARALLEL_WORK;
    let run = |start: usize, end: usize, par: Par| {
        plan.segments(start, end, |offs, st, len| {
            for i in 0..len {
                let at = |j: usize| offs[j] + i * st[j];
                // SAFETY: the plan yields each batch entry's offsets, in
                // bounds by the module's contract.
                unsafe { single(p, bases, [at(0), at(1), at(2)], alpha, accum, par) };
            }
        });
    };
    if parallel && nb >= threads {
        let chunks = nb.min(threads * 8);
        pool::for_each_tile(chunks, &|c| {
            run(c * nb / chunks, (c + 1) * nb / chunks, Par::Seq)
        });
    } else {
        run(0, nb, if parallel { Par::Pool } else { Par::Seq });
    }
}

/// One product: the sum over the batch.
///
/// # Safety
/// The module's contract.
unsafe fn sum<T: Numeric>(p: &Problem, bases: Bases<T>, alpha: T, accum: Accum<T>) {
    let nb: usize = p.batch.iter().product();
    if p.m == 0 || p.n == 0 {
        // An empty destination: nothing to write, no offset to apply.
        return;
    }
    let dst = Mat {
        // SAFETY: the destination's offset is in bounds (contract).
        ptr: unsafe { bases.dst.add(p.dst.offset) },
        rs: p.dst.rs,
        cs: p.dst.cs,
    };
    if nb == 0 || p.k == 0 {
        // SAFETY: the destination's `m x n` elements are in bounds.
        unsafe { scale(p.m, p.n, dst, accum) };
        return;
    }
    let plan = Plan::new(
        &p.batch,
        [
            (&p.lhs.batch_strides, p.lhs.offset),
            (&p.rhs.batch_strides, p.rhs.offset),
        ],
    );
    let work = p.m.saturating_mul(p.n).saturating_mul(p.k);
    let par = if pool::threads() > 1 && work >= PARALLEL_WORK {
        Par::Pool
    } else {
        Par::Seq
    };
    let mut acc = accum;
    plan.segments(0, nb, |offs, st, len| {
        for i in 0..len {
            let offsets = [p.dst.offset, offs[0] + i * st[0], offs[1] + i * st[1]];
            // SAFETY: the plan yields in-bounds operand offsets; the entries
            // run one after another, each adding into the destination.
            unsafe { single(p, bases, offsets, alpha, acc, par) };
            acc = Accum::Add(T::one());
        }
    });
}

/// `dst = 0` (replace) or `dst = beta * dst` (add): an empty sum.
///
/// # Safety
/// `dst`'s `m x n` elements are in bounds and distinct.
unsafe fn scale<T: Numeric>(m: usize, n: usize, dst: Mat<*mut T>, accum: Accum<T>) {
    for i in 0..m {
        for j in 0..n {
            // SAFETY: `i < m`, `j < n`: in bounds by the caller's promise.
            unsafe {
                let d = dst.ptr.add(i * dst.rs + j * dst.cs);
                d.write(match accum {
                    Accum::Replace => T::zero(),
                    Accum::Add(beta) => beta.wmul(d.read()),
                });
            }
        }
    }
}

/// Whether one product may use several threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Par {
    /// On the calling thread.
    Seq,
    /// Cut into tiles run by the calling thread and the pool's helpers.
    Pool,
}

/// One `m x k` by `k x n` product at the given offsets of the three buffers.
///
/// # Safety
/// The module's contract, for one batch entry at `offsets`.
unsafe fn single<T: Numeric>(
    p: &Problem,
    bases: Bases<T>,
    offsets: [usize; 3],
    alpha: T,
    accum: Accum<T>,
    par: Par,
) {
    // A product with no elements writes nothing; an operand with no
    // elements (`k == 0`) is never read. Neither may take part in pointer
    // arithmetic: its offset (batch index times a stride) can point past the
    // end of an empty buffer, and `add` there is undefined behaviour.
    if p.m == 0 || p.n == 0 {
        return;
    }
    let operand = |base: *const T, offset: usize| {
        if p.k == 0 {
            base
        } else {
            // SAFETY: the offset is in bounds of a non-empty operand
            // (contract).
            unsafe { base.add(offset) }
        }
    };
    let (dst, lhs, rhs) = (
        Mat {
            // SAFETY: the destination has `m * n > 0` elements and the
            // offset is in bounds (contract).
            ptr: unsafe { bases.dst.add(offsets[0]) },
            rs: p.dst.rs,
            cs: p.dst.cs,
        },
        Mat {
            ptr: operand(bases.lhs, offsets[1]),
            rs: p.lhs.rs,
            cs: p.lhs.cs,
        },
        Mat {
            ptr: operand(bases.rhs, offsets[2]),
            rs: p.rhs.rs,
            cs: p.rhs.cs,
        },
    );
    let dims = (p.m, p.n, p.k);
    // SAFETY: forwarded.
    if unsafe { amx_product(dims, dst, lhs, rhs, alpha, accum, par) } {
        return;
    }
    // SAFETY: forwarded.
    unsafe {
        match par {
            Par::Pool => tiled(dims, dst, lhs, rhs, alpha, accum),
            Par::Seq => kernel(dims, dst, lhs, rhs, alpha, accum),
        }
    }
}

/// Runs an `f32` product on AMX tiles (`amx.rs`) when the machine has them
/// and the product is large enough; false when it did not (other types,
/// other machines, small products, or an operand value outside the AMX
/// path's range), with the destination untouched.
///
/// # Safety
/// The module's contract for one product.
#[cfg(target_arch = "x86_64")]
unsafe fn amx_product<T: Numeric>(
    (m, n, k): (usize, usize, usize),
    dst: Mat<*mut T>,
    lhs: Mat<*const T>,
    rhs: Mat<*const T>,
    alpha: T,
    accum: Accum<T>,
    par: Par,
) -> bool {
    use core::any::Any;
    let as_f32 = |x: &T| (x as &dyn Any).downcast_ref::<f32>().copied();
    let Some(alpha) = as_f32(&alpha) else {
        return false;
    };
    if !(amx::worth_it(m, n, k) && amx::enabled()) {
        return false;
    }
    let beta = match accum {
        Accum::Replace => None,
        Accum::Add(beta) => as_f32(&beta),
    };
    // SAFETY: `T` is `f32` (the downcast succeeded), so the pointers are
    // `f32` pointers; the layouts are as the module's contract states,
    // which is `amx::product`'s; AMX is enabled (checked).
    unsafe {
        amx::product(
            (m, n, k),
            dst.cast(),
            lhs.cast(),
            rhs.cast(),
            alpha,
            beta,
            par == Par::Pool,
        )
    }
}

/// Without AMX (not x86_64), every product takes the other paths.
///
/// # Safety
/// None needed; `unsafe` to match the x86_64 version.
#[cfg(not(target_arch = "x86_64"))]
unsafe fn amx_product<T: Numeric>(
    _: (usize, usize, usize),
    _: Mat<*mut T>,
    _: Mat<*const T>,
    _: Mat<*const T>,
    _: T,
    _: Accum<T>,
    _: Par,
) -> bool {
    false
}

/// One product on the calling thread: the `gemm` crate for `f32` and
/// `f64`, the plain loop otherwise.
///
/// # Safety
/// The module's contract for one product.
pub(super) unsafe fn kernel<T: Numeric>(
    dims: (usize, usize, usize),
    dst: Mat<*mut T>,
    lhs: Mat<*const T>,
    rhs: Mat<*const T>,
    alpha: T,
    accum: Accum<T>,
) {
    // SAFETY: forwarded; `simd` gets only the types it supports.
    unsafe {
        if has_simd_kernel::<T>() {
            simd(dims, dst, lhs, rhs, alpha, accum)
        } else {
            plain(dims, dst, lhs, rhs, alpha, accum)
        }
    }
}

/// Output channels per product at most: the `gemm` crate reads the right
/// operand (a convolution's padded input, or its window rows) in place, without packing a copy of it, when
/// a product has at most 48 output rows (8 of its 6-column kernels; its
/// default threshold for one thread), and the output's rows are cut into
/// blocks of at most this many.
const ROW_BLOCK: usize = 48;

/// `rows` cut into blocks of at most [`ROW_BLOCK`]: (first row, rows).
pub(super) fn row_blocks(rows: usize) -> impl Iterator<Item = (usize, usize)> {
    // Blocks of a multiple of the kernels' 6 columns where they can be,
    // so that only the last has an edge: 64 is 36 + 28, not 32 + 32.
    let size = rows.div_ceil(rows.div_ceil(ROW_BLOCK).max(1)).div_ceil(6) * 6;
    (0..rows.div_ceil(size.max(1))).map(move |i| (i * size, size.min(rows - i * size)))
}

/// The most tiles per thread when one product is split across threads.
const MAX_TILES_PER_THREAD: usize = 4;
/// Rows or columns per thread for each tile beyond the first.
const TILE_STEP: usize = 256;

/// How many tiles a product whose longer side is `len` is cut into, for
/// `threads` threads: one per thread while each thread's share is under
/// [`TILE_STEP`] wide, then one more per thread for each further
/// [`TILE_STEP`], up to [`MAX_TILES_PER_THREAD`]. Small products are not
/// cut finer because each tile packs all of the operand it shares with the
/// others; large ones are, so that a thread slowed down by other load takes
/// fewer tiles (`benches/README.md`, "Tile counts").
fn tile_count(len: usize, threads: usize) -> usize {
    let per_thread = (len / threads.max(1) / TILE_STEP).clamp(1, MAX_TILES_PER_THREAD);
    (threads * per_thread).min(len).max(1)
}

/// One product on all threads: cut into tiles of whole columns or whole
/// rows (which, the body says, with its measurement), each a
/// single-threaded product, run by
/// the calling thread and the pool's helpers (`pool.rs`: they spin between
/// calls, so a product of 100 us does not wait for threads to wake). The
/// threads meet once, at the end, instead of at every block of a
/// multithreaded GEMM; each tile packs its share of one operand and all of
/// the other.
///
/// # Safety
/// The module's contract for one product; tiles write disjoint parts of the
/// destination.
unsafe fn tiled<T: Numeric>(
    (m, n, k): (usize, usize, usize),
    dst: Mat<*mut T>,
    lhs: Mat<*const T>,
    rhs: Mat<*const T>,
    alpha: T,
    accum: Accum<T>,
) {
    let threads = pool::threads();
    // Columns when there are more columns; a square product is cut into
    // rows when each thread gets one tile (f32 256^3: 3% faster best, 6%
    // median, 12 interleaved runs, 2 threads, 2026-11-23) and into columns
    // when cut finer (rows were 6-10% slower at 1024^3 and 2048^3).
    let by_cols = if tile_count(m.max(n), threads) == threads {
        n > m
    } else {
        n >= m
    };
    let len = if by_cols { n } else { m };
    let tiles = tile_count(len, threads);
    let bases = Bases {
        dst: dst.ptr,
        lhs: lhs.ptr,
        rhs: rhs.ptr,
    };
    let [drs, dcs, lrs, lcs, rrs, rcs] = [dst.rs, dst.cs, lhs.rs, lhs.cs, rhs.rs, rhs.cs];
    pool::for_each_tile(tiles, &|t| {
        let (start, end) = (t * len / tiles, (t + 1) * len / tiles);
        let (d, l, r) = bases.parts();
        // Where the tile starts in each operand, and its sizes.
        let (dims, d_at, l_at, r_at) = if by_cols {
            ((m, end - start, k), start * dcs, 0, start * rcs)
        } else {
            ((end - start, n, k), start * drs, start * lrs, 0)
        };
        // SAFETY: the tile's rows or columns lie inside the product's, in
        // bounds by the contract; tiles write disjoint destination elements.
        unsafe {
            kernel(
                dims,
                Mat {
                    ptr: d.add(d_at),
                    rs: drs,
                    cs: dcs,
                },
                Mat {
                    ptr: l.add(l_at),
                    rs: lrs,
                    cs: lcs,
                },
                Mat {
                    ptr: r.add(r_at),
                    rs: rrs,
                    cs: rcs,
                },
                alpha,
                accum,
            );
        }
    });
}

/// One product through the `gemm` crate (`f32`, `f64`).
///
/// # Safety
/// The module's contract for one product; `T` is `f32` or `f64`.
unsafe fn simd<T: Numeric>(
    (m, n, k): (usize, usize, usize),
    dst: Mat<*mut T>,
    lhs: Mat<*const T>,
    rhs: Mat<*const T>,
    alpha: T,
    accum: Accum<T>,
) {
    // The crate computes `dst = a * dst + b * lhs @ rhs`, reading `dst` only
    // when asked to.
    let (read_dst, a) = match accum {
        Accum::Replace => (false, T::zero()),
        Accum::Add(beta) => (true, beta),
    };
    let s = |x: usize| x as isize;
    // SAFETY: `T` is one of the crate's types (it panics on others, never
    // reached); every address it forms is `ptr + i*rs + j*cs` for indices
    // below the sizes, in bounds by the contract; `dst` is written only at
    // its own distinct elements and, without `read_dst`, never read.
    unsafe {
        gemm_crates::gemm(
            m,
            n,
            k,
            dst.ptr,
            s(dst.cs),
            s(dst.rs),
            read_dst,
            lhs.ptr,
            s(lhs.cs),
            s(lhs.rs),
            rhs.ptr,
            s(rhs.cs),
            s(rhs.rs),
            a,
            alpha,
            gemm_crates::Parallelism::None,
        );
    }
}

/// One product with a plain loop, for integer types: wrapping arithmetic,
/// as PyTorch's integer kernels.
///
/// # Safety
/// The module's contract for one product.
unsafe fn plain<T: Numeric>(
    (m, n, k): (usize, usize, usize),
    dst: Mat<*mut T>,
    lhs: Mat<*const T>,
    rhs: Mat<*const T>,
    alpha: T,
    accum: Accum<T>,
) {
    let mut row = vec![T::zero(); n];
    for i in 0..m {
        row.fill(T::zero());
        for p in 0..k {
            // SAFETY: `i < m`, `p < k`, `j < n`: in bounds by the contract.
            unsafe {
                let a = *lhs.ptr.add(i * lhs.rs + p * lhs.cs);
                let b = rhs.ptr.add(p * rhs.rs);
                for (j, acc) in row.iter_mut().enumerate() {
                    *acc = acc.wadd(a.wmul(*b.add(j * rhs.cs)));
                }
            }
        }
        for (j, &acc) in row.iter().enumerate() {
            // SAFETY: as above; the destination element is this row's own.
            unsafe {
                let d = dst.ptr.add(i * dst.rs + j * dst.cs);
                let product = alpha.wmul(acc);
                d.write(match accum {
                    Accum::Replace => product,
                    Accum::Add(beta) => beta.wmul(d.read()).wadd(product),
                });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(offset: usize, batch_strides: &[usize], rs: usize, cs: usize) -> MatDesc {
        MatDesc {
            offset,
            batch_strides: DimVec::from_slice(batch_strides),
            rs,
            cs,
        }
    }

    #[test]
    fn a_broadcast_right_operand_folds_into_rows() {
        // (16, 8, 4) @ (4, 5), all contiguous.
        let p = Problem {
            m: 8,
            n: 5,
            k: 4,
            batch: DimVec::from_slice(&[16]),
            batches: Batches::Each,
            dst: desc(0, &[40], 5, 1),
            lhs: desc(0, &[32], 4, 1),
            rhs: desc(0, &[0], 5, 1),
        };
        let q = fold_into_rows(&p);
        assert_eq!((q.m, q.batch.len()), (128, 0));
        // A transposed left operand does not continue its rows: kept.
        let mut t = p.clone();
        t.lhs = desc(0, &[32], 1, 8);
        assert_eq!(fold_into_rows(&t).m, 8);
    }

    #[test]
    fn layouts_are_checked_before_the_kernel_runs() {
        // A (2, 3, 4) batch, contiguous: last element at 23.
        let d = desc(0, &[12], 4, 1);
        assert!(within(&d, &[2], 3, 4, 24));
        assert!(!within(&d, &[2], 3, 4, 23));
        assert!(within(&desc(100, &[12], 4, 1), &[2], 0, 4, 0));
        // Transposed and sliced layouts are distinct; expanded ones are not.
        assert!(non_overlapping(&[3, 4], &[1, 3]));
        assert!(non_overlapping(&[2, 3], &[8, 1]));
        assert!(!non_overlapping(&[3, 4], &[0, 1]));
        assert!(!non_overlapping(&[3, 4], &[2, 1]));
    }

    #[test]
    #[should_panic(expected = "the left operand's layout reaches outside its buffer")]
    fn an_operand_outside_its_buffer_panics() {
        let p = GemmProblem {
            m: 2,
            n: 2,
            k: 2,
            batch: DimVec::new(),
            batches: Batches::Each,
            lhs: desc(0, &[], 2, 1),
            rhs: desc(0, &[], 2, 1),
        };
        let _ = gemm_new(&p, &[1.0f32; 3], &[1.0; 4], 1.0);
    }

    #[test]
    fn plain_kernel_wraps_and_accumulates() {
        let a = [200u8, 3, 1, 1];
        let b = [2u8, 1];
        let mut d = [10u8, 20];
        // SAFETY: 2x2 by 2x1 into 2x1, all contiguous and in bounds.
        unsafe {
            plain(
                (2, 1, 2),
                Mat {
                    ptr: d.as_mut_ptr(),
                    rs: 1,
                    cs: 1,
                },
                Mat {
                    ptr: a.as_ptr(),
                    rs: 2,
                    cs: 1,
                },
                Mat {
                    ptr: b.as_ptr(),
                    rs: 1,
                    cs: 1,
                },
                1,
                Accum::Add(2),
            );
        }
        // 200*2 + 3 = 403 wraps to 147; + 2*10 = 167. 1*2 + 1 = 3; + 40 = 43.
        assert_eq!(d, [167, 43]);
    }
}
