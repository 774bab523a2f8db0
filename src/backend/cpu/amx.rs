//! `f32` matrix products on Intel AMX tiles, as accurate as the AVX-512
//! path: each operand is split into three `bf16` parts and the six
//! significant cross products are summed in `f32` on the tile unit.
//!
//! An `f32` `x` is `h + m + l` exactly, with `h = bf16(x)`,
//! `m = bf16(x - h)` and `l = x - h - m` (each rounding takes the next 8 of
//! the 24 significant bits, so the last remainder is itself a `bf16`). Then
//! `a * b` is the sum of nine products of parts, each exact in `f32`
//! (8-bit by 8-bit significands); the three smallest are left out (`|m|`
//! is at most `2^-8 |x|` and `|l|` at most `2^-16 |x|`, so `m*l`, `l*m`
//! and `l*l` come to at most about `2^-23 |a b|`, the size of one `f32`
//! rounding of the product). `TDPBF16PS` adds the products into `f32`
//! accumulators, rounding to nearest even. The leading product `h*h` is
//! accumulated in its own tiles and the five correction products in others,
//! and the two are added at the end: the correction sum is about `2^-8` of
//! the result, so its roundings are negligible, and the result's rounding
//! error is that of one `f32` sum over `k` terms, as in any `f32` GEMM.
//! `tests/matmul_amx.rs` measures it against an `f64` reference beside the
//! AVX-512 path's.
//!
//! The tile unit flushes `bf16` subnormals and `f32` subnormal results to
//! zero, and a part of a huge value can round to infinity. So the path is
//! taken only when every element of both operands is zero or has magnitude
//! in `[2^-40, 2^40]` (checked while packing, before the destination is
//! touched): all parts and partial products are then normal `f32` and the
//! sums cannot overflow for any `k < 2^47`. Otherwise, and for NaN or
//! infinite elements, the product runs on the AVX-512 path, which follows
//! IEEE arithmetic element by element.
//!
//! On a core of the 2026-11-23 machine (Xeon with AMX, `benches/README.md`)
//! the kernel below reaches 400-480 GFLOP/s with its operands in L2 (the
//! most with blocks of 1024 along `k`), about 2.3 times the AVX-512
//! kernels' 180-200.
//!
//! # Layout
//! Both operands are packed whole before any product runs (their values are
//! checked on the way), into 1 KiB tiles of 16 rows of 64 bytes:
//! - the left operand in panels of 32 rows by `KC` (a block of the
//!   contracted dimension): for each step of 32 along `k`, each part, and
//!   each half of the rows, a tile of 16 rows by 32 `bf16`;
//! - the right operand in panels of 32 columns by `KC`: for each step, part
//!   and half of the columns, a tile of 16 row pairs by 16 columns, the two
//!   rows of a pair interleaved (the layout `TDPBF16PS` reads, "VNNI").
//!
//! A 32 x 32 block of the result is four accumulator tiles; the kernel runs
//! one block over one `KC` panel pair and adds it into the destination.
//!
//! # Safety
//! The tile instructions are `unsafe` inline assembly: each thread loads a
//! tile configuration before its first tile instruction and releases the
//! tiles when done; the process asks Linux for the tile state once
//! (`arch_prctl(ARCH_REQ_XCOMP_PERM)`), and the path is used only if that
//! succeeded.

use core::arch::x86_64::*;
use core::cell::RefCell;
use core::sync::atomic::{AtomicBool, AtomicU8, Ordering};

use super::mat::Mat;
use super::pool;

/// `f32` elements per tile row step (32 `bf16` make a 64-byte tile row).
const STEP: usize = 32;
/// Rows (or columns) per micro-panel: two tiles of 16.
const PANEL: usize = 32;
/// `bf16` parts per `f32`.
const PARTS: usize = 3;
/// Tiles per step of a micro-panel: each part for each half.
const TILES_PER_STEP: usize = PARTS * 2;
/// The contracted block: 32 steps, a 192 KiB micro-panel per operand.
const KC: usize = 1024;
/// Row panels per block of the result a task computes (the left operand's
/// block, 768 KiB, stays in L2 while the right operand's panels pass).
const ROW_PANELS: usize = 4;
/// Column panels per block of the result a task computes, at most.
const COL_PANELS: usize = 32;
/// Bytes of the next right-operand panel the kernel prefetches per step
/// (24 cache lines: the `prefetcht1` lines in [`kernel`]).
const PREFETCH_STEP: usize = 24 * 64;
/// Products go to AMX only when `2mn / (m + n)` (the multiply-adds each
/// packed element serves, per unit of `k`) is at least this: below it,
/// splitting and packing the operands (about 0.3 ns an element) costs more
/// than the faster kernel saves. Measured with 2 threads (GFLOP/s, AMX
/// against AVX-512): 256^3 313-330 against 340-360, 384^3 360 against 395,
/// 512^3 395 against 389, 768^3 445 against 364, and `4096 x 256 x 256`
/// (side 482) 430-450 against 390-400.
const MIN_SIDE: usize = 448;
/// ... and `k` at least this (each block's accumulators are stored and
/// added into the destination once per call).
const MIN_K: usize = 64;
/// Packed operands above this many bytes are not worth the memory; such
/// products stay on the AVX-512 path.
const MAX_PACKED_BYTES: usize = 1 << 30;
/// The packed buffer a thread keeps between calls, at most.
const KEEP_BYTES: usize = 64 << 20;
/// Elements of magnitude outside `[LO, HI]` (other than zero) send the
/// product to the AVX-512 path.
const LO: f32 = 1.0 / (1u64 << 40) as f32;
/// See [`LO`].
const HI: f32 = (1u64 << 40) as f32;

/// One tile: 16 rows of 64 bytes, aligned as the tile loads want.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Tile([u16; 512]);

/// Bytes of a [`Tile`].
const TILE_BYTES: usize = core::mem::size_of::<Tile>();

