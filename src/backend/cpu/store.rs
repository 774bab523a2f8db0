//! The inner loops of the elementwise kernels over contiguous runs
//! (`zip1`/`zip2`/`zip3`), and [`Tile`], which repeats a short broadcast
//! row so that those loops run over many rows at once.
//!
//! Short runs (under [`SHORT`] elements) go in chunks of 8 elements, which
//! the compiler turns into a few vector instructions even when a run is only
//! 8 or 16 elements long (a broadcast row of a small tensor), where the loop
//! vectoriser's wider unrolled body would never be entered. Long runs use
//! the plain loop, whose unrolled vector body is faster there (measured:
//! chunks of 8 on long runs cost up to 30% on the large broadcast cases).
//!
//! Large existing outputs (`out=` forms; `elementwise::Out` says which) are
//! written with streaming (non-temporal) stores ([`stream_out`]): a plain
//! store to a line that is not cached first reads
//! it (write-allocate), a streaming store does not, and it does not evict
//! the cache for data that will not fit anyway. Measured on the project
//! machine (2 threads, AVX-512, a KVM guest that reports a 480 MiB L3):
//! writing 256 MiB took 13.6 ms with plain 512-bit stores and 5.4 ms with
//! streaming ones (5.7 ms with 128-bit streaming stores, which every x86-64
//! CPU has and which are used here); 128 MiB 4.7 against 2.8 ms; at 64 MiB
//! and below plain stores were 15% faster, the output staying in cache
//! between calls. The crossover was near 96 MiB, far below the L3 the
//! guest reports, so the threshold is the smaller of the two (see
//! [`streams`]). (On the Cascade Lake guest of an earlier session streaming
//! stores were 15% slower at 256 MiB: it is the machine's memory system
//! that decides.) Fresh outputs are not streamed: see `elementwise::Out`.

use core::mem::MaybeUninit;

/// Elements per chunk of the `zip*` loops on short runs.
const LANES: usize = 8;

/// Runs shorter than this take the chunked loop.
pub(crate) const SHORT: usize = 64;

/// A one-operand loop body: the function of one element, and its loop over
/// a contiguous run, by default [`zip1`] of the function. A closure is one
/// ([`Kernel1::run`] then its plain loop); [`WithRun`] pairs a function with
/// a loop of its own (the `f32` sine's fast path over runs with a fallback
/// for large arguments, `trig_runs.rs`).
pub(crate) trait Kernel1<A: Copy, O>: Sync {
    /// The function of one element.
    fn one(&self, a: A) -> O;
    /// `o[i] = self.one(a[i])` for every `i < o.len()`; `a` is at least as
    /// long as `o`.
    #[inline(always)]
    fn run(&self, o: &mut [MaybeUninit<O>], a: &[A]) {
        zip1(o, a, &|x| self.one(x))
    }
}

impl<A: Copy, O, F: Fn(A) -> O + Sync> Kernel1<A, O> for F {
    #[inline(always)]
    fn one(&self, a: A) -> O {
        self(a)
    }
}

/// A function `f` of one element with its own loop `run` over contiguous
/// runs (both `#[inline(always)]`, so that they take the vectors of the
/// loop that calls them).
#[derive(Clone, Copy)]
pub(crate) struct WithRun<F, R> {
    pub(crate) f: F,
    pub(crate) run: R,
}

impl<A: Copy, O, F, R> Kernel1<A, O> for WithRun<F, R>
where
    F: Fn(A) -> O + Sync,
    R: Fn(&mut [MaybeUninit<O>], &[A]) + Sync,
{
    #[inline(always)]
    fn one(&self, a: A) -> O {
        (self.f)(a)
    }
    #[inline(always)]
    fn run(&self, o: &mut [MaybeUninit<O>], a: &[A]) {
        (self.run)(o, a)
    }
}

/// A one-operand loop body that can also run in place: by default
/// `o[i] = one(o[i])`; a [`WithRun`] on `f32` copies each chunk aside and
/// runs its own loop from the copy.
pub(crate) trait Kernel1InPlace<O: Copy>: Kernel1<O, O> {
    /// `o[i] = self.one(o[i])` for every `i`.
    #[inline(always)]
    fn update(&self, o: &mut [O]) {
        for o in o {
            *o = self.one(*o);
        }
    }
}

impl<O: Copy, F: Fn(O) -> O + Sync> Kernel1InPlace<O> for F {}

