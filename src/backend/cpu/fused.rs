//! The CPU evaluation of a fused expression (`backend::fused::Expr`): one
//! parallel pass over the iteration plan of the output and every tensor
//! leaf, on the same pool and plan as the eager kernels.
//!
//! Each inner loop of the plan is cut into blocks of [`BLOCK`] elements.
//! Over a block, each tensor leaf is a [`Lane`] ([`Block::lane`]): the
//! slice of its tensor itself when its inner stride is 1, one chunk of
//! [`CHUNK`] repeated values when 0 (a broadcast operand, filled once per
//! row), another stride a block gathered into a per-thread arena. The
//! whole tree is then one scalar function of an element's position
//! (`CpuExpr::at`, `lower.rs`), run by loops of constant length over the block's chunks,
//! which the compiler vectorises with every intermediate value in
//! registers: memory is read once per leaf and the output written once,
//! whatever the chain's length. A reduction at the end of a chain folds
//! the same function's values into accumulators, without storing them;
//! a backward pass computes every input's adjoint from the same block
//! (`each.rs`).
//! Large existing outputs are written with streaming stores (`store.rs`),
//! as the eager `out=` forms are. An expression that calls a transcendental function (`exp`,
//! `erf`, ...) is compute-bound and runs with the widest vectors the
//! processor has; the others are memory-bound and run with the baseline
//! ones, as the eager kernels do ([`writer`]).
//!
//! Every `unsafe` block here rests on one invariant of [`Block`]: it is made
//! only by [`run`], from a plan whose every offset lies inside the buffer
//! of its operand (the tensor layout invariant), while read guards on every
//! leaf's storage are held; a leaf's element type is checked against the
//! type recorded for its index before any read.

use core::any::TypeId;
use core::mem::MaybeUninit;
use std::sync::Arc;

mod adjoint;
mod each;
mod lower;
pub use adjoint::CpuAdjoint;
pub use each::Sink;
pub(crate) use each::{Each, eval_each};
pub use lower::CpuExpr;

use super::exec::Layout;
use super::exec::{check_no_internal_overlap, partial_overlap};
use super::isa::{Vectors, fold_in_memory_order, light_wide_default, read_ahead_blocks, widest};
use super::locks::addr;
use super::pool;
use super::primitives::whole;
use super::reduce::{Reducer, Run as ReduceRun};
use super::reducers::{Extreme, Sum};
use super::storage::Storage;
use super::store::{prefetch_lines, store_fence, stream_copy, stream_span, streams};
use crate::backend::Output;
use crate::backend::fused::{Expr, Leaves};
use crate::backend::layout::Owned;
use crate::backend::op::Reduction;
use crate::device::Cpu;
use crate::element::Element;
use crate::element::Numeric;
use crate::iter::{Plan, contiguous_strides};
use crate::shape::{DimVec, ShapeError};

/// The most tensor leaves one expression may read (evaluate a part first
/// with `eval` for more).
///
/// ```
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![2]>::ones();
/// let sixteen = a.lazy() + &a + &a + &a + &a + &a + &a + &a + &a + &a + &a + &a + &a + &a + &a + &a;
/// assert_eq!(shaped::backend::fused::MAX_LEAVES, 15);
/// assert!(sixteen.try_eval().is_err());
/// ```
pub const MAX_LEAVES: usize = 15;

/// Elements per block. Per block the expression runs as one loop of
/// constant length ([`BLOCK`]) over its leaves' lanes, so a longer block
/// amortises the block's set-up (256, 512, 1024 and 2048 measured: 256 and
/// 512 were slower on the memory-bound chains, 1024 and 2048 alike); the
/// lanes that are copies (broadcast or strided leaves) and the
/// reductions' block values stay in the L2 cache.
pub const BLOCK: usize = 1024;

/// Operands of a plan: the output and [`MAX_LEAVES`] leaves.
const OPERANDS: usize = MAX_LEAVES + 1;

/// A node's value over a block.
#[derive(Clone, Copy, Debug)]
pub enum Run<'s, T> {
    /// Every element is this value (a stride-0 leaf, a scalar, or an
    /// operation on such values only).
    Splat(T),
    /// One value per element of the block.
    Slice(&'s [T]),
}

/// A block's worth of scratch space for a node's value, taken from the
/// evaluation's `Arena` ([`Block::scratch`]) and given back when dropped:
/// one per node on the way down a backward pass, so a node's frame holds a
/// pointer, not the block (a 24-operation chain's backward pass overflowed
/// a 2 MiB thread stack in debug builds, where every inlined node kept its
/// own 8 KiB array).
#[derive(Debug)]
pub struct Scratch<'b, T> {
    cells: &'b mut [MaybeUninit<T>; BLOCK],
    depth: &'b core::cell::Cell<usize>,
    index: usize,
}

impl<T> Drop for Scratch<'_, T> {
    fn drop(&mut self) {
        self.depth.set(self.index);
    }
}

/// Writes `f` of each element of `a` into `dst`.
#[inline(always)]
pub fn write1<A: Copy, O: Copy>(dst: &mut [MaybeUninit<O>], a: Run<'_, A>, f: impl Fn(A) -> O) {
    match a {
        Run::Splat(x) => {
            let v = f(x);
            for o in dst {
                o.write(v);
            }
        }
        Run::Slice(a) => {
            let n = dst.len();
            for (o, &x) in dst.iter_mut().zip(&a[..n]) {
                o.write(f(x));
            }
        }
    }
}

/// Copies a run into `dst`.
#[inline(always)]
pub fn write_run<T: Copy>(dst: &mut [MaybeUninit<T>], r: Run<'_, T>) {
    write1(dst, r, |x| x)
}

impl<T: Copy> Scratch<'_, T> {
    /// `f(g, c, j)` for element `c * CHUNK + j` of a block of `len`
    /// elements, `g` being `adj`'s element there: one step of a fused
    /// backward pass (a node's adjoint from its parent's and its operands'
    /// lanes), as one vectorised loop.
    #[inline(always)]
    pub fn step(
        &mut self,
        len: usize,
        adj: Run<'_, T>,
        f: impl Fn(T, usize, usize) -> T,
    ) -> Run<'_, T> {
        // Every closure here is inlined: one that is not is compiled
        // without the target features of the caller (`in_avx512`), and
        // a backward pass through `gelu` ran its `erf` with SSE2 vectors.
        self.filled(
            len,
            #[inline(always)]
            |dst| match adj {
                Run::Splat(g) => fill_chunked(
                    dst,
                    #[inline(always)]
                    |c, j| f(g, c, j),
                ),
                Run::Slice(v) => match <&[T; BLOCK]>::try_from(v) {
                    Ok(v) if len == BLOCK => fill_chunked(
                        dst,
                        #[inline(always)]
                        |c, j| f(v[c * CHUNK + j], c, j),
                    ),
                    _ => {
                        let v = &v[..len];
                        fill_chunked(
                            dst,
                            #[inline(always)]
                            |c, j| f(v[c * CHUNK + j], c, j),
                        )
                    }
                },
            },
        )
    }

    /// The first `len` elements after `fill` wrote them (`write1`,
    /// [`fill_chunked`] and every `Source::write` write every element of
    /// their `dst`).
    #[inline(always)]
    fn filled(&mut self, len: usize, fill: impl FnOnce(&mut [MaybeUninit<T>])) -> Run<'_, T> {
        let dst = &mut self.cells[..len];
        fill(dst);
        // SAFETY: `fill` is `write1`, `fill_chunked` or a `Source::write`,
        // each of which writes every element of the slice it is given.
        Run::Slice(unsafe { &*(dst as *const [MaybeUninit<T>] as *const [T]) })
    }
}

/// Writes `f(c, j)` into element `c * CHUNK + j` of `dst` (at most
/// [`BLOCK`] elements), for every element: a whole block as loops of
/// constant length over its chunks, which the compiler vectorises without
/// bounds checks (over `0..len` it kept them and ran the last vector
/// iterations one element at a time).
///
/// ```
/// use core::mem::MaybeUninit;
/// use shaped::backend::fused::{CHUNK, fill_chunked};
/// let mut d = [MaybeUninit::<usize>::uninit(); 300];
/// fill_chunked(&mut d, |c, j| c * CHUNK + j);
/// assert!(d.iter().enumerate().all(|(i, x)| unsafe { x.assume_init() } == i));
/// ```
#[inline(always)]
pub fn fill_chunked<T>(dst: &mut [MaybeUninit<T>], f: impl Fn(usize, usize) -> T) {
    if let Ok(dst) = <&mut [MaybeUninit<T>; BLOCK]>::try_from(&mut *dst) {
        for (c, d) in dst.as_chunks_mut::<CHUNK>().0.iter_mut().enumerate() {
            for (j, o) in d.iter_mut().enumerate() {
                o.write(f(c, j));
            }
        }
    } else {
        for (i, o) in dst.iter_mut().enumerate() {
            o.write(f(i / CHUNK, i % CHUNK));
        }
    }
}