/// The 64-byte tile configuration: palette 1, eight tiles of 16 rows by 64
/// bytes.
#[repr(C, align(64))]
struct TileConfig([u8; 64]);

impl TileConfig {
    const fn new() -> Self {
        let mut b = [0u8; 64];
        b[0] = 1;
        let mut t = 0;
        while t < 8 {
            b[16 + 2 * t] = 64;
            b[48 + t] = 16;
            t += 1;
        }
        Self(b)
    }
}

static CONFIG: TileConfig = TileConfig::new();

/// 0: not yet decided; 1: usable; 2: not usable.
static STATE: AtomicU8 = AtomicU8::new(0);
/// Cleared by [`set_enabled`]`(false)`.
static ENABLED: AtomicBool = AtomicBool::new(true);

/// Whether `f32` products may use AMX: the CPU has AMX-BF16 and AVX-512,
/// Linux granted the tile state, `SHAPED_AMX` is not `0`, and
/// [`set_enabled`] did not turn it off.
pub(crate) fn enabled() -> bool {
    ENABLED.load(Ordering::Relaxed) && usable()
}

/// Turns the AMX path on or off for later products (it is on by default
/// where [`usable`]).
pub(crate) fn set_enabled(on: bool) {
    ENABLED.store(on, Ordering::Relaxed);
}

/// Whether this machine and process can run the kernel (decided once).
fn usable() -> bool {
    match STATE.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let ok = detect();
            STATE.store(if ok { 1 } else { 2 }, Ordering::Relaxed);
            ok
        }
    }
}

#[cfg(all(target_arch = "x86_64", target_os = "linux"))]
fn detect() -> bool {
    if std::env::var_os("SHAPED_AMX").is_some_and(|v| v == "0") {
        return false;
    }
    if !(std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512bf16"))
    {
        return false;
    }
    // CPUID leaf 7, sub-leaf 0: EDX bit 22 is AMX-BF16, bit 24 AMX-TILE.
    let leaf = core::arch::x86_64::__cpuid_count(7, 0);
    if leaf.edx & (1 << 22) == 0 || leaf.edx & (1 << 24) == 0 {
        return false;
    }
    const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
    const XFEATURE_XTILEDATA: libc::c_long = 18;
    // SAFETY: arch_prctl with ARCH_REQ_XCOMP_PERM only asks the kernel to
    // let this process use the tile state; it touches no memory of ours.
    let granted = unsafe {
        libc::syscall(
            libc::SYS_arch_prctl,
            ARCH_REQ_XCOMP_PERM,
            XFEATURE_XTILEDATA,
        )
    };
    granted == 0
}

#[cfg(not(all(target_arch = "x86_64", target_os = "linux")))]
fn detect() -> bool {
    false
}

/// Whether a product of these sizes goes to AMX (when [`enabled`]).
pub(super) fn worth_it(m: usize, n: usize, k: usize) -> bool {
    let side = (2 * m as u128 * n as u128) / (m as u128 + n as u128).max(1);
    side >= MIN_SIDE as u128
        && k >= MIN_K
        && packed_tiles(m, n, k).saturating_mul(TILE_BYTES) <= MAX_PACKED_BYTES
}

/// Tiles of both packed operands.
fn packed_tiles(m: usize, n: usize, k: usize) -> usize {
    let steps = k.div_ceil(STEP);
    (m.div_ceil(PANEL) + n.div_ceil(PANEL)) * steps * TILES_PER_STEP
}

/// The sizes of a product and where its packed panels lie.
#[derive(Clone, Copy, Debug)]
struct Geometry {
    m: usize,
    n: usize,
    k: usize,
    /// Row panels of the left operand.
    mp: usize,
    /// Column panels of the right operand.
    np: usize,
    /// Blocks of [`KC`] along `k`.
    kb: usize,
}

impl Geometry {
    fn new(m: usize, n: usize, k: usize) -> Self {
        Self {
            m,
            n,
            k,
            mp: m.div_ceil(PANEL),
            np: n.div_ceil(PANEL),
            kb: k.div_ceil(KC),
        }
    }

    /// The range of `k` in block `pc`.
    fn k_block(&self, pc: usize) -> core::ops::Range<usize> {
        pc * KC..((pc + 1) * KC).min(self.k)
    }

    /// Steps of 32 in block `pc`.
    fn steps(&self, pc: usize) -> usize {
        self.k_block(pc).len().div_ceil(STEP)
    }

    /// The first tile of row panel `rb` in block `pc` (panels of one block
    /// are contiguous; all blocks but the last have `KC / STEP` steps).
    fn lhs_panel(&self, pc: usize, rb: usize) -> usize {
        (pc * self.mp * (KC / STEP) + rb * self.steps(pc)) * TILES_PER_STEP
    }

    /// The first tile of column panel `cb` in block `pc`, after the left
    /// operand's tiles.
    fn rhs_panel(&self, pc: usize, cb: usize) -> usize {
        self.lhs_tiles() + (pc * self.np * (KC / STEP) + cb * self.steps(pc)) * TILES_PER_STEP
    }

    fn lhs_tiles(&self) -> usize {
        self.mp * self.k.div_ceil(STEP) * TILES_PER_STEP
    }

    fn tiles(&self) -> usize {
        packed_tiles(self.m, self.n, self.k)
    }
}

/// A pointer, or a matrix of pointers, that the pool's threads share.
#[derive(Clone, Copy)]
struct Shared<T>(T);
// SAFETY: the buffers behind the pointers outlive the pool job (the caller
// holds them); the tasks write disjoint parts (their own panels, their own
// blocks of the destination) and read packed panels only in the phase
// after the one that wrote them.
unsafe impl<T> Send for Shared<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for Shared<T> {}

impl<T: Copy> Shared<T> {
    fn get(self) -> T {
        self.0
    }
}

thread_local! {
    /// The packed operands' buffer, kept between calls (up to [`KEEP_BYTES`]).
    static PACKED: RefCell<Vec<Tile>> = const { RefCell::new(Vec::new()) };
}

/// `dst = alpha * lhs @ rhs` (`beta = None`) or
/// `dst = beta * dst + alpha * lhs @ rhs`, on the pool's threads when
/// `parallel`. Returns `false`, with `dst` untouched, when an operand has a
/// value outside the path's range (see the module's docs): the caller then
/// runs the product elsewhere.
///
/// # Safety
/// [`enabled`] returned true. `dst`, `lhs` and `rhs` address `m x n`,
/// `m x k` and `k x n` elements in bounds of their buffers; the
/// destination's are distinct, initialised when `beta` is `Some`, and
/// overlap neither operand.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn product(
    (m, n, k): (usize, usize, usize),
    dst: Mat<*mut f32>,
    lhs: Mat<*const f32>,
    rhs: Mat<*const f32>,
    alpha: f32,
    beta: Option<f32>,
    parallel: bool,
) -> bool {
    let g = Geometry::new(m, n, k);
    let tiles = g.tiles();
    let run = |buf: &mut Vec<Tile>| {
        if buf.capacity() < tiles {
            *buf = Vec::with_capacity(tiles);
            super::alloc::advise_huge_pages(buf.as_mut_ptr() as *mut u8, tiles * TILE_BYTES);
        }
        let packed = Shared(buf.as_mut_ptr());
        // SAFETY: the buffer has room for `tiles` tiles, which the packing
        // writes in full before the products read them; the operands and
        // destination are as the caller promises.
        unsafe { pack_and_multiply(&g, packed, dst, lhs, rhs, alpha, beta, parallel) }
    };
    let kept = PACKED.with(|cell| match cell.try_borrow_mut() {
        Ok(mut buf) => {
            let ok = run(&mut buf);
            if buf.capacity() * TILE_BYTES > KEEP_BYTES {
                *buf = Vec::new();
            }
            Some(ok)
        }
        Err(_) => None,
    });
    kept.unwrap_or_else(|| run(&mut Vec::new()))
}