impl<F, R> Kernel1InPlace<f32> for WithRun<F, R>
where
    F: Fn(f32) -> f32 + Sync,
    R: Fn(&mut [MaybeUninit<f32>], &[f32]) + Sync,
{
    #[inline(always)]
    fn update(&self, o: &mut [f32]) {
        const CHUNK: usize = 256;
        let mut copy = [0.0f32; CHUNK];
        for o in o.chunks_mut(CHUNK) {
            let copy = &mut copy[..o.len()];
            copy.copy_from_slice(o);
            // SAFETY: `MaybeUninit<f32>` has `f32`'s layout, and the run
            // writes only initialised `f32`s, so `o` stays initialised.
            let o = unsafe { &mut *(o as *mut [f32] as *mut [MaybeUninit<f32>]) };
            (self.run)(o, copy);
        }
    }
}

/// `o[i] = f(a[i])` for every `i < o.len()`; `a` is at least as long as `o`.
#[inline(always)]
pub(crate) fn zip1<A: Copy, O>(o: &mut [MaybeUninit<O>], a: &[A], f: &impl Fn(A) -> O) {
    let a = &a[..o.len()];
    if o.len() >= SHORT {
        for (o, &x) in o.iter_mut().zip(a) {
            o.write(f(x));
        }
        return;
    }
    let mut oc = o.chunks_exact_mut(LANES);
    let mut ac = a.chunks_exact(LANES);
    for (o, a) in (&mut oc).zip(&mut ac) {
        for k in 0..LANES {
            o[k].write(f(a[k]));
        }
    }
    for (o, &x) in oc.into_remainder().iter_mut().zip(ac.remainder()) {
        o.write(f(x));
    }
}

/// `o[i] = f(a[i], b[i])` for every `i < o.len()`; `a` and `b` are at least
/// as long as `o`.
#[inline(always)]
pub(crate) fn zip2<A: Copy, B: Copy, O>(
    o: &mut [MaybeUninit<O>],
    a: &[A],
    b: &[B],
    f: &impl Fn(A, B) -> O,
) {
    let n = o.len();
    let (a, b) = (&a[..n], &b[..n]);
    if n >= SHORT {
        for ((o, &x), &y) in o.iter_mut().zip(a).zip(b) {
            o.write(f(x, y));
        }
        return;
    }
    let mut oc = o.chunks_exact_mut(LANES);
    let mut ac = a.chunks_exact(LANES);
    let mut bc = b.chunks_exact(LANES);
    for ((o, a), b) in (&mut oc).zip(&mut ac).zip(&mut bc) {
        for k in 0..LANES {
            o[k].write(f(a[k], b[k]));
        }
    }
    let rest = oc.into_remainder().iter_mut().zip(ac.remainder());
    for ((o, &x), &y) in rest.zip(bc.remainder()) {
        o.write(f(x, y));
    }
}

/// `o[i] = f(a[i], b[i], c[i])` for every `i < o.len()`.
#[inline(always)]
pub(crate) fn zip3<A: Copy, B: Copy, C: Copy, O>(
    o: &mut [MaybeUninit<O>],
    a: &[A],
    b: &[B],
    c: &[C],
    f: &impl Fn(A, B, C) -> O,
) {
    let n = o.len();
    let (a, b, c) = (&a[..n], &b[..n], &c[..n]);
    if n >= SHORT {
        for (((o, &x), &y), &z) in o.iter_mut().zip(a).zip(b).zip(c) {
            o.write(f(x, y, z));
        }
        return;
    }
    let mut oc = o.chunks_exact_mut(LANES);
    let mut ac = a.chunks_exact(LANES);
    let mut bc = b.chunks_exact(LANES);
    let mut cc = c.chunks_exact(LANES);
    for (((o, a), b), c) in (&mut oc).zip(&mut ac).zip(&mut bc).zip(&mut cc) {
        for k in 0..LANES {
            o[k].write(f(a[k], b[k], c[k]));
        }
    }
    let rest = oc.into_remainder().iter_mut().zip(ac.remainder());
    for (((o, &x), &y), &z) in rest.zip(bc.remainder()).zip(cc.remainder()) {
        o.write(f(x, y, z));
    }
}

/// A 64-byte-aligned block of bytes on the stack.
#[repr(C, align(64))]
struct Block<const N: usize>([MaybeUninit<u8>; N]);

/// Outputs of at least this many bytes may be streamed, whatever the L3.
const STREAM_CAP: usize = 96 << 20;

/// Whether an output of `bytes` is written with streaming stores: when it
/// is at least as large as the last-level cache, or [`STREAM_CAP`] where
/// that is smaller (a virtual machine's share of a large L3 can be far
/// smaller than the L3 it reports). The cache size is read once.
pub(crate) fn streams(bytes: usize) -> bool {
    use std::sync::OnceLock;
    static THRESHOLD: OnceLock<usize> = OnceLock::new();
    cfg!(target_arch = "x86_64")
        && bytes
            >= *THRESHOLD.get_or_init(|| l3_bytes().map_or(STREAM_CAP, |l3| l3.min(STREAM_CAP)))
}