/// One leaf's buffer as the blocks read it: its base pointer, its
/// element type and that type's size in bytes.
#[derive(Clone, Copy, Debug)]
struct LeafPtr {
    ptr: *const u8,
    ty: TypeId,
    size: usize,
}

/// The leaves' buffers of one evaluation.
#[derive(Debug)]
struct LeafPtrs([LeafPtr; MAX_LEAVES]);
// SAFETY: the buffers are only read, under read guards held for the whole
// evaluation.
unsafe impl Sync for LeafPtrs {}
// SAFETY: as above.
unsafe impl Send for LeafPtrs {}

/// Where one block of an evaluation lies: for each leaf, its buffer, the
/// offset of the block's first element and the inner stride; and the
/// block's length.
#[derive(Debug)]
pub struct Block<'a> {
    leaves: &'a LeafPtrs,
    offs: &'a [usize; OPERANDS],
    st: &'a [usize; OPERANDS],
    at: usize,
    len: usize,
    arena: &'a mut Arena,
}

/// Space for the leaves' lanes ([`Block::lane`]) and the nodes' scratch
/// blocks ([`Block::scratch`]) of one tile's evaluation, on the heap (a
/// handle on the stack): 120 KiB on the stack made each tile probe its pages
/// and debug builds' frames deep. Freed arenas are kept per thread for the
/// next tile.
pub struct Arena(Option<Box<ArenaMem>>);

/// What an [`Arena`] holds.
pub struct ArenaMem {
    /// One region of [`BLOCK`] 8-byte cells per leaf, handed out at most
    /// once per block.
    cells: core::cell::UnsafeCell<[MaybeUninit<u64>; BLOCK * MAX_LEAVES]>,
    taken: core::cell::Cell<u16>,
    /// For each leaf, the address of the broadcast value its region holds
    /// repeated over its first [`CHUNK`], or 0: a stride-0 leaf keeps its
    /// value across the blocks of a row (a `(n, 1)` operand), and refilling
    /// the lane every block queued 4 KiB of stores behind the output's (19%
    /// of `a + c` into an existing output, `perf annotate`).
    splat: [core::cell::Cell<usize>; MAX_LEAVES],
    /// For each leaf, the element type every one of its region's `BLOCK`
    /// cells holds a value of (written by a padded gather, then only
    /// overwritten by values of that type), or `None`: a short block's
    /// gather then pads only when the region's tail is not already valid
    /// for its type. Padding every short block to `BLOCK` lanes was 20% of
    /// a small MLP's training step (callgrind: a 4 KiB `memset` per leaf
    /// per pass over a bias).
    padded: [core::cell::Cell<Option<core::any::TypeId>>; MAX_LEAVES],
    /// The scratch blocks, a stack of `BLOCK` 8-byte cells each (allocated
    /// by `Box`, owned here), and how many are handed out.
    scratch: core::cell::UnsafeCell<Vec<*mut [MaybeUninit<u64>; BLOCK]>>,
    depth: core::cell::Cell<usize>,
}

impl Drop for ArenaMem {
    fn drop(&mut self) {
        for &p in self.scratch.get_mut().iter() {
            // SAFETY: every pointer came from `Box::into_raw` in
            // `Block::scratch` and is freed once, here.
            drop(unsafe { Box::from_raw(p) });
        }
    }
}

thread_local! {
    /// Arenas of finished tiles, for this thread's next ones.
    static ARENAS: core::cell::RefCell<Vec<Box<ArenaMem>>> = const { core::cell::RefCell::new(Vec::new()) };
}

/// How many freed arenas a thread keeps (one per nesting level in use).
const KEPT_ARENAS: usize = 2;

impl core::fmt::Debug for Arena {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Arena")
    }
}

impl core::ops::Deref for Arena {
    type Target = ArenaMem;
    #[inline(always)]
    fn deref(&self) -> &ArenaMem {
        match &self.0 {
            Some(m) => m,
            None => unreachable!("an arena holds its memory until dropped"),
        }
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        if let Some(m) = self.0.take() {
            // A thread being torn down has no cache: the arena is freed.
            let _ = ARENAS.try_with(|a| {
                let mut a = a.borrow_mut();
                if a.len() < KEPT_ARENAS {
                    a.push(m);
                }
            });
        }
    }
}

impl Arena {
    fn new() -> Self {
        if let Ok(Some(m)) = ARENAS.try_with(|a| a.borrow_mut().pop()) {
            // The lanes a splat region held belong to the last evaluation:
            // a new leaf may lie at the same address with another value.
            for held in &m.splat {
                held.set(0);
            }
            return Arena(Some(m));
        }
        let mut m = Box::<ArenaMem>::new_uninit();
        let p = m.as_mut_ptr();
        // SAFETY: `p` points to the box's memory, valid for writes; every
        // field but `cells` (uninitialised memory by type) is written
        // before `assume_init`.
        unsafe {
            core::ptr::addr_of_mut!((*p).taken).write(core::cell::Cell::new(0));
            core::ptr::addr_of_mut!((*p).splat)
                .write([const { core::cell::Cell::new(0) }; MAX_LEAVES]);
            core::ptr::addr_of_mut!((*p).padded)
                .write([const { core::cell::Cell::new(None) }; MAX_LEAVES]);
            core::ptr::addr_of_mut!((*p).scratch).write(core::cell::UnsafeCell::new(Vec::new()));
            core::ptr::addr_of_mut!((*p).depth).write(core::cell::Cell::new(0));
            Arena(Some(m.assume_init()))
        }
    }
}

impl ArenaMem {
    /// Leaf `k`'s region, for elements of `T` (at most 8 bytes, aligned to
    /// at most 8): `BLOCK` of them.
    ///
    /// # Panics
    /// When the region was already handed out for this block.
    fn region<T>(&self, k: usize) -> *mut T {
        let bit = 1u16 << k;
        assert!(
            self.taken.get() & bit == 0,
            "fused leaf {k} read twice in one block"
        );
        self.taken.set(self.taken.get() | bit);
        // SAFETY: `k < MAX_LEAVES` (the leaf table's bound, checked by the
        // caller's indexing), so the region's `BLOCK` cells are inside the
        // array; cells are 8 bytes and 8-aligned, enough for `T`.
        unsafe { (self.cells.get() as *mut MaybeUninit<u64>).add(k * BLOCK) as *mut T }
    }
}

/// The block of `len` elements at `at` of a segment whose operands start at
/// `offs` and step by `st`, with `arena` for its lanes. The block borrows
/// the segment's offsets and strides (copying them per block stalled on
/// store forwarding: 12% of a single fused add, `perf annotate`).
#[inline(always)]
fn make_block<'a>(
    leaves: &'a LeafPtrs,
    offs: &'a [usize; OPERANDS],
    st: &'a [usize; OPERANDS],
    at: usize,
    len: usize,
    arena: &'a mut Arena,
) -> Block<'a> {
    arena.taken.set(0);
    arena.depth.set(0);
    Block {
        leaves,
        offs,
        st,
        at,
        len,
        arena,
    }
}

impl Block<'_> {
    /// The number of elements in the block.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the block is empty (never, for blocks [`run`] makes).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `f` of the block, after which the leaves' lanes `f` took
    /// ([`Block::lane`]) may be taken again: a backward pass reads a leaf's
    /// lane once per node above it. The lanes cannot outlive `f` (they
    /// borrow the block for `f`'s call only), so a later lane may refill
    /// their arena regions.
    #[inline(always)]
    pub fn scoped<R>(&self, f: impl FnOnce(&Block<'_>) -> R) -> R {
        let taken = self.arena.taken.get();
        let r = f(self);
        self.arena.taken.set(taken);
        r
    }

    /// A block of scratch space for a node's value, given back when the
    /// returned value is dropped (scratch blocks are taken and given back
    /// in stack order, as a pass down the tree does).
    ///
    /// # Panics
    /// When `T` is larger than 8 bytes or aligned to more.
    #[inline(always)]
    pub fn scratch<T>(&self) -> Scratch<'_, T> {
        assert!(
            size_of::<T>() <= 8 && align_of::<T>() <= 8,
            "a fused element is at most 8 bytes"
        );
        let index = self.arena.depth.get();
        // SAFETY: `scratch` is touched only here and in `ArenaMem`'s drop;
        // the `Vec` is borrowed only within this block, and the blocks its
        // pointers own are separate allocations that pushing does not move.
        let stack = unsafe { &mut *self.arena.scratch.get() };
        if stack.len() == index {
            stack.push(Box::into_raw(Box::new(
                [const { MaybeUninit::<u64>::uninit() }; BLOCK],
            )));
        }
        let p = stack[index] as *mut [MaybeUninit<T>; BLOCK];
        self.arena.depth.set(index + 1);
        // SAFETY: block `index` is handed out to this `Scratch` alone until
        // its drop resets the depth to `index`; a later call (a deeper
        // node) takes a later block. Its `BLOCK` cells of 8 bytes hold
        // `BLOCK` values of `T` (at most 8 bytes, 8-aligned, checked above).
        Scratch {
            cells: unsafe { &mut *p },
            depth: &self.arena.depth,
            index,
        }
    }

    /// Leaf `k`'s first element in the block, its inner stride and the
    /// block's length: `p + i * st` for `i < len` are elements of the leaf,
    /// readable for the lifetime of the block.
    ///
    /// # Panics
    /// When `T` is not the element type of leaf `k` (a node numbering its
    /// leaves wrongly).
    #[inline(always)]
    fn start<T: Element>(&self, k: usize) -> (*const T, usize, usize) {
        let l = self.leaves.0[k];
        assert!(
            l.ty == TypeId::of::<T>(),
            "fused leaf {k} read with the wrong element type"
        );
        // SAFETY: the block's invariant (module docs): the offset is one of
        // the plan's for operand `k + 1`, inside the buffer of leaf `k`,
        // whose elements are `T` (checked above), read under its guard.
        let st = self.st[k + 1];
        let p = unsafe { (l.ptr as *const T).add(self.offs[k + 1] + self.at * st) };
        (p, st, self.len)
    }

    /// Leaf `k`'s elements over the block: its slice when its inner stride
    /// is 1, one value when 0, else gathered into `buf`.
    ///
    /// # Panics
    /// When `T` is not the element type of leaf `k` (a node numbering its
    /// leaves wrongly).
    #[inline(always)]
    pub fn leaf<'s, T: Element>(&'s self, k: usize, buf: &'s mut Scratch<'_, T>) -> Run<'s, T> {
        let (p, st, len) = self.start::<T>(k);
        // SAFETY: `start`'s guarantee: `p + i * st` for `i < len` are
        // elements of leaf `k`, readable for the lifetime of the block.
        unsafe {
            match st {
                0 => Run::Splat(*p),
                1 => Run::Slice(core::slice::from_raw_parts(p, len)),
                _ => buf.filled(len, |dst| {
                    for (i, o) in dst.iter_mut().enumerate() {
                        o.write(*p.add(i * st));
                    }
                }),
            }
        }
    }
}