/// Packs both operands into `packed`, then, if every value is in range,
/// runs every block of the result; false (the destination untouched) if a
/// value is out of range. On the pool's threads when `parallel`, in one job
/// of two phases.
///
/// # Safety
/// `packed` has room for `g.tiles()` tiles; the operands and destination
/// are as in [`product`].
#[allow(clippy::too_many_arguments)]
unsafe fn pack_and_multiply(
    g: &Geometry,
    packed: Shared<*mut Tile>,
    dst: Mat<*mut f32>,
    lhs: Mat<*const f32>,
    rhs: Mat<*const f32>,
    alpha: f32,
    beta: Option<f32>,
    parallel: bool,
) -> bool {
    let (lhs, rhs, dst) = (Shared(lhs), Shared(rhs), Shared(dst));
    let panels = g.kb * (g.mp + g.np);
    let bad = AtomicBool::new(false);
    let pack_one = |t: usize| {
        let (pc, i) = (t / (g.mp + g.np), t % (g.mp + g.np));
        // SAFETY: each call writes only its own panel's tiles, in the
        // buffer by `Geometry`'s offsets; it reads operand elements inside
        // the sizes.
        let ok = unsafe {
            if i < g.mp {
                pack_lhs(g, pc, i, lhs.get(), packed.get().add(g.lhs_panel(pc, i)))
            } else {
                let cb = i - g.mp;
                pack_rhs(g, pc, cb, rhs.get(), packed.get().add(g.rhs_panel(pc, cb)))
            }
        };
        if !ok {
            bad.store(true, Ordering::Relaxed);
        }
    };
    let blocks = Blocks::new(g, if parallel { pool::threads() } else { 1 });
    let multiply_one = |t: usize| {
        if bad.load(Ordering::Relaxed) {
            return;
        }
        // SAFETY: every panel is packed (this runs after the packing
        // phase); block `t` is this call's own part of the destination.
        unsafe { multiply_block(g, packed, dst.get(), alpha, beta, &blocks, t) };
    };
    if parallel {
        pool::two_phases(panels, &pack_one, blocks.count(), &multiply_one);
    } else {
        (0..panels).for_each(pack_one);
        (0..blocks.count()).for_each(multiply_one);
    }
    !bad.load(Ordering::Relaxed)
}

/// The three `bf16` parts of 32 values (`x0` then `x1`), each part as 32
/// `bf16` in order, and whether all values are in range (zero, or
/// magnitude in `[LO, HI]`; NaN is not).
///
/// `VCVTNE2PS2BF16` rounds to nearest even; it would flush a subnormal
/// input to zero, but the remainders of values in range are zero or at
/// least `2^-64` in magnitude, so each split is exact.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512bf16")]
fn split32(x0: __m512, x1: __m512) -> ([__m512i; PARTS], bool) {
    /// The `f32` values of the 32 `bf16` in `h` (low half, high half).
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn widen(h: __m512i) -> (__m512, __m512) {
        let lo = _mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(_mm512_castsi512_si256(h)));
        let hi = _mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(_mm512_extracti64x4_epi64::<1>(h)));
        (_mm512_castsi512_ps(lo), _mm512_castsi512_ps(hi))
    }
    let bf = |a: __m512, b: __m512| -> __m512i {
        // SAFETY: `__m512bh` and `__m512i` are both 64 bytes of plain data.
        unsafe { core::mem::transmute::<__m512bh, __m512i>(_mm512_cvtne2ps_pbh(b, a)) }
    };
    let in_range = |x: __m512| -> __mmask16 {
        let a = _mm512_abs_ps(x);
        let inside = _mm512_cmp_ps_mask::<_CMP_GE_OQ>(a, _mm512_set1_ps(LO))
            & _mm512_cmp_ps_mask::<_CMP_LE_OQ>(a, _mm512_set1_ps(HI));
        inside | _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(a, _mm512_setzero_ps())
    };
    let ok = (in_range(x0) & in_range(x1)) == 0xffff;
    let h = bf(x0, x1);
    let (h0, h1) = widen(h);
    let (r0, r1) = (_mm512_sub_ps(x0, h0), _mm512_sub_ps(x1, h1));
    let m = bf(r0, r1);
    let (m0, m1) = widen(m);
    let l = bf(_mm512_sub_ps(r0, m0), _mm512_sub_ps(r1, m1));
    ([h, m, l], ok)
}