/// The size of the L3 cache of CPU 0, from Linux's sysfs.
fn l3_bytes() -> Option<usize> {
    (0..8).find_map(|i| {
        let dir = format!("/sys/devices/system/cpu/cpu0/cache/index{i}");
        let read = |f: &str| std::fs::read_to_string(format!("{dir}/{f}")).ok();
        if read("level")?.trim() != "3" {
            return None;
        }
        parse_cache_size(read("size")?.trim())
    })
}

/// `"491520K"`, `"32M"` or `"1024"` in bytes.
fn parse_cache_size(s: &str) -> Option<usize> {
    let (digits, unit) = match s.as_bytes().last()? {
        b'K' => (&s[..s.len() - 1], 1 << 10),
        b'M' => (&s[..s.len() - 1], 1 << 20),
        b'G' => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    digits.parse::<usize>().ok()?.checked_mul(unit)
}

/// Orders this thread's earlier streaming stores before its later stores
/// (a release that another thread acquires then sees them).
#[inline]
pub(crate) fn store_fence() {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: a fence has no preconditions (SSE, baseline on x86-64).
    unsafe {
        core::arch::x86_64::_mm_sfence()
    };
}

/// Bytes of the bounce buffer [`stream_out`] fills before streaming it out.
/// The loads of a run and its streaming stores overlap best when the two
/// alternate finely: on an AMD EPYC (Zen 3, 2 vCPUs) `a + b` into an
/// existing 4096x4096 `f32` took 4.8-4.9 ms with 4096 bytes, 4.4-4.5 with
/// 2048, 4.2 with 1024 and 4.0-4.2 with 512 or 256 (interleaved calls,
/// medians; `benches/README.md`). A burst of 4 KiB of streaming stores
/// fills the write-combining buffers, and the core stalls on them instead
/// of loading the next inputs. 512 bytes is one fused chunk of `f32`.
const BOUNCE_BYTES: usize = 512;

/// Writes every element of `o` through `fill`, with streaming stores for
/// its 16-byte-aligned middle. `fill(chunk, start)` must write all of
/// `chunk`, which stands for `o[start..start + chunk.len()]`: `o`'s own
/// elements at the ends, elsewhere a bounce buffer in the L1 cache that is
/// then copied to `o` with streaming stores. Streaming stores are weakly
/// ordered: the thread must run [`store_fence`] before another thread may
/// read `o` (once per parallel range, not per call: a fence waits for the
/// stores to drain).
#[inline(always)]
pub(crate) fn stream_out<O>(
    o: &mut [MaybeUninit<O>],
    mut fill: impl FnMut(&mut [MaybeUninit<O>], usize),
) {
    #[cfg(target_arch = "x86_64")]
    {
        let per = BOUNCE_BYTES / size_of::<O>().max(1);
        let Some((head, body)) = stream_span::<O>(o.as_ptr() as usize, o.len(), per) else {
            return fill(o, 0);
        };
        fill(&mut o[..head], 0);
        let mut bounce = Block::<BOUNCE_BYTES>([MaybeUninit::uninit(); BOUNCE_BYTES]);
        let buf = bounce.0.as_mut_ptr() as *mut MaybeUninit<O>;
        let mut i = head;
        while i < head + body {
            // SAFETY: the bounce buffer holds `per` elements of `O` (its
            // alignment, 64, is a multiple of `size`, which divides 16).
            let chunk = unsafe { core::slice::from_raw_parts_mut(buf, per) };
            fill(chunk, i);
            // SAFETY: `fill` wrote all `BOUNCE_BYTES` of the buffer (64-byte
            // aligned); `o[i..i + per]` is in bounds (`i + per <= head +
            // body <= o.len()`) and 16-byte aligned (`o[head]` is, and
            // `BOUNCE_BYTES` is a multiple of 16).
            unsafe {
                stream_copy(
                    o.as_mut_ptr().add(i) as *mut u8,
                    buf as *const u8,
                    BOUNCE_BYTES,
                )
            };
            i += per;
        }
        fill(&mut o[head + body..], head + body);
    }
    #[cfg(not(target_arch = "x86_64"))]
    fill(o, 0)
}

/// Where a run of `len` elements of `O` from address `addr` takes
/// streaming stores, in pieces of `unit` elements: `(head, body)`, the
/// elements before the first 16-byte aligned one, then the whole pieces
/// from there (`head + body <= len`; the rest takes plain stores). `None`
/// where no element is 16-byte aligned in that way (an element size that
/// does not divide 16, or a misaligned run). The eager kernels' bounce
/// buffers and the fused blocks cut their runs so.
pub(crate) fn stream_span<O>(addr: usize, len: usize, unit: usize) -> Option<(usize, usize)> {
    let size = size_of::<O>();
    if size == 0 || 16 % size != 0 || !addr.is_multiple_of(size) || unit == 0 {
        return None;
    }
    let head = ((addr.next_multiple_of(16) - addr) / size).min(len);
    Some((head, (len - head) / unit * unit))
}

/// Asks for the cache lines of `start..start + bytes` into every cache
/// level (`_MM_HINT_T0`), one request per 64 bytes. A prefetch is a hint:
/// it reads nothing a program can observe and never faults, so any
/// address will do, past a buffer's end included (x86-64's SSE, which
/// every such CPU has; nothing elsewhere, or under Miri).
#[inline(always)]
pub(crate) fn prefetch_lines(start: *const u8, bytes: usize) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    for o in (0..bytes).step_by(64) {
        // SAFETY: a prefetch reads nothing architecturally and never
        // faults, whatever the address.
        unsafe {
            core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
                start.wrapping_add(o) as *const i8,
            )
        };
    }
    #[cfg(any(not(target_arch = "x86_64"), miri))]
    let _ = (start, bytes);
}