/// The vectors the blocks of `e` are written with: the widest (AVX-512 or
/// AVX2) where `e` calls a transcendental function (it is compute-bound:
/// `gelu`'s `erf` runs three times faster with AVX-512 than with SSE2);
/// for the others, memory-bound, [`light_wide`] chooses per processor.
fn vectors<E: Source>(e: &E) -> Vectors {
    if light_wide() || e.transcendental() {
        Vectors::Widest
    } else {
        Vectors::Baseline
    }
}

/// How the blocks of `e` are written ([`vectors`]).
fn writer<E: Source>(e: &E) -> impl Fn(&Block<'_>, &mut [MaybeUninit<E::Elem>]) + Sync + '_ {
    let v = vectors(e);
    move |b: &Block<'_>, dst: &mut [MaybeUninit<E::Elem>]| {
        v.run(
            #[inline(always)]
            || e.write(b, dst),
        )
    }
}

/// A block's place in an output written with streaming stores: [`BLOCK`]
/// elements from a 16-byte aligned address, which the holder alone writes
/// until its thread's next [`store_fence`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Streamed<O>(*mut O);

impl<O> Streamed<O> {
    /// # Safety
    /// `p` is 16-byte aligned and has [`BLOCK`] writable elements, which no
    /// one else reads or writes until the writing thread runs
    /// [`store_fence`].
    unsafe fn new(p: *mut O) -> Self {
        Streamed(p)
    }
}