/// Packs 32 consecutive `k` of one row into its three parts' tile rows
/// (`out`: the part-0 row; parts are two tiles apart). Returns whether all
/// 32 values are in range.
///
/// # Safety
/// `out` and the rows two and four tiles on are writable for 32 `u16`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512bf16")]
unsafe fn pack_row(src: &[f32; STEP], out: *mut u16) -> bool {
    // SAFETY: `src` holds 32 `f32`.
    let (x0, x1) = unsafe {
        (
            _mm512_loadu_ps(src.as_ptr()),
            _mm512_loadu_ps(src.as_ptr().add(16)),
        )
    };
    let (parts, ok) = split32(x0, x1);
    for (p, part) in parts.iter().enumerate() {
        // SAFETY: the caller's promise, part `p` being `2p` tiles on.
        unsafe { _mm512_storeu_si512(out.add(p * 2 * 512) as *mut __m512i, *part) };
    }
    ok
}

/// Packs 16 columns of two consecutive rows `k`, `k + 1` into one VNNI tile
/// row per part (`out`: the part-0 row): the two rows' `bf16` interleaved.
/// Returns whether all values are in range.
///
/// # Safety
/// As [`pack_row`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512bf16")]
unsafe fn pack_pair(r0: &[f32; 16], r1: &[f32; 16], out: *mut u16) -> bool {
    // SAFETY: each row holds 16 `f32`.
    let (x0, x1) = unsafe { (_mm512_loadu_ps(r0.as_ptr()), _mm512_loadu_ps(r1.as_ptr())) };
    let (parts, ok) = split32(x0, x1);
    // Lane 2j takes row 0's column j, lane 2j + 1 row 1's.
    let order = _mm512_set_epi16(
        31, 15, 30, 14, 29, 13, 28, 12, 27, 11, 26, 10, 25, 9, 24, 8, 23, 7, 22, 6, 21, 5, 20, 4,
        19, 3, 18, 2, 17, 1, 16, 0,
    );
    for (p, part) in parts.iter().enumerate() {
        let v = _mm512_permutexvar_epi16(order, *part);
        // SAFETY: as in `pack_row`.
        unsafe { _mm512_storeu_si512(out.add(p * 2 * 512) as *mut __m512i, v) };
    }
    ok
}

/// Reads `len` elements from `ptr` at `stride` into the front of `buf`,
/// zeroing the rest; returns `buf` (or the elements in place, when they
/// are contiguous and complete).
///
/// # Safety
/// The `len` elements are in bounds.
#[inline(always)]
unsafe fn gather<const N: usize>(
    ptr: *const f32,
    stride: usize,
    len: usize,
    buf: &mut [f32; N],
) -> &[f32; N] {
    if len == N && stride == 1 {
        // SAFETY: `N` contiguous elements in bounds (caller).
        return unsafe { &*(ptr as *const [f32; N]) };
    }
    for (i, b) in buf.iter_mut().enumerate() {
        // SAFETY: `i < len` elements are in bounds (caller).
        *b = if i < len {
            unsafe { *ptr.add(i * stride) }
        } else {
            0.0
        };
    }
    buf
}

/// Packs row panel `rb` of block `pc` of the left operand (`m x k`).
///
/// # Safety
/// `out` has room for the panel; the operand is in bounds.
#[target_feature(enable = "avx512f,avx512bw,avx512bf16")]
unsafe fn pack_lhs(g: &Geometry, pc: usize, rb: usize, a: Mat<*const f32>, out: *mut Tile) -> bool {
    let core::ops::Range {
        start: k0,
        end: kend,
    } = g.k_block(pc);
    let out = out as *mut u16;
    let mut buf = [0f32; STEP];
    let zero = [0f32; STEP];
    let mut ok = true;
    for s in 0..g.steps(pc) {
        let kk = k0 + s * STEP;
        let len = STEP.min(kend - kk);
        for r in 0..PANEL {
            let row = rb * PANEL + r;
            // Tile (s, part 0, half r / 16), row r % 16.
            let at = (s * TILES_PER_STEP + r / 16) * 512 + (r % 16) * STEP;
            // SAFETY: row `row < m` and columns `kk..kk + len` are in
            // bounds; the tile row lies in this panel's room.
            unsafe {
                let src = if row < g.m {
                    gather(a.ptr.add(row * a.rs + kk * a.cs), a.cs, len, &mut buf)
                } else {
                    &zero
                };
                ok &= pack_row(src, out.add(at));
            }
        }
    }
    ok
}