/// Copies `bytes` bytes from `src` to `dst` with streaming stores (SSE2,
/// which every x86-64 CPU has; plain stores elsewhere).
///
/// # Safety
/// `src` and `dst` are 16-byte aligned, `bytes` is a multiple of 16,
/// `src..src + bytes` is initialised and readable, `dst..dst + bytes`
/// writable, and the two do not overlap. The thread runs [`store_fence`]
/// before another thread reads `dst`.
#[inline(always)]
pub(crate) unsafe fn stream_copy(dst: *mut u8, src: *const u8, bytes: usize) {
    // (Miri runs the plain copy: it has no streaming stores.)
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        use core::arch::x86_64::{__m128i, _mm_load_si128, _mm_stream_si128};
        let (dst, src) = (dst as *mut __m128i, src as *const __m128i);
        for j in 0..bytes / 16 {
            // SAFETY: the caller's contract: both addresses are 16-byte
            // aligned and `j * 16 + 16 <= bytes` lies in both ranges.
            unsafe { _mm_stream_si128(dst.add(j), _mm_load_si128(src.add(j))) };
        }
    }
    #[cfg(any(not(target_arch = "x86_64"), miri))]
    // SAFETY: the caller's contract.
    unsafe {
        core::ptr::copy_nonoverlapping(src, dst, bytes)
    };
}

/// Bytes of a [`Tile`].
const TILE_BYTES: usize = 512;

/// A short broadcast row repeated end to end, so that an inner loop over a
/// `(rows, 8)` result runs over many rows at once instead of paying a loop's
/// set-up per 8 elements.
pub(crate) struct Tile(Block<TILE_BYTES>);

impl Tile {
    /// An empty tile.
    pub(crate) fn new() -> Self {
        Tile(Block([MaybeUninit::uninit(); TILE_BYTES]))
    }

    /// Whether a row of `row_len` elements of `T`, used by `rows` rows, is
    /// worth tiling (at least two copies fit and are used).
    pub(crate) fn fits<T>(row_len: usize, rows: usize) -> bool {
        rows > 1 && row_len > 0 && 2 * row_len * size_of::<T>() <= TILE_BYTES
    }