/// What writes a whole block into a streamed output ([`streamer`]).
type StreamFn<'a, O> = &'a (dyn Fn(&Block<'_>, Streamed<O>) + Sync);

/// How the whole blocks of `e` are written into a large existing output
/// (`out=`): with [`writer`]'s vectors, chunk by chunk with streaming
/// stores ([`fill_streamed`]).
fn streamer<E: CpuExpr<Device = Cpu>>(e: &E) -> impl Fn(&Block<'_>, Streamed<E::Elem>) + Sync + '_ {
    let v = vectors(e);
    move |b: &Block<'_>, dst: Streamed<E::Elem>| {
        v.run(
            #[inline(always)]
            || stream_block(e, b, dst),
        )
    }
}

/// The value of `e` over the whole block `b`, streamed to `dst`.
#[inline(always)]
fn stream_block<E: CpuExpr<Device = Cpu>>(e: &E, b: &Block<'_>, dst: Streamed<E::Elem>) {
    let l = e.lanes(b, 0);
    fill_streamed(
        dst,
        #[inline(always)]
        |c, j| E::at(&l, c, j),
    )
}

/// One chunk of a streamed block, aligned for streaming stores.
#[repr(C, align(64))]
struct ChunkBuf<T>([MaybeUninit<T>; CHUNK]);

/// Writes `f(c, j)` into element `c * CHUNK + j` of the [`BLOCK`] elements
/// at `dst`, a [`CHUNK`] at a time: each chunk is computed into a buffer in
/// the L1 cache and written out with streaming stores before the next is
/// computed, so that the block's loads and its stores to memory overlap.
/// (A whole block computed, then streamed, stalled on the stores:
/// `|relu(a * b + c) * d - e|` into an existing 4096x4096 `f32` took
/// 5.4-6.3 ms that way and takes 4.0-4.7 ms chunk by chunk on an AMD EPYC,
/// Zen 3, 2 threads; `benches/README.md`.)
#[inline(always)]
fn fill_streamed<T: Copy>(dst: Streamed<T>, f: impl Fn(usize, usize) -> T) {
    const {
        assert!((CHUNK * size_of::<T>()).is_multiple_of(16));
    }
    let mut buf = ChunkBuf([const { MaybeUninit::uninit() }; CHUNK]);
    for c in 0..BLOCK / CHUNK {
        for (j, o) in buf.0.iter_mut().enumerate() {
            o.write(f(c, j));
        }
        // SAFETY: the loop wrote every element of the buffer (64-byte
        // aligned); chunk `c` of `dst` is `c * CHUNK..(c + 1) * CHUNK` of
        // its `BLOCK` elements, 16-byte aligned (`dst` is, and a chunk's
        // bytes are a multiple of 16), written by this thread alone until
        // its store fence (`Streamed::new`).
        unsafe {
            stream_copy(
                dst.0.add(c * CHUNK) as *mut u8,
                buf.0.as_ptr() as *const u8,
                CHUNK * size_of::<T>(),
            )
        };
    }
}

/// 0: not read yet; 1: memory-bound expressions use the baseline vectors;
/// 2: they use the widest.
static LIGHT_WIDE: core::sync::atomic::AtomicU8 = core::sync::atomic::AtomicU8::new(0);

/// Whether expressions without a transcendental function are written with
/// the widest vectors too. By default where those are AVX2
/// ([`light_wide_default`]: on an AMD EPYC without AVX-512,
/// `|relu(a * b + c) * d - e|` into an existing 4096x4096 `f32` runs in
/// 1.1-1.3x the time of the eager `a + b` with AVX2 and 1.2-1.6x with
/// SSE2), not where they are AVX-512 (on the Intel Xeons the baseline
/// vectors were 4-9% faster on such chains, `benches/README.md`).
/// `SHAPED_FUSED_LIGHT=wide` or `=base` (or [`set_light_wide`]) decides
/// instead, for comparisons.
fn light_wide() -> bool {
    use core::sync::atomic::Ordering::Relaxed;
    match LIGHT_WIDE.load(Relaxed) {
        0 => {
            let wide = match std::env::var("SHAPED_FUSED_LIGHT").as_deref() {
                Ok("wide") => true,
                Ok("base") => false,
                _ => light_wide_default(),
            };
            LIGHT_WIDE.store(if wide { 2 } else { 1 }, Relaxed);
            wide
        }
        v => v == 2,
    }
}

/// Writes fused expressions without a transcendental function with the
/// widest vectors too (`true`), or with the baseline ones (`false`; the
/// default is the processor's, see `light_wide`): a switch for benchmarks
/// (`examples/bench_fused_vectors.rs` times both in one process), as
/// `SHAPED_FUSED_LIGHT=wide` or `=base` is for a whole run.
///
/// ```
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![4]>::ones();
/// shaped::backend::fused::set_light_wide(true);
/// assert_eq!((a.lazy() + 1.0).relu().eval().to_vec(), vec![2.; 4]);
/// shaped::backend::fused::set_light_wide(false);
/// assert_eq!((a.lazy() + 1.0).relu().eval().to_vec(), vec![2.; 4]);
/// ```
#[doc(hidden)]
pub fn set_light_wide(on: bool) {
    LIGHT_WIDE.store(
        if on { 2 } else { 1 },
        core::sync::atomic::Ordering::Relaxed,
    );
}

/// Where a segment's blocks lie: the leaves, the segment's operand offsets
/// and strides, the leaves to read ahead ([`read_ahead`]) and the arena
/// for their lanes.
struct Segment<'a> {
    leaves: &'a LeafPtrs,
    offs: &'a [usize; OPERANDS],
    st: &'a [usize; OPERANDS],
    ahead: &'a [bool; MAX_LEAVES],
    arena: &'a mut Arena,
}

/// Leaves smaller than this many bytes are not read ahead: they stay in
/// the caches over a reduction (the `(n,)` row of `(a * b).sum_dim::<1>()`,
/// read again for every row).
const READ_AHEAD_MIN: usize = 256 << 10;

/// Which leaves a fused reduction reads ahead, a block at a time: those of
/// at least [`READ_AHEAD_MIN`] bytes, which come from memory, on a
/// processor where that helps ([`read_ahead_blocks`]; none elsewhere).
fn read_ahead(leaves: &[LeafIn<'_>], ptrs: &LeafPtrs) -> [bool; MAX_LEAVES] {
    let mut far = [false; MAX_LEAVES];
    if !read_ahead_blocks() {
        return far;
    }
    for (k, l) in leaves.iter().enumerate() {
        let span = if l.dims.contains(&0) {
            0
        } else {
            1 + l
                .dims
                .iter()
                .zip(l.strides)
                .map(|(&d, &s)| (d - 1).saturating_mul(s))
                .fold(0usize, usize::saturating_add)
        };
        far[k] = span.saturating_mul(ptrs.0[k].size) >= READ_AHEAD_MIN;
    }
    far
}

/// Asks for the cache lines of the block at element `at` of each leaf that
/// is read ahead and contiguous along the segment, one block before they
/// are folded. Without it a fused row sum stalled on the first line of each
/// of a block's eight chunks (perf): `(a * b).sum_dim::<1>()`, 4096x4096
/// `f32` from DRAM, AMD EPYC Zen 5, 2 threads, 6 interleaved runs of each
/// binary: 1.94-2.14 ms before, 1.44-1.74 ms after with AVX-512; 1.74-2.07
/// / 1.58-2.22 ms with `SHAPED_ISA=avx2`; 3.15-3.37 / 2.59-2.98 ms with
/// `base`. A block two or three ahead was slower (2.34-2.50 ms against
/// 2.13 in another run), and so was asking for the lines into L2 only.
/// It runs only where the widest vectors are AVX-512
/// ([`read_ahead_blocks`], which [`read_ahead`] consults): on an AMD EPYC
/// Zen 3 with AVX2 the same sum was faster without it, so no leaf is read
/// ahead on the AVX2 and SSE2 paths, Zen 5's `SHAPED_ISA` runs above
/// included.
#[inline(always)]
fn prefetch_block(s: &Segment<'_>, at: usize) {
    for k in 0..MAX_LEAVES {
        let l = s.leaves.0[k];
        if !s.ahead[k] || s.st[k + 1] != 1 {
            continue;
        }
        // Past the buffer's end (the last block of the last segment) the
        // address is never read: a prefetch is a hint, which does not
        // fault and changes nothing a program can observe.
        let first = l.ptr.wrapping_add((s.offs[k + 1] + at) * l.size);
        prefetch_lines(first, BLOCK * l.size);
    }
}

/// `r`'s fold of the value of `e` over `count` whole blocks of segment `s`
/// from element `at`: into [`FOLD_LANES`] accumulators that stay in
/// registers across the blocks, combined once at the end (per block, the
/// halvings and the call cost about as much as folding a block that is in
/// the cache).
#[inline(always)]
fn fold_whole<E: Source, R: Reducer<E::Elem, Acc = E::Elem, Out = E::Elem>>(
    e: &E,
    r: &R,
    s: &mut Segment<'_>,
    at: usize,
    count: usize,
) -> E::Elem {
    let mut acc = [r.init(); FOLD_LANES];
    for j in 0..count {
        prefetch_block(s, at + (j + 1) * BLOCK);
        let b = make_block(s.leaves, s.offs, s.st, at + j * BLOCK, BLOCK, s.arena);
        e.fold_into(r, &b, &mut acc);
    }
    // Halvings of constant width, which keep the accumulators in
    // registers (a loop over a variable width kept them on the stack).
    halve::<_, _, 64>(r, &mut acc);
    halve::<_, _, 32>(r, &mut acc);
    halve::<_, _, 16>(r, &mut acc);
    halve::<_, _, 8>(r, &mut acc);
    halve::<_, _, 4>(r, &mut acc);
    halve::<_, _, 2>(r, &mut acc);
    halve::<_, _, 1>(r, &mut acc);
    acc[0]
}

/// Independent accumulators of a fold: eight AVX-512 registers of `f32`
/// partial sums, enough to hide the additions' latency (32, 64 and 128
/// measured on `(a * b).sum_dim::<1>()`, 4096x4096 `f32`: 1.9, 1.9 and
/// 1.65 ms).
const FOLD_LANES: usize = 128;

/// `acc[j]` combined with `acc[j + W]` for `j < W`.
#[inline(always)]
fn halve<T: Copy, R: Reducer<T, Acc = T, Out = T>, const W: usize>(
    r: &R,
    acc: &mut [T; FOLD_LANES],
) {
    for j in 0..W {
        acc[j] = r.combine(acc[j], acc[j + W]);
    }
}

/// [`fold_whole`] for the widest extension the processor has.
#[inline(always)]
fn fold_wide<E: Source, R: Reducer<E::Elem, Acc = E::Elem, Out = E::Elem>>(
    e: &E,
    r: &R,
    s: &mut Segment<'_>,
    at: usize,
    count: usize,
) -> E::Elem {
    widest(
        #[inline(always)]
        || fold_whole(e, r, s, at, count),
    )
}

impl Block<'_> {
    /// Leaf `k`'s elements over the block as a [`Lane`]: the tensor's own
    /// elements when its inner stride is 1 and a whole block follows; a
    /// broadcast value repeated over one [`CHUNK`] of the arena, read for
    /// every chunk; else strided elements gathered into the arena, a short
    /// block padded with `T::default()`. A fixed length lets the compiler
    /// drop the bounds checks of the loops over a block.
    ///
    /// # Panics
    /// When `T` is not the element type of leaf `k`, or the leaf's lane
    /// was already taken in this block.
    #[inline(always)]
    pub fn lane<T: Element>(&self, k: usize) -> Lane<'_, T> {
        const {
            assert!(size_of::<T>() <= 8 && align_of::<T>() <= 8);
        }
        let (p, st, n) = self.start::<T>(k);
        // SAFETY: `start`'s guarantee: `p + i * st` for `i < n` are
        // elements of leaf `k`, readable for the lifetime of the block;
        // `n <= BLOCK` (blocks are cut so). The arena region holds `BLOCK`
        // elements of `T` and is this leaf's alone (`region` panics when it
        // is taken twice in a block); every element the lane reads is
        // written before the array is formed, in this block or, for a
        // repeated value (`splat[k]` set), in an earlier block of this
        // arena, or, past a short gather's `n`, by an earlier padded gather
        // of the same `T` (`padded[k]`, cleared when a value of another
        // type is written); only leaf `k`'s lanes write the region.
        unsafe {
            if st == 1 && n == BLOCK {
                return Lane::new(&*(p as *const [T; BLOCK]));
            }
            let region = self.arena.region::<T>(k);
            let held = &self.arena.splat[k];
            if st == 0 {
                // The first chunk repeats the value, and every chunk of
                // the lane reads it (`Lane::step` 0); the leaves are not
                // written during an evaluation, so the same address holds
                // the same value. The rest of the region is left as it
                // was: written (by an earlier gather or at the start) or
                // not, it is never read through a repeated lane.
                if held.get() != p as usize {
                    let x = *p;
                    for i in 0..CHUNK {
                        region.add(i).write(x);
                    }
                    held.set(p as usize);
                    let padded = &self.arena.padded[k];
                    if padded.get() != Some(core::any::TypeId::of::<T>()) {
                        padded.set(None);
                    }
                }
                return Lane::repeat(&*(region as *const [T; CHUNK]));
            }
            held.set(0);
            for i in 0..n {
                region.add(i).write(*p.add(i * st));
            }
            // The lanes past `n` are computed on and discarded: they need
            // values of `T`, which a region padded for `T` already holds.
            let padded = &self.arena.padded[k];
            if n < BLOCK && padded.get() != Some(core::any::TypeId::of::<T>()) {
                for i in n..BLOCK {
                    region.add(i).write(T::default());
                }
                padded.set(Some(core::any::TypeId::of::<T>()));
            }
            Lane::new(&*(region as *const [T; BLOCK]))
        }
    }
}

/// Elements per chunk of a block: [`CpuExpr::at`]
/// reads element `c * CHUNK + j` of a block as `(c, j)`, so that a
/// broadcast leaf's lane is one chunk read again for every chunk, while
/// the loop over `j`, of constant length, stays one vectorised loop of
/// contiguous loads. A lane of [`BLOCK`] repeated values cost 4 KiB of
/// stores per row of a `(n, 1)` operand; one chunk costs an eighth of
/// that (`relu(a * b + c)` into an existing 4096x4096 output: 1.05-1.10x
/// the eager `a + b` before, 1.03-1.04x after, interleaved runs). Equal to
/// the number of a fold's accumulators, which take the same `(c, j)`
/// order.
///
/// ```
/// use shaped::backend::fused::{BLOCK, CHUNK};
/// assert_eq!(BLOCK % CHUNK, 0);
/// ```
pub const CHUNK: usize = FOLD_LANES;