/// Packs column panel `cb` of block `pc` of the right operand (`k x n`).
///
/// # Safety
/// As [`pack_lhs`].
#[target_feature(enable = "avx512f,avx512bw,avx512bf16")]
unsafe fn pack_rhs(g: &Geometry, pc: usize, cb: usize, b: Mat<*const f32>, out: *mut Tile) -> bool {
    let core::ops::Range {
        start: k0,
        end: kend,
    } = g.k_block(pc);
    let out = out as *mut u16;
    let (mut b0, mut b1) = ([0f32; 16], [0f32; 16]);
    let zero = [0f32; 16];
    let mut ok = true;
    for s in 0..g.steps(pc) {
        for pair in 0..STEP / 2 {
            let k = k0 + s * STEP + 2 * pair;
            for half in 0..2 {
                let col = cb * PANEL + half * 16;
                let width = g.n.saturating_sub(col).min(16);
                let at = (s * TILES_PER_STEP + half) * 512 + pair * STEP;
                // SAFETY: rows `k`, `k + 1` below `kend` and columns
                // `col..col + width` are in bounds; the tile row lies in
                // this panel's room.
                unsafe {
                    let row = |kr: usize, buf: &mut [f32; 16]| -> *const [f32; 16] {
                        if kr < kend && width > 0 {
                            gather(b.ptr.add(kr * b.rs + col * b.cs), b.cs, width, buf)
                        } else {
                            &zero
                        }
                    };
                    let (p0, p1) = (row(k, &mut b0), row(k + 1, &mut b1));
                    ok &= pack_pair(&*p0, &*p1, out.add(at));
                }
            }
        }
    }
    ok
}

/// The two 32 x 32 `f32` sums a kernel call leaves: the leading products
/// and the corrections.
#[repr(C, align(64))]
struct Sums {
    lead: [f32; PANEL * PANEL],
    corr: [f32; PANEL * PANEL],
}

/// How the result is cut into blocks, one a task: [`ROW_PANELS`] row
/// panels by up to [`COL_PANELS`] column panels, narrower (on several
/// threads) when that gives each thread two blocks.
struct Blocks {
    row_blocks: usize,
    cols: usize,
    col_blocks: usize,
}

impl Blocks {
    fn new(g: &Geometry, threads: usize) -> Self {
        let row_blocks = g.mp.div_ceil(ROW_PANELS);
        let mut cols = COL_PANELS.min(g.np);
        while threads > 1 && cols > 1 && row_blocks * g.np.div_ceil(cols) < 2 * threads {
            cols = cols.div_ceil(2);
        }
        Self {
            row_blocks,
            cols,
            col_blocks: g.np.div_ceil(cols),
        }
    }

    fn count(&self) -> usize {
        self.row_blocks * self.col_blocks
    }
}

/// Runs block `t` of the result over every `KC` block of the packed
/// operands, adding into `dst`.
///
/// # Safety
/// `packed` holds both operands packed for `g`; `dst` as in [`product`];
/// no other thread writes block `t` meanwhile.
unsafe fn multiply_block(
    g: &Geometry,
    packed: Shared<*mut Tile>,
    dst: Mat<*mut f32>,
    alpha: f32,
    beta: Option<f32>,
    blocks: &Blocks,
    t: usize,
) {
    let (ib, jb) = (t % blocks.row_blocks, t / blocks.row_blocks);
    let rows = ib * ROW_PANELS..((ib + 1) * ROW_PANELS).min(g.mp);
    let colr = jb * blocks.cols..((jb + 1) * blocks.cols).min(g.np);
    let mut sums = Sums {
        lead: [0.0; PANEL * PANEL],
        corr: [0.0; PANEL * PANEL],
    };
    // SAFETY: the tile configuration is loaded before the kernels run on
    // this thread and released after; the kernels read packed panels
    // inside the buffer and write `sums`; the block's elements of the
    // destination are in bounds and this call's alone (caller).
    unsafe {
        load_config();
        for pc in 0..g.kb {
            let steps = g.steps(pc);
            for cb in colr.clone() {
                for rb in rows.clone() {
                    let a = packed.get().add(g.lhs_panel(pc, rb));
                    let b = packed.get().add(g.rhs_panel(pc, cb));
                    // While the block's row panels pass over this column
                    // panel, each call prefetches its share of the next one
                    // into L2 (it would otherwise come from L3 at the pace
                    // of the tile loads).
                    let pf = if cb + 1 < colr.end {
                        let next = packed.get().add(g.rhs_panel(pc, cb + 1)) as *const u8;
                        let share = steps * PREFETCH_STEP;
                        next.wrapping_add((rb - rows.start) * share)
                    } else {
                        a as *const u8
                    };
                    kernel(a, b, steps, &mut sums, pf);
                    let (r0, c0) = (rb * PANEL, cb * PANEL);
                    let block = Mat {
                        ptr: dst.ptr.add(r0 * dst.rs + c0 * dst.cs),
                        rs: dst.rs,
                        cs: dst.cs,
                    };
                    let shape = (PANEL.min(g.m - r0), PANEL.min(g.n - c0));
                    let scale = if pc == 0 { Some(beta) } else { None };
                    add_block(block, shape, &sums, alpha, scale);
                }
            }
        }
        release_tiles();
    }
}

/// `dst = alpha * (lead + corr) + first(dst)`, where `first` is
/// `Some(None)`: nothing (replace), `Some(Some(beta))`: `beta * dst`, and
/// `None`: `dst` (a later block of `k`).
///
/// # Safety
/// `dst` addresses `rows x cols` distinct, initialised (unless replaced)
/// elements.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl")]
unsafe fn add_block(
    dst: Mat<*mut f32>,
    (rows, cols): (usize, usize),
    sums: &Sums,
    alpha: f32,
    first: Option<Option<f32>>,
) {
    for i in 0..rows {
        let lead = &sums.lead[i * PANEL..i * PANEL + cols];
        let corr = &sums.corr[i * PANEL..i * PANEL + cols];
        if dst.cs == 1 {
            // SAFETY: row `i`'s `cols` elements are contiguous and in
            // bounds (caller).
            let row = unsafe { core::slice::from_raw_parts_mut(dst.ptr.add(i * dst.rs), cols) };
            match first {
                Some(None) => {
                    for ((d, &l), &c) in row.iter_mut().zip(lead).zip(corr) {
                        *d = alpha * (l + c);
                    }
                }
                Some(Some(beta)) => {
                    for ((d, &l), &c) in row.iter_mut().zip(lead).zip(corr) {
                        *d = beta * *d + alpha * (l + c);
                    }
                }
                None => {
                    for ((d, &l), &c) in row.iter_mut().zip(lead).zip(corr) {
                        *d += alpha * (l + c);
                    }
                }
            }
        } else {
            for j in 0..cols {
                // SAFETY: element (i, j) is in bounds (caller).
                let d = unsafe { &mut *dst.ptr.add(i * dst.rs + j * dst.cs) };
                let v = alpha * (lead[j] + corr[j]);
                *d = match first {
                    Some(None) => v,
                    Some(Some(beta)) => beta * *d + v,
                    None => *d + v,
                };
            }
        }
    }
}