    /// Fills the tile with copies of `row` (as many whole copies as fit, at
    /// most `rows`) and returns the tile's elements: a row whose length is a
    /// multiple of `row_len`, so that element `i` of it is `row[i % row_len]`.
    ///
    /// # Safety
    /// `row` points to `row_len` readable elements, and `Tile::fits::<T>(row_len, rows)`.
    pub(crate) unsafe fn repeat<T: Copy>(
        &mut self,
        row: *const T,
        row_len: usize,
        rows: usize,
    ) -> &[T] {
        let copies = (TILE_BYTES / size_of::<T>() / row_len).min(rows);
        let n = copies * row_len;
        let buf = self.0.0.as_mut_ptr() as *mut T;
        // SAFETY: `n` elements fit in the tile by the choice of `copies`;
        // the tile is aligned to 64 bytes, which covers `T`; `row` has
        // `row_len` readable elements (the caller's contract). The tile is
        // filled by doubling: each copy reads the `have` elements already
        // written and writes the next ones, which do not overlap them.
        unsafe {
            core::ptr::copy_nonoverlapping(row, buf, row_len);
            let mut have = row_len;
            while have < n {
                let more = have.min(n - have);
                core::ptr::copy_nonoverlapping(buf, buf.add(have), more);
                have += more;
            }
            core::slice::from_raw_parts(buf, copies * row_len)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The split of a run against a count by hand: the head reaches the
    /// next 16-byte boundary, the body is whole pieces, and runs that
    /// cannot be aligned stream nothing.
    #[test]
    fn stream_spans_start_at_the_first_aligned_element() {
        // `f32` from 4 bytes past a boundary: 3 elements to the next one.
        assert_eq!(stream_span::<f32>(0x1004, 1000, 128), Some((3, 896)));
        assert_eq!(stream_span::<f32>(0x1000, 1000, 128), Some((0, 896)));
        // Shorter than the head, or than a piece.
        assert_eq!(stream_span::<f32>(0x1004, 2, 128), Some((2, 0)));
        assert_eq!(stream_span::<f32>(0x1004, 130, 128), Some((3, 0)));
        assert_eq!(stream_span::<u8>(0x100f, 300, 256), Some((1, 256)));
        assert_eq!(stream_span::<f64>(0x1008, 17, 8), Some((1, 16)));
        // A misaligned `f32` run, an element of 12 bytes, a zero-size one.
        assert_eq!(stream_span::<f32>(0x1002, 1000, 128), None);
        assert_eq!(stream_span::<[u32; 3]>(0x1000, 1000, 128), None);
        assert_eq!(stream_span::<()>(0x1000, 1000, 128), None);
    }

    #[test]
    fn tiles_repeat_the_row() {
        let row = [1u8, 2, 3];
        assert!(Tile::fits::<u8>(3, 2) && !Tile::fits::<u8>(3, 1) && !Tile::fits::<f64>(40, 9));
        let mut tile = Tile::new();
        // SAFETY: `row` has 3 elements; `fits` holds.
        let t = unsafe { tile.repeat(row.as_ptr(), 3, 1000) };
        assert_eq!(t.len(), 510);
        assert!(t.iter().enumerate().all(|(i, &x)| x == row[i % 3]));
        // SAFETY: as above.
        let t = unsafe { tile.repeat(row.as_ptr(), 3, 4) };
        assert_eq!(t, &[1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3]);
    }

    #[test]
    fn cache_sizes_parse() {
        assert_eq!(parse_cache_size("491520K"), Some(480 << 20));
        assert_eq!(parse_cache_size("32M"), Some(32 << 20));
        assert_eq!(parse_cache_size("1024"), Some(1024));
        assert_eq!(parse_cache_size("K"), None);
        assert_eq!(parse_cache_size(""), None);
    }

    #[test]
    fn streamed_outputs_are_complete_at_every_alignment() {
        // Lengths around the bounce buffer's, starting at every offset
        // within a 16-byte line, for 1-, 4- and 8-byte elements.
        fn check<T: Copy + PartialEq + core::fmt::Debug>(val: impl Fn(usize) -> T) {
            let per = BOUNCE_BYTES / size_of::<T>();
            for len in [0, 1, 5, per - 1, per, per + 3, 3 * per + 7] {
                for skip in 0..16 / size_of::<T>() {
                    let mut o = vec![MaybeUninit::<T>::uninit(); len + skip];
                    let a: Vec<T> = (0..len).map(&val).collect();
                    stream_out(&mut o[skip..], |c, s| zip1(c, &a[s..], &|x| x));
                    store_fence();
                    for (i, x) in o[skip..].iter().enumerate() {
                        // SAFETY: `stream_out` wrote every element.
                        assert_eq!(unsafe { x.assume_init() }, val(i), "len {len} skip {skip}");
                    }
                }
            }
        }
        check(|i| i as u8);
        check(|i| i as f32 * 0.5);
        check(|i| i as i64 - 7);
    }

    #[test]
    fn zips_handle_remainders() {
        for n in (0..20).chain([63, 64, 65, 200]) {
            let a: Vec<f64> = (0..n).map(|i| i as f64).collect();
            let b: Vec<f64> = (0..n).map(|i| 2.0 * i as f64).collect();
            let mut o = vec![MaybeUninit::<f64>::uninit(); n];
            zip3(&mut o, &a, &b, &a, &|x, y, z| x + y * z);
            for (i, o) in o.iter().enumerate() {
                // SAFETY: `zip3` wrote every element.
                let got = unsafe { o.assume_init() };
                assert_eq!(got, i as f64 + 2.0 * (i * i) as f64);
            }
        }
    }
}