/// A leaf's elements over a block ([`Block::lane`]): [`BLOCK`] elements,
/// or one chunk of [`CHUNK`] repeated values read for every chunk.
///
/// ```
/// use shaped::{Shape, Tensor};
/// // `c` is a broadcast leaf: one repeated chunk per row.
/// let a = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]);
/// let c = Tensor::<f32, Shape![2, 1]>::from_vec(vec![10., 20.]);
/// assert_eq!((a.lazy() + &c).eval().to_vec(), [11., 12., 13., 24., 25., 26.]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Lane<'s, T> {
    /// The first element: `BLOCK` readable from it, or `CHUNK` when `step`
    /// is 0.
    first: *const T,
    /// The distance between chunks: `CHUNK`, or 0 for a repeated value.
    step: usize,
    elems: core::marker::PhantomData<&'s [T]>,
}

impl<'s, T: Copy> Lane<'s, T> {
    #[inline(always)]
    fn new(all: &'s [T; BLOCK]) -> Self {
        Lane {
            first: all.as_ptr(),
            step: CHUNK,
            elems: core::marker::PhantomData,
        }
    }

    #[inline(always)]
    fn repeat(chunk: &'s [T; CHUNK]) -> Self {
        Lane {
            first: chunk.as_ptr(),
            step: 0,
            elems: core::marker::PhantomData,
        }
    }

    /// Element `j` of chunk `c`: element `c * CHUNK + j` of the block.
    ///
    /// # Panics
    /// When `c >= BLOCK / CHUNK` or `j >= CHUNK` (past the block).
    #[inline(always)]
    pub fn at(&self, c: usize, j: usize) -> T {
        assert!(c < BLOCK / CHUNK && j < CHUNK, "past the block");
        // SAFETY: `c * step + j` is below `BLOCK` when `step` is `CHUNK`
        // and below `CHUNK` when it is 0 (checked above), and `first` has
        // that many elements, borrowed for `'s` (`new`, `repeat`).
        unsafe { *self.first.add(c * self.step + j) }
    }
}

// SAFETY: a lane is a shared borrow of `T`s (`&'s [T]`), which is `Send`
// and `Sync` when `T` is `Sync`.
unsafe impl<T: Sync> Send for Lane<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for Lane<'_, T> {}

/// The output buffer of a run.
#[derive(Clone, Copy, Debug)]
struct OutPtr<O>(*mut O);
// SAFETY: the plan hands each thread a disjoint range of output offsets
// (distinct offsets, checked by the caller), under an exclusive guard or in
// a fresh buffer.
unsafe impl<O: Send> Sync for OutPtr<O> {}
// SAFETY: as above.
unsafe impl<O: Send> Send for OutPtr<O> {}

impl<O> OutPtr<O> {
    fn ptr(self) -> *mut O {
        self.0
    }
}

/// Evaluates blocks over `plan` (operand 0 the output) into `out`; with
/// `stream`, the whole blocks of a contiguous output run are written by it,
/// with streaming stores ([`streamer`]).
///
/// # Safety
/// Every offset the plan gives operand 0 lies inside `out`'s buffer and
/// the offsets are pairwise distinct; for leaf `k`, every offset of operand
/// `k + 1` lies inside the buffer at `leaves[k].ptr`, whose elements are
/// of type `leaves[k].ty`, readable and not written for the whole call.
/// Operands past the leaves have all strides 0 and are never read.
unsafe fn run<O: Element>(
    plan: &Plan<OPERANDS>,
    leaves: &LeafPtrs,
    out: OutPtr<O>,
    stream: Option<StreamFn<'_, O>>,
    write: &(dyn Fn(&Block<'_>, &mut [MaybeUninit<O>]) + Sync),
) {
    pool::par_ranges(plan.numel(), &|start, end| {
        let mut arena = Arena::new();
        plan.segments(start, end, |offs, st, len| {
            // SAFETY: the caller's contract: the segment's output offsets
            // `offs[0] + i * st[0]`, `i < len`, are in bounds and written by
            // this segment only.
            unsafe {
                let o = out.ptr().add(offs[0]);
                if st[0] == 1 {
                    // Elements `from..to` in blocks, with plain stores.
                    // (Each range's slice is made from `o` when it is
                    // written: a slice of the whole run held across the
                    // streamed blocks would be invalidated by their
                    // stores.)
                    let plain = |from: usize, to: usize, arena: &mut Arena| {
                        // `from <= to <= len`: elements of the run.
                        let dst = core::slice::from_raw_parts_mut(
                            o.add(from) as *mut MaybeUninit<O>,
                            to - from,
                        );
                        for (j, c) in dst.chunks_mut(BLOCK).enumerate() {
                            let b =
                                make_block(leaves, &offs, &st, from + j * BLOCK, c.len(), arena);
                            write(&b, c);
                        }
                    };
                    // The whole blocks from the first 16-byte aligned
                    // element are streamed; the elements before it and
                    // after the last whole block are not.
                    let (head, body) = stream
                        .and_then(|_| stream_span::<O>(o as usize, len, BLOCK))
                        .unwrap_or((len, 0));
                    plain(0, head, &mut arena);
                    if let Some(streamer) = stream {
                        for at in (head..head + body).step_by(BLOCK) {
                            let b = make_block(leaves, &offs, &st, at, BLOCK, &mut arena);
                            // SAFETY: `o + at` is 16-byte aligned (`o +
                            // head` is, and a block's bytes are a multiple
                            // of 16), its `BLOCK` elements lie in this
                            // segment's run (`at + BLOCK <= head + body <=
                            // len`), which this thread alone writes; the
                            // range ends with a store fence (below).
                            streamer(&b, Streamed::new(o.add(at)));
                        }
                    }
                    plain(head + body, len, &mut arena);
                } else {
                    for at in (0..len).step_by(BLOCK) {
                        let n = BLOCK.min(len - at);
                        let b = make_block(leaves, &offs, &st, at, n, &mut arena);
                        let mut buf = b.scratch::<O>();
                        let Run::Slice(v) = buf.filled(n, |c| write(&b, c)) else {
                            unreachable!("a filled scratch is a slice")
                        };
                        for (i, &x) in v.iter().enumerate() {
                            o.add((at + i) * st[0]).write(x);
                        }
                    }
                }
            }
        });
        if stream.is_some() {
            store_fence();
        }
    });
}

/// A tensor leaf as the evaluation takes it: its layout and its storage,
/// type-erased.
struct LeafIn<'a> {
    dims: &'a [usize],
    strides: &'a [usize],
    offset: usize,
    storage: &'a dyn ErasedStorage,
}

/// Something held for the length of an evaluation (a read guard).
trait Held {}
impl<T> Held for T {}

/// A CPU storage of some element type.
trait ErasedStorage: Sync {
    /// Its place in the lock order.
    fn addr(&self) -> usize;
    /// A read guard, the buffer's base pointer and its element type.
    fn read(&self) -> (Box<dyn Held + '_>, LeafPtr);
}

impl<T: Element> ErasedStorage for Arc<Storage<T>> {
    fn addr(&self) -> usize {
        addr(self)
    }

    fn read(&self) -> (Box<dyn Held + '_>, LeafPtr) {
        let g = Storage::read(self);
        let ptr = g.as_ptr() as *const u8;
        (
            Box::new(g),
            LeafPtr {
                ptr,
                ty: TypeId::of::<T>(),
                size: size_of::<T>(),
            },
        )
    }
}

/// Collects the leaves of an expression.
#[derive(Default)]
pub(crate) struct Collect<'a>(Vec<LeafIn<'a>>);

impl<'a> Leaves<'a, Cpu> for Collect<'a> {
    fn leaf<T: Element>(&mut self, l: Layout<'a, T>) {
        self.0.push(LeafIn {
            dims: l.dims,
            strides: l.strides,
            offset: l.offset,
            storage: l.storage,
        });
    }
}

/// Expressions of at most this many operations are evaluated on the
/// caller's stack as it is.
const SHALLOW_OPS: usize = 8;

/// `f()`, an evaluation of an expression of `ops` operations, run where
/// the stack has room for it: every node's code is inlined into one
/// function, whose frame in an unoptimised build grows with the square of
/// the depth (a backward pass through 24 operations took a 2.06 MB frame,
/// Zen 3, debug), so a deep expression runs on a stack segment of its own
/// (`stacker`) when the thread's (2 MiB for a spawned thread) has less
/// room than that estimate left. Optimised builds keep values in
/// registers and need a fraction of it.
#[inline(always)]
pub(crate) fn with_stack<R>(ops: usize, f: impl FnOnce() -> R) -> R {
    if ops <= SHALLOW_OPS {
        return f();
    }
    // 3.6 KB per squared operation measured in a debug build; three times
    // that for wider vectors' spills and other compilers.
    let per_op2 = if cfg!(debug_assertions) {
        12 << 10
    } else {
        512
    };
    let need = (256 << 10) + per_op2 * ops * ops;
    stacker::maybe_grow(need, 2 * need, f)
}