/// Loads the tile configuration on this thread.
///
/// # Safety
/// AMX is [`usable`].
unsafe fn load_config() {
    // SAFETY: `CONFIG` is a valid 64-byte palette-1 configuration; the
    // process has the tile permission (caller).
    unsafe {
        core::arch::asm!("ldtilecfg [{}]", in(reg) CONFIG.0.as_ptr(), options(nostack, readonly))
    };
}

/// Returns the tiles to their initial state, so that context switches do
/// not save them.
///
/// # Safety
/// As [`load_config`].
unsafe fn release_tiles() {
    // SAFETY: TILERELEASE only resets tile state.
    unsafe { core::arch::asm!("tilerelease", options(nostack, nomem)) };
}

/// One 32 x 32 block over `steps` steps of a packed row panel `a` and
/// column panel `b`: the leading products `h*h` into `sums.lead`, the five
/// corrections (`h*m`, `m*h`, `h*l`, `m*m`, `l*h`) into `sums.corr`.
///
/// Each step also prefetches [`PREFETCH_STEP`] bytes from `pf` on into L2
/// (a hint: it never faults, whatever the address).
///
/// Tiles: 0-3 accumulate the block's quarters, 4-5 hold the row halves of
/// one part of `a`, 6-7 the column halves of one part of `b`. Part `p` of
/// half `t` at step `s` is tile `(s * 3 + p) * 2 + t` of a panel.
///
/// # Safety
/// The tile configuration is loaded; `a` and `b` hold `steps * 6` tiles
/// each; `steps > 0`.
#[inline(never)]
unsafe fn kernel(a: *const Tile, b: *const Tile, steps: usize, sums: &mut Sums, pf: *const u8) {
    // SAFETY: every tile load reads 16 rows of 64 bytes at a tile offset
    // below `steps * 6` tiles of its panel (the loops advance one step, 6
    // tiles, per iteration, `steps` times); the stores write the four
    // quarters of the two 32 x 32 sums (row stride 128 bytes).
    unsafe {
        core::arch::asm!(
            // The leading products.
            "tilezero tmm0", "tilezero tmm1", "tilezero tmm2", "tilezero tmm3",
            "mov {i}, {n}", "mov {pa}, {a}", "mov {pb}, {b}",
            "2:",
            "tileloadd tmm4, [{pa} + {st}*1]",
            "tileloadd tmm6, [{pb} + {st}*1]",
            "tdpbf16ps tmm0, tmm4, tmm6",
            "tileloadd tmm7, [{pb} + {st}*1 + 1024]",
            "tdpbf16ps tmm1, tmm4, tmm7",
            "tileloadd tmm5, [{pa} + {st}*1 + 1024]",
            "tdpbf16ps tmm2, tmm5, tmm6",
            "tdpbf16ps tmm3, tmm5, tmm7",
            "add {pa}, 6144", "add {pb}, 6144",
            "dec {i}", "jnz 2b",
            "tilestored [{lead} + {cst}*1], tmm0",
            "tilestored [{lead} + {cst}*1 + 64], tmm1",
            "tilestored [{lead} + {cst}*1 + 2048], tmm2",
            "tilestored [{lead} + {cst}*1 + 2112], tmm3",
            // The corrections.
            "tilezero tmm0", "tilezero tmm1", "tilezero tmm2", "tilezero tmm3",
            "mov {i}, {n}", "mov {pa}, {a}", "mov {pb}, {b}",
            "3:",
            // h(a) * m(b)
            "tileloadd tmm4, [{pa} + {st}*1]",
            "tileloadd tmm6, [{pb} + {st}*1 + 2048]",
            "tdpbf16ps tmm0, tmm4, tmm6",
            "tileloadd tmm7, [{pb} + {st}*1 + 3072]",
            "tdpbf16ps tmm1, tmm4, tmm7",
            "tileloadd tmm5, [{pa} + {st}*1 + 1024]",
            "tdpbf16ps tmm2, tmm5, tmm6",
            "tdpbf16ps tmm3, tmm5, tmm7",
            // h(a) * l(b)
            "tileloadd tmm6, [{pb} + {st}*1 + 4096]",
            "tdpbf16ps tmm0, tmm4, tmm6",
            "tdpbf16ps tmm2, tmm5, tmm6",
            "tileloadd tmm7, [{pb} + {st}*1 + 5120]",
            "tdpbf16ps tmm1, tmm4, tmm7",
            "tdpbf16ps tmm3, tmm5, tmm7",
            // m(a) * m(b)
            "tileloadd tmm4, [{pa} + {st}*1 + 2048]",
            "tileloadd tmm6, [{pb} + {st}*1 + 2048]",
            "tdpbf16ps tmm0, tmm4, tmm6",
            "tileloadd tmm7, [{pb} + {st}*1 + 3072]",
            "tdpbf16ps tmm1, tmm4, tmm7",
            "tileloadd tmm5, [{pa} + {st}*1 + 3072]",
            "tdpbf16ps tmm2, tmm5, tmm6",
            "tdpbf16ps tmm3, tmm5, tmm7",
            // m(a) * h(b)
            "tileloadd tmm6, [{pb} + {st}*1]",
            "tdpbf16ps tmm0, tmm4, tmm6",
            "tdpbf16ps tmm2, tmm5, tmm6",
            "tileloadd tmm7, [{pb} + {st}*1 + 1024]",
            "tdpbf16ps tmm1, tmm4, tmm7",
            "tdpbf16ps tmm3, tmm5, tmm7",
            // l(a) * h(b)
            "tileloadd tmm4, [{pa} + {st}*1 + 4096]",
            "tdpbf16ps tmm0, tmm4, tmm6",
            "tdpbf16ps tmm1, tmm4, tmm7",
            "tileloadd tmm5, [{pa} + {st}*1 + 5120]",
            "tdpbf16ps tmm2, tmm5, tmm6",
            "tdpbf16ps tmm3, tmm5, tmm7",
            "prefetcht1 [{pf} + 0]",
            "prefetcht1 [{pf} + 64]",
            "prefetcht1 [{pf} + 128]",
            "prefetcht1 [{pf} + 192]",
            "prefetcht1 [{pf} + 256]",
            "prefetcht1 [{pf} + 320]",
            "prefetcht1 [{pf} + 384]",
            "prefetcht1 [{pf} + 448]",
            "prefetcht1 [{pf} + 512]",
            "prefetcht1 [{pf} + 576]",
            "prefetcht1 [{pf} + 640]",
            "prefetcht1 [{pf} + 704]",
            "prefetcht1 [{pf} + 768]",
            "prefetcht1 [{pf} + 832]",
            "prefetcht1 [{pf} + 896]",
            "prefetcht1 [{pf} + 960]",
            "prefetcht1 [{pf} + 1024]",
            "prefetcht1 [{pf} + 1088]",
            "prefetcht1 [{pf} + 1152]",
            "prefetcht1 [{pf} + 1216]",
            "prefetcht1 [{pf} + 1280]",
            "prefetcht1 [{pf} + 1344]",
            "prefetcht1 [{pf} + 1408]",
            "prefetcht1 [{pf} + 1472]",
            "add {pf}, 1536",
            "add {pa}, 6144", "add {pb}, 6144",
            "dec {i}", "jnz 3b",
            "tilestored [{corr} + {cst}*1], tmm0",
            "tilestored [{corr} + {cst}*1 + 64], tmm1",
            "tilestored [{corr} + {cst}*1 + 2048], tmm2",
            "tilestored [{corr} + {cst}*1 + 2112], tmm3",
            a = in(reg) a,
            b = in(reg) b,
            n = in(reg) steps,
            st = in(reg) 64usize,
            cst = in(reg) 128usize,
            lead = in(reg) sums.lead.as_mut_ptr(),
            corr = in(reg) sums.corr.as_mut_ptr(),
            i = out(reg) _,
            pa = out(reg) _,
            pb = out(reg) _,
            pf = inout(reg) pf => _,
            options(nostack),
        );
    }
}