/// What the CPU evaluates block by block: a fused expression ([`Expr`]),
/// or a value computed from one that is not itself a node (autograd's
/// gradient of a fused chain with respect to one leaf).
pub(crate) trait Source: Sync {
    /// The element type of the value.
    type Elem: Element;
    /// The number of operations in the expression ([`Expr::OPS`]).
    const OPS: usize;
    /// The value's sizes.
    fn dims(&self) -> Result<DimVec, ShapeError>;
    /// Every tensor leaf, in index order.
    fn leaves<'a>(&'a self, c: &mut Collect<'a>);
    /// The value over block `b` written into `dst` (`b.len()` elements,
    /// every one of them written).
    fn write(&self, b: &Block<'_>, dst: &mut [MaybeUninit<Self::Elem>]);
    /// Whether the value calls a transcendental function
    /// ([`Expr::transcendental`]): it is then written with the widest
    /// vectors ([`writer`]).
    fn transcendental(&self) -> bool;
    /// `r`'s fold of the value over block `b` (a short one): the block's
    /// values, then `r`'s own fold of a run.
    fn fold<R: Reducer<Self::Elem, Acc = Self::Elem, Out = Self::Elem>>(
        &self,
        r: &R,
        b: &Block<'_>,
    ) -> Self::Elem {
        let mut s = b.scratch();
        match s.filled(
            b.len(),
            #[inline(always)]
            |dst| self.write(b, dst),
        ) {
            Run::Splat(x) => r.fold_run(r.init(), ReduceRun::repeat(&x, b.len()), 0, 1),
            Run::Slice(v) => r.fold_run(r.init(), ReduceRun::from_slice(v), 0, 1),
        }
    }
    /// The value over the whole block `b` folded into `acc`: element
    /// `c * FOLD_LANES + j` into accumulator `j`.
    #[inline(always)]
    fn fold_into<R: Reducer<Self::Elem, Acc = Self::Elem, Out = Self::Elem>>(
        &self,
        r: &R,
        b: &Block<'_>,
        acc: &mut [Self::Elem; FOLD_LANES],
    ) {
        let mut s = b.scratch();
        let run = s.filled(
            b.len(),
            #[inline(always)]
            |dst| self.write(b, dst),
        );
        for (j, a) in acc.iter_mut().enumerate() {
            for c in 0..BLOCK / FOLD_LANES {
                let x = match run {
                    Run::Splat(x) => x,
                    Run::Slice(v) => v[c * FOLD_LANES + j],
                };
                *a = r.fold(*a, x, 0);
            }
        }
    }
}

impl<E: CpuExpr<Device = Cpu>> Source for E {
    type Elem = E::Elem;
    const OPS: usize = E::OPS;
    fn transcendental(&self) -> bool {
        Expr::transcendental(self)
    }
    fn dims(&self) -> Result<DimVec, ShapeError> {
        Expr::dims(self)
    }
    fn leaves<'a>(&'a self, c: &mut Collect<'a>) {
        self.visit(c)
    }
    #[inline(always)]
    fn write(&self, b: &Block<'_>, dst: &mut [MaybeUninit<E::Elem>]) {
        CpuExpr::write(self, b, dst)
    }
    /// A whole block folds in the expression's own loop (no block of
    /// values is stored).
    #[inline(always)]
    fn fold_into<R: Reducer<E::Elem, Acc = E::Elem, Out = E::Elem>>(
        &self,
        r: &R,
        b: &Block<'_>,
        acc: &mut [E::Elem; FOLD_LANES],
    ) {
        let l = self.lanes(b, 0);
        // Accumulator `j` takes elements `j`, `j + FOLD_LANES`, ..., in
        // that order, in either loop order (the results are the same).
        if fold_in_memory_order() {
            // Chunk by chunk, the block read in memory order; each
            // addition loads and stores its accumulator (16 vector
            // registers cannot hold them all).
            for c in 0..BLOCK / FOLD_LANES {
                for (j, slot) in acc.iter_mut().enumerate() {
                    *slot = r.fold(*slot, E::at(&l, c, j), 0);
                }
            }
            return;
        }
        // Accumulator by accumulator: the loop over `j` is the vectorised
        // one, and the loop over the chunks, of constant length, runs
        // inside it on a register. The accumulator is a local over the
        // inner loop: read and written once (through `acc` the compiler
        // stored it after every step).
        for (j, slot) in acc.iter_mut().enumerate() {
            let mut a = *slot;
            for c in 0..BLOCK / FOLD_LANES {
                a = r.fold(a, E::at(&l, c, j), 0);
            }
            *slot = a;
        }
    }
}

/// The plan of an evaluation over `dims`: the output's strides and offset,
/// then each leaf's broadcast strides.
fn plan(dims: &[usize], out: (&[usize], usize), leaves: &[LeafIn<'_>]) -> Plan<OPERANDS> {
    crate::backend::fused::plan(
        dims,
        out,
        leaves.iter().map(|l| (l.dims, l.strides, l.offset)),
    )
}

/// Read guards on every leaf (recursive reads: taken in any order, see
/// `locks.rs`) and the leaves' pointers.
fn read_all<'a>(leaves: &'a [LeafIn<'a>]) -> (Vec<Box<dyn Held + 'a>>, LeafPtrs) {
    let mut ptrs = LeafPtrs(
        [LeafPtr {
            ptr: core::ptr::null(),
            ty: TypeId::of::<()>(),
            size: 0,
        }; MAX_LEAVES],
    );
    let guards = leaves
        .iter()
        .enumerate()
        .map(|(k, l)| {
            let (g, p) = l.storage.read();
            ptrs.0[k] = p;
            g
        })
        .collect();
    (guards, ptrs)
}

/// The leaves of `e`, refusing more than [`MAX_LEAVES`].
fn leaves_of<E: Source>(e: &E) -> Result<Collect<'_>, ShapeError> {
    let mut c = Collect::default();
    e.leaves(&mut c);
    checked(c)
}

/// `c`, refusing more than [`MAX_LEAVES`] leaves.
fn checked(c: Collect<'_>) -> Result<Collect<'_>, ShapeError> {
    if c.0.len() > MAX_LEAVES {
        return Err(ShapeError::Invalid(format!(
            "a fused expression reads at most {MAX_LEAVES} tensors, this one reads {}: evaluate a part of it first",
            c.0.len()
        )));
    }
    Ok(c)
}

/// The value of `e` in a new contiguous storage.
pub(crate) fn eval<E: Source>(e: &E) -> Result<Output<Storage<E::Elem>>, ShapeError> {
    let dims = e.dims()?;
    let c = leaves_of(e)?;
    let out_strides = contiguous_strides(&dims);
    let plan = plan(&dims, (&out_strides, 0), &c.0);
    let (guards, ptrs) = read_all(&c.0);
    let write = writer(e);
    // SAFETY: the output is fresh and contiguous with `numel(dims)`
    // elements, each offset of the plan's operand 0 once; each leaf's plan
    // offsets come from its layout (broadcast strides only repeat
    // elements), inside its storage, read under the guards held until the
    // end; the leaf types are recorded by `read_all` from the storages.
    let data = unsafe {
        super::try_alloc_filled_by(&dims, |o| {
            with_stack(E::OPS, || run(&plan, &ptrs, OutPtr(o), None, &write))
        })
    }?;
    drop(guards);
    Ok(whole(data, &dims))
}

/// The value of `e` written into `out` (PyTorch's `out=`, without
/// resizing).
pub(crate) fn eval_into<E: CpuExpr<Device = Cpu>>(
    e: &E,
    out: Layout<'_, E::Elem>,
) -> Result<(), ShapeError> {
    write_into(e, out, streams)
}

/// [`eval_into`], with streaming stores where `stream(bytes)` says so
/// (tests stream small outputs).
pub(crate) fn write_into<E: CpuExpr<Device = Cpu>>(
    e: &E,
    out: Layout<'_, E::Elem>,
    stream: fn(usize) -> bool,
) -> Result<(), ShapeError> {
    let dims = Expr::dims(e)?;
    if dims.as_slice() != out.dims {
        return Err(ShapeError::OutputShape {
            output: out.dims.to_vec(),
            broadcast: dims.into_vec(),
        });
    }
    check_no_internal_overlap(&out)?;
    let c = leaves_of(e)?;
    let out_addr = addr(out.storage);
    let ol = (out.dims, out.strides, out.offset);
    if c.0.iter().any(|l| l.storage.addr() == out_addr) {
        for l in &c.0 {
            if l.storage.addr() == out_addr && partial_overlap(ol, (l.dims, l.strides, l.offset)) {
                return Err(ShapeError::Invalid(super::exec::PARTIAL_OVERLAP.into()));
            }
        }
        // A leaf reads the written storage: compute, then copy.
        let value = Owned::new(eval(e)?);
        return super::exec::update2(out, value.layout(), super::isa::Narrow, |_, v| v);
    }
    let plan = plan(&dims, (out.strides, out.offset), &c.0);
    let bytes = plan.numel() * size_of::<E::Elem>();
    // The lock order (`locks.rs`): the guards in order of address, the
    // written storage among them.
    let order = crate::backend::fused::lock_order(c.0.iter().map(|l| l.storage.addr()), out_addr);
    let mut ptrs = LeafPtrs(
        [LeafPtr {
            ptr: core::ptr::null(),
            ty: TypeId::of::<()>(),
            size: 0,
        }; MAX_LEAVES],
    );
    let mut guards: Vec<Box<dyn Held + '_>> = Vec::with_capacity(c.0.len());
    let mut og = None;
    for (_, k) in order {
        if k == usize::MAX {
            og = Some(out.storage.write());
        } else {
            let (g, p) = c.0[k].storage.read();
            ptrs.0[k] = p;
            guards.push(g);
        }
    }
    let Some(mut og) = og else {
        unreachable!("the loop takes the output's guard")
    };
    let write = writer(e);
    let streamer = streamer(e);
    let stream: Option<StreamFn<'_, E::Elem>> = if stream(bytes) { Some(&streamer) } else { None };
    // SAFETY: `out`'s offsets lie in its storage (its layout) and are
    // pairwise distinct (checked above); no leaf shares its storage
    // (checked above), and the leaves are read under their guards, within
    // their layouts, with the types `read` recorded.
    with_stack(E::OPS, || unsafe {
        run(&plan, &ptrs, OutPtr(og.as_mut_ptr()), stream, &write)
    });
    drop(guards);
    Ok(())
}

/// Blocks folded into an accumulator before it joins the output's total:
/// the blocks' pairwise sums are summed in groups, so a float sum's
/// rounding error grows with the number of groups, not of blocks.
const GROUP: usize = 64;

/// A reduction's running value over consecutive blocks of one output.
struct Acc<T> {
    out: usize,
    total: T,
    group: T,
    blocks: usize,
}

/// `r` over the axes in `mask` of the value of `e`, in the same pass as the
/// expression: the output is an operand of the plan with stride 0 along
/// the reduced axes, which the plan therefore puts innermost, so that each
/// output's elements are consecutive in the iteration and one thread folds
/// them all (or, with fewer outputs than threads, a share of them into a
/// partial that is combined after). Returns the output's elements in the
/// order of the kept axes and the expression's sizes.
pub(crate) fn reduce<E, R>(
    e: &E,
    r: &R,
    mask: &[bool],
) -> Result<(Vec<E::Elem>, DimVec), ShapeError>
where
    E: Source,
    R: Reducer<E::Elem, Acc = E::Elem, Out = E::Elem> + Sync,
{
    let dims = e.dims()?;
    let c = leaves_of(e)?;
    let keep: DimVec = dims
        .iter()
        .zip(mask)
        .map(|(&d, &m)| if m { 1 } else { d })
        .collect();
    let mut out_strides = contiguous_strides(&keep);
    for (s, &m) in out_strides.iter_mut().zip(mask) {
        if m {
            *s = 0;
        }
    }
    let n_out: usize = keep.iter().product();
    if let Some(data) = reduce_outer(e, r, &dims, &out_strides, &c.0, n_out)? {
        return Ok((data, dims));
    }
    let plan = plan(&dims, (&out_strides, 0), &c.0);
    let numel = plan.numel();
    if numel == 0 {
        let empty = r.finish(r.init());
        let data = super::try_vec_from_fn(&[n_out], |_| empty)?;
        return Ok((data, dims));
    }
    let per = numel / n_out;
    let threads = pool::threads();
    // Shares of one output when there are fewer outputs than threads.
    let parts = if numel >= pool::GRAIN && n_out < 2 * threads {
        (4 * threads)
            .div_ceil(n_out)
            .min(per.div_ceil(BLOCK))
            .max(1)
    } else {
        1
    };
    let (guards, ptrs) = read_all(&c.0);
    let ahead = read_ahead(&c.0, &ptrs);
    // The arena is the tile's, for all its segments: made per segment,
    // each row of `(a * b).sum_dim::<1>()` probed its 120 KiB of stack
    // page by page (4096x4096 `f32` on an AMD EPYC, Zen 3: 3.02-3.51 ms
    // per sum that way, 2.49-3.26 once per tile, alternating binaries).
    let fold_segment = |acc: &mut Option<Acc<E::Elem>>,
                        flush: &mut dyn FnMut(usize, E::Elem),
                        arena: &mut Arena,
                        offs: [usize; OPERANDS],
                        st: [usize; OPERANDS],
                        len: usize| {
        if st[0] != 0 {
            // No reduced axis of size > 1: each element is its own output.
            for at in (0..len).step_by(BLOCK) {
                let n = BLOCK.min(len - at);
                let b = make_block(&ptrs, &offs, &st, at, n, arena);
                let mut s = b.scratch();
                let Run::Slice(v) = s.filled(n, |dst| e.write(&b, dst)) else {
                    unreachable!("a filled scratch is a slice")
                };
                for (i, &x) in v.iter().enumerate() {
                    flush(offs[0] + (at + i) * st[0], r.fold(r.init(), x, 0));
                }
            }
            return;
        }
        if acc.as_ref().is_some_and(|a| a.out != offs[0]) {
            let a = acc.take().expect("checked");
            flush(a.out, r.combine(a.total, a.group));
        }
        let a = acc.get_or_insert_with(|| Acc {
            out: offs[0],
            total: r.init(),
            group: r.init(),
            blocks: 0,
        });
        let whole = len / BLOCK;
        let mut done = 0;
        while done < whole {
            let count = (GROUP - a.blocks).min(whole - done);
            let mut seg = Segment {
                leaves: &ptrs,
                offs: &offs,
                st: &st,
                ahead: &ahead,
                arena,
            };
            let v = fold_wide(e, r, &mut seg, done * BLOCK, count);
            a.group = r.combine(a.group, v);
            a.blocks += count;
            done += count;
            if a.blocks == GROUP {
                a.total = r.combine(a.total, a.group);
                a.group = r.init();
                a.blocks = 0;
            }
        }
        if whole * BLOCK < len {
            let at = whole * BLOCK;
            let v = e.fold(r, &make_block(&ptrs, &offs, &st, at, len - at, arena));
            a.group = r.combine(a.group, v);
        }
    };
    let data = if parts == 1 {
        let tiles = if numel < pool::GRAIN {
            1
        } else {
            n_out.min(4 * threads)
        };
        let mut data = super::try_vec_from_fn(&[n_out], |_| r.init())?;
        let out = OutPtr(data.as_mut_ptr());
        let tile = |t: usize| {
            let (s, e_) = (t * n_out / tiles, (t + 1) * n_out / tiles);
            let mut acc = None;
            // SAFETY: the tile's outputs `s..e_` are written by this tile
            // only (each output's elements are consecutive in the plan), at
            // offsets below `n_out` (the plan's output operand is the
            // contiguous `keep` layout with stride 0 on reduced axes).
            let mut flush = |o: usize, v: E::Elem| unsafe { out.ptr().add(o).write(r.finish(v)) };
            let mut arena = Arena::new();
            plan.segments(s * per, e_ * per, |offs, st, len| {
                fold_segment(&mut acc, &mut flush, &mut arena, offs, st, len)
            });
            if let Some(a) = acc {
                flush(a.out, r.combine(a.total, a.group));
            }
        };
        with_stack(E::OPS, || pool::for_each_tile(tiles, &tile));
        data
    } else {
        let mut partials = super::try_vec_from_fn(&[n_out, parts], |_| r.init())?;
        let p = OutPtr(partials.as_mut_ptr());
        let tile = |t: usize| {
            let (o, j) = (t / parts, t % parts);
            let (s, e_) = (o * per + j * per / parts, o * per + (j + 1) * per / parts);
            let mut acc = None;
            let mut total = r.init();
            let mut flush = |_: usize, v: E::Elem| total = r.combine(total, v);
            let mut arena = Arena::new();
            plan.segments(s, e_, |offs, st, len| {
                fold_segment(&mut acc, &mut flush, &mut arena, offs, st, len)
            });
            if let Some(a) = acc {
                flush(a.out, r.combine(a.total, a.group));
            }
            // SAFETY: partial `t < n_out * parts` is written by tile `t` only.
            unsafe { p.ptr().add(t).write(total) };
        };
        with_stack(E::OPS, || pool::for_each_tile(n_out * parts, &tile));
        partials
            .chunks(parts)
            .map(|ch| r.finish(ch.iter().fold(r.init(), |a, &b| r.combine(a, b))))
            .collect()
    };
    drop(guards);
    Ok((data, dims))
}

/// The shortest run of kept elements [`reduce_outer`] takes.
const MIN_OUTER_RUN: usize = 64;

/// [`reduce`] when the innermost axis of size > 1 is kept (a sum over
/// the rows of a batch, the gradient of a row-vector parameter): the value
/// is evaluated in memory order, each block along the kept axis, and added
/// into a row of accumulators per thread, combined at the end. Visiting
/// one output at a time instead walks the kept axis's columns: every leaf
/// gathered with a stride of a row, one element at a time (72% of the
/// backward pass of `gelu(x * w + b)` for `w: (4096,)`). `None` where
/// the innermost axis is reduced, or the leaves leave no operand free for
/// the outputs' offsets.
fn reduce_outer<E, R>(
    e: &E,
    r: &R,
    dims: &[usize],
    out_strides: &[usize],
    leaves: &[LeafIn<'_>],
    n_out: usize,
) -> Result<Option<Vec<E::Elem>>, ShapeError>
where
    E: Source,
    R: Reducer<E::Elem, Acc = E::Elem, Out = E::Elem> + Sync,
{
    // Operand 0 walks `dims` in memory order; the outputs' offsets ride
    // on the operand after the leaves.
    let slot = leaves.len() + 1;
    let Some(inner) = dims.iter().rposition(|&d| d > 1) else {
        return Ok(None);
    };
    if slot >= OPERANDS || out_strides[inner] == 0 || n_out == 0 {
        return Ok(None);
    }
    // The kept elements that follow each other in memory: the blocks'
    // length. Short runs (a `(n, 2)` value) would pay a block's set-up per
    // few elements; they keep the one-output-at-a-time walk.
    let Some(last_reduced) = dims
        .iter()
        .zip(out_strides)
        .rposition(|(&d, &s)| d > 1 && s == 0)
    else {
        return Ok(None);
    };
    let run: usize = dims[last_reduced + 1..].iter().product();
    let numel: usize = dims.iter().product();
    let rows = numel / n_out;
    if run < MIN_OUTER_RUN || rows < 2 {
        return Ok(None);
    }
    let walk = contiguous_strides(dims);
    let strides: Vec<DimVec> = leaves
        .iter()
        .map(|l| crate::iter::broadcast_strides(l.dims, l.strides, dims))
        .collect();
    let zeros = DimVec::from_elem(0, dims.len());
    let ops: [(&[usize], usize); OPERANDS] = core::array::from_fn(|k| match k {
        0 => (&walk[..], 0),
        k if k < slot => (&strides[k - 1][..], leaves[k - 1].offset),
        k if k == slot => (out_strides, 0),
        _ => (&zeros[..], 0),
    });
    let plan = Plan::new(dims, ops);
    // A few ranges of rows per thread, each with its own accumulators (at
    // most as many elements as the value itself).
    let tiles = if numel < pool::GRAIN {
        1
    } else {
        rows.min(4 * pool::threads())
    };
    let mut partials = super::try_vec_from_fn(&[tiles, n_out], |_| r.init())?;
    let (guards, ptrs) = read_all(leaves);
    let write = writer(e);
    let parts = OutPtr(partials.as_mut_ptr());
    let tile = |t: usize| {
        // SAFETY: row `t` of the partials (`n_out` accumulators) is this
        // tile's alone.
        let acc = unsafe { core::slice::from_raw_parts_mut(parts.ptr().add(t * n_out), n_out) };
        let mut arena = Arena::new();
        let (start, end) = (t * numel / tiles, (t + 1) * numel / tiles);
        plan.segments(start, end, |offs, st, len| {
            // The plan's inner loop is the kept innermost axis (operand 0
            // orders the axes as memory does), along which the outputs
            // follow each other.
            assert_eq!(
                st[slot], 1,
                "a column reduction's inner loop is a kept axis"
            );
            let o = offs[slot];
            for at in (0..len).step_by(BLOCK) {
                let n = BLOCK.min(len - at);
                let b = make_block(&ptrs, &offs, &st, at, n, &mut arena);
                let mut s = b.scratch();
                let Run::Slice(v) = s.filled(n, |dst| write(&b, dst)) else {
                    unreachable!("a filled scratch is a slice")
                };
                let row = &mut acc[o + at..o + at + n];
                for (a, &x) in row.iter_mut().zip(v) {
                    *a = r.fold(*a, x, 0);
                }
            }
        });
    };
    with_stack(E::OPS, || pool::for_each_tile(tiles, &tile));
    drop(guards);
    let data = (0..n_out)
        .map(|o| {
            let total = (0..tiles).fold(r.init(), |a, t| r.combine(a, partials[t * n_out + o]));
            r.finish(total)
        })
        .collect();
    Ok(Some(data))
}

impl<T: Element> crate::backend::fused::Fused<T> for Cpu {
    fn eval<E: crate::backend::fused::Lowered<Device = Cpu, Elem = T>>(
        e: &E,
    ) -> Result<Output<Storage<T>>, ShapeError> {
        eval(e)
    }

    fn eval_into<E: crate::backend::fused::Lowered<Device = Cpu, Elem = T>>(
        e: &E,
        out: Layout<'_, T>,
    ) -> Result<(), ShapeError> {
        eval_into(e, out)
    }

    fn reduce_fused<E: crate::backend::fused::Lowered<Device = Cpu, Elem = T>>(
        e: &E,
        r: Reduction,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Output<Storage<T>>, ShapeError>
    where
        T: Numeric,
    {
        let (data, dims) = match r {
            Reduction::Sum => reduce(e, &Sum { divisor: None }, mask)?,
            Reduction::Mean => {
                let d = Expr::dims(e)?;
                let n = crate::backend::primitives::reduced_count(&d, mask);
                reduce(
                    e,
                    &Sum {
                        divisor: Some(T::from_f64(n as f64)),
                    },
                    mask,
                )?
            }
            Reduction::Max => reduce(e, &Extreme::<true>, mask)?,
            Reduction::Min => reduce(e, &Extreme::<false>, mask)?,
            Reduction::Prod => {
                let value = Owned::new(eval(e)?);
                return <Cpu as crate::backend::Backend<T>>::reduce(
                    r,
                    value.layout(),
                    mask,
                    keepdim,
                );
            }
        };
        Ok(whole(
            data,
            &crate::backend::primitives::reduced_dims(&dims, mask, keepdim),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A block's leaf table, offsets and strides for tests of the scratch
    /// space, which read no leaf.
    fn no_leaves() -> (LeafPtrs, [usize; OPERANDS], [usize; OPERANDS]) {
        let none = LeafPtr {
            ptr: core::ptr::null(),
            ty: TypeId::of::<()>(),
            size: 0,
        };
        (LeafPtrs([none; MAX_LEAVES]), [0; OPERANDS], [0; OPERANDS])
    }

    /// Scratch blocks are handed out as a stack: nested ones are distinct
    /// blocks, and one given back is the next handed out; a new block
    /// starts the stack afresh.
    #[test]
    fn scratch_blocks_are_a_stack() {
        let (leaves, offs, st) = no_leaves();
        let mut arena = Arena::new();
        let addr = |s: &mut Scratch<'_, f64>| s.cells.as_ptr() as usize;
        let (first, second, again);
        {
            let b = make_block(&leaves, &offs, &st, 0, BLOCK, &mut arena);
            let mut s0 = b.scratch::<f64>();
            first = addr(&mut s0);
            {
                let mut s1 = b.scratch::<f64>();
                second = addr(&mut s1);
                let Run::Slice(r) =
                    s1.step(BLOCK, Run::Splat(1.0), |g, c, j| g + (c * CHUNK + j) as f64)
                else {
                    panic!("a step is a slice")
                };
                assert_eq!(r[BLOCK - 1], BLOCK as f64);
            }
            let mut s2 = b.scratch::<f64>();
            again = addr(&mut s2);
        }
        assert_ne!(first, second);
        assert_eq!(second, again);
        let b = make_block(&leaves, &offs, &st, 0, BLOCK, &mut arena);
        assert_eq!(addr(&mut b.scratch::<f64>()), first);
    }

    #[test]
    fn steps_and_runs_write_every_element() {
        // A short block and a whole one, from a splat and from a slice,
        // against index-by-index loops.
        let (leaves, offs, st) = no_leaves();
        let mut arena = Arena::new();
        for len in [3, CHUNK + 5, BLOCK] {
            let b = make_block(&leaves, &offs, &st, 0, len, &mut arena);
            let v: Vec<f32> = (0..len).map(|i| i as f32 * 0.5).collect();
            let mut s = b.scratch::<f32>();
            let Run::Slice(r) = s.step(len, Run::Splat(2.0), |g, c, j| g * (c * CHUNK + j) as f32)
            else {
                panic!("a step is a slice")
            };
            assert_eq!(r, (0..len).map(|i| 2.0 * i as f32).collect::<Vec<_>>());
            let mut s = b.scratch::<f32>();
            let Run::Slice(r) = s.step(len, Run::Slice(&v), |g, c, j| g + (c * CHUNK + j) as f32)
            else {
                panic!("a step is a slice")
            };
            assert_eq!(r, (0..len).map(|i| v[i] + i as f32).collect::<Vec<_>>());
            for run in [Run::Splat(7.0), Run::Slice(&v)] {
                let mut out = vec![MaybeUninit::<f32>::uninit(); len];
                write_run(&mut out, run);
                // SAFETY: `write_run` wrote all `len`.
                let out: Vec<f32> = out.iter().map(|x| unsafe { x.assume_init() }).collect();
                let want = match run {
                    Run::Splat(x) => vec![x; len],
                    Run::Slice(v) => v.to_vec(),
                };
                assert_eq!(out, want);
            }
        }
    }
}