#[cfg(test)]
mod tests {
    //! The kernel against a naive `f64` product written here, over strided
    //! operands and destinations, ragged sizes, `alpha` and `beta`, and the
    //! range check. Skipped (with a line saying so) without AMX.

    use super::*;

    /// A seeded generator (xorshift), independent of the crate's.
    struct Rng(u64);

    impl Rng {
        fn uniform(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        }
    }

    /// A `rows x cols` matrix stored with the given strides in a buffer
    /// with gaps (filled with a marker that must never be read or written).
    struct Strided {
        buf: Vec<f32>,
        rs: usize,
        cs: usize,
    }

    const MARK: f32 = 12345.0;

    impl Strided {
        fn new(rows: usize, cols: usize, layout: u8, rng: &mut Rng) -> Self {
            let (rs, cs) = match layout {
                0 => (cols, 1),         // row-major
                1 => (1, rows),         // column-major (a transposed view)
                _ => (2 * cols + 3, 2), // gaps between rows and columns
            };
            let len = if rows * cols == 0 {
                0
            } else {
                (rows - 1) * rs + (cols - 1) * cs + 1
            };
            let mut buf = vec![MARK; len + 5];
            for i in 0..rows {
                for j in 0..cols {
                    buf[i * rs + j * cs] = rng.uniform();
                }
            }
            Self { buf, rs, cs }
        }

        fn at(&self, i: usize, j: usize) -> f32 {
            self.buf[i * self.rs + j * self.cs]
        }
    }

    fn check(
        m: usize,
        n: usize,
        k: usize,
        layouts: [u8; 3],
        alpha: f32,
        beta: Option<f32>,
        parallel: bool,
    ) {
        let mut rng = Rng(0x9E37_79B9 ^ (m * 131 + n * 17 + k) as u64);
        let a = Strided::new(m, k, layouts[0], &mut rng);
        let b = Strided::new(k, n, layouts[1], &mut rng);
        let mut c = Strided::new(m, n, layouts[2], &mut rng);
        let c0 = c.buf.clone();
        // SAFETY: the views address the matrices' elements inside their
        // buffers; the destination's are distinct and initialised.
        let ran = unsafe {
            product(
                (m, n, k),
                Mat {
                    ptr: c.buf.as_mut_ptr(),
                    rs: c.rs,
                    cs: c.cs,
                },
                Mat {
                    ptr: a.buf.as_ptr(),
                    rs: a.rs,
                    cs: a.cs,
                },
                Mat {
                    ptr: b.buf.as_ptr(),
                    rs: b.rs,
                    cs: b.cs,
                },
                alpha,
                beta,
                parallel,
            )
        };
        assert!(ran, "values in range must run on AMX");
        for i in 0..m {
            for j in 0..n {
                let (mut exact, mut scale) = (0f64, 0f64);
                for t in 0..k {
                    let p = a.at(i, t) as f64 * b.at(t, j) as f64;
                    exact += p;
                    scale += p.abs();
                }
                let old = c0[i * c.rs + j * c.cs] as f64;
                let want = alpha as f64 * exact + beta.map_or(0.0, |b| b as f64 * old);
                let bound = 4.0
                    * f32::EPSILON as f64
                    * ((k as f64).sqrt() * (alpha as f64).abs() * scale + (want.abs()) + 1e-30);
                let got = c.at(i, j) as f64;
                assert!(
                    (got - want).abs() <= bound,
                    "({m}, {n}, {k}) {layouts:?}: c[{i}][{j}] = {got}, want {want} (bound {bound})"
                );
            }
        }
        // Nothing outside the destination's elements was written.
        let mut inside = vec![false; c.buf.len()];
        for i in 0..m {
            for j in 0..n {
                inside[i * c.rs + j * c.cs] = true;
            }
        }
        for (idx, (&x, &was)) in c.buf.iter().zip(&c0).enumerate() {
            if !inside[idx] {
                assert_eq!(
                    x.to_bits(),
                    was.to_bits(),
                    "wrote outside the destination at {idx}"
                );
            }
        }
    }

    fn skip() -> bool {
        if !usable() {
            println!("skipped: this machine has no AMX (or the OS did not grant it)");
            return true;
        }
        false
    }

    #[test]
    fn ragged_sizes_against_a_naive_product() {
        if skip() {
            return;
        }
        for &(m, n, k) in &[
            (1, 1, 1),
            (5, 70, 3),
            (33, 47, 65),
            (64, 64, 64),
            (100, 37, 1030),
            (31, 129, 2 * KC + 17),
            (160, 200, 96),
        ] {
            check(m, n, k, [0, 0, 0], 1.0, None, false);
            check(m, n, k, [0, 0, 0], 1.0, None, true);
        }
    }

    #[test]
    fn strided_operands_and_destinations() {
        if skip() {
            return;
        }
        for la in 0..3 {
            for lb in 0..3 {
                for lc in 0..3 {
                    check(45, 70, 90, [la, lb, lc], 1.0, None, true);
                }
            }
        }
    }

    #[test]
    fn alpha_and_beta() {
        if skip() {
            return;
        }
        check(70, 90, 1100, [0, 0, 0], 2.5, Some(0.5), true);
        check(70, 90, 50, [0, 1, 2], -1.5, Some(1.0), false);
        check(40, 40, 40, [2, 0, 1], 1.0, Some(-2.0), true);
    }

    #[test]
    fn values_out_of_range_leave_the_destination_untouched() {
        if skip() {
            return;
        }
        for bad in [f32::NAN, f32::INFINITY, 1e-30, -1e30, HI * 2.0, LO / 2.0] {
            let (m, n, k) = (40, 50, 60);
            let mut a = vec![0.5f32; m * k];
            let b = vec![0.25f32; k * n];
            a[7 * k + 11] = bad;
            let mut c = vec![MARK; m * n];
            // SAFETY: row-major views of the buffers' exact sizes.
            let ran = unsafe {
                product(
                    (m, n, k),
                    Mat {
                        ptr: c.as_mut_ptr(),
                        rs: n,
                        cs: 1,
                    },
                    Mat {
                        ptr: a.as_ptr(),
                        rs: k,
                        cs: 1,
                    },
                    Mat {
                        ptr: b.as_ptr(),
                        rs: n,
                        cs: 1,
                    },
                    1.0,
                    None,
                    true,
                )
            };
            assert!(!ran, "{bad} must send the product elsewhere");
            assert!(
                c.iter().all(|&x| x == MARK),
                "{bad}: the destination was written"
            );
        }
    }

    #[test]
    fn the_split_is_exact() {
        if skip() {
            return;
        }
        let mut rng = Rng(7);
        for round in 0..2_000 {
            let x: [f32; 32] = core::array::from_fn(|i| {
                // Magnitudes across the range: (1 + u) 2^e, e in [-39, 38].
                let e = (rng.uniform() * 39.0) as i32;
                let v = (1.0 + rng.uniform().abs()) * rng.uniform().signum() * 2f32.powi(e);
                if (round + i) % 7 == 0 { 0.0 } else { v }
            });
            // SAFETY: AVX-512 with BF16 is present (`usable`); the arrays
            // hold 16 `f32` each side.
            let (parts, ok) = unsafe {
                split32(
                    _mm512_loadu_ps(x.as_ptr()),
                    _mm512_loadu_ps(x.as_ptr().add(16)),
                )
            };
            assert!(ok, "{x:?}");
            let parts: Vec<[u16; 32]> = parts
                .iter()
                .map(|p| unsafe { core::mem::transmute::<__m512i, [u16; 32]>(*p) })
                .collect();
            for (i, &v) in x.iter().enumerate() {
                let f = |p: usize| f32::from_bits((parts[p][i] as u32) << 16) as f64;
                assert_eq!(f(0) + f(1) + f(2), v as f64, "{v}");
            }
        }
    }

    #[test]
    fn the_range_check_flags_each_lane() {
        if skip() {
            return;
        }
        for bad in [
            f32::NAN,
            f32::INFINITY,
            -f32::INFINITY,
            1e-30,
            -1e30,
            HI * 2.0,
            LO / 2.0,
        ] {
            for lane in [0, 15, 16, 31] {
                let mut x = [0.5f32; 32];
                x[lane] = bad;
                // SAFETY: as above.
                let (_, ok) = unsafe {
                    split32(
                        _mm512_loadu_ps(x.as_ptr()),
                        _mm512_loadu_ps(x.as_ptr().add(16)),
                    )
                };
                assert!(!ok, "{bad} in lane {lane}");
            }
        }
        // The range's ends and zeros are in.
        let mut x = [0.5f32; 32];
        x[..4].copy_from_slice(&[0.0, -0.0, LO, -HI]);
        // SAFETY: as above.
        let (_, ok) = unsafe {
            split32(
                _mm512_loadu_ps(x.as_ptr()),
                _mm512_loadu_ps(x.as_ptr().add(16)),
            )
        };
        assert!(ok);
    }
}
