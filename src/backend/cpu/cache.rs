//! The caching CPU allocator: buffers of freed tensors kept for the next
//! tensor of the same size class, as PyTorch's CUDA caching allocator does
//! on the GPU.
//!
//! A training step makes the same temporaries every step. Without a cache
//! each one is a fresh allocation that the C allocator serves from pages the
//! kernel has to fault in and clear (glibc gives the top of its heap back to
//! the OS once more than 128 KiB of it is free, and serves large requests
//! with `mmap`); `perf` on `bench_train_step` showed 43% of the step in the
//! kernel (`clear_page`, page faults, `brk`) on AMD EPYC Zen 3 and 44% on
//! Zen 4. With the cache the second step reuses the first step's buffers,
//! already mapped and usually still in cache.
//!
//! - Buffers under [`MIN_BYTES`] are left to the C allocator, whose
//!   per-thread bins already reuse them.
//! - Larger requests are rounded up to a size class: four classes per power
//!   of two (so at most 25% is reserved beyond the request, and pages past
//!   the elements written are never touched). A buffer comes back to the
//!   cache when its storage is dropped, if its capacity is a class.
//! - The cache holds at most [`limit`] bytes (1 GiB unless
//!   `SHAPED_CPU_CACHE_BYTES` or [`set_limit`] says otherwise; 0 turns the
//!   cache off); a buffer that would pass it is freed instead.
//!   [`empty`] frees everything held, as `torch.cuda.empty_cache()`.
//!
//! Memory is keyed by its byte count and alignment, which is the layout the
//! global allocator was given: a buffer freed as `Vec<f32>` may come back as
//! a `Vec<i32>` (same layout), and is given back to the global allocator
//! with the layout it was allocated with.

use core::ptr::NonNull;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};

use parking_lot::Mutex;

/// Buffers smaller than this are not cached.
pub(crate) const MIN_BYTES: usize = 32 << 10;

/// The default limit on the bytes held.
const DEFAULT_LIMIT: usize = 1 << 30;

/// A limit not yet read from the environment.
const UNSET: usize = usize::MAX;

static LIMIT: AtomicUsize = AtomicUsize::new(UNSET);

/// Freed buffers by (bytes, alignment), and their total.
struct Cache {
    free: HashMap<(usize, usize), Vec<Block>>,
    bytes: usize,
}

/// A buffer of the global allocator held by the cache: it has no owner
/// while held, so it may move between threads.
struct Block(NonNull<u8>);

// SAFETY: a held block is plain memory that no one references; whichever
// thread takes it owns it from then on.
unsafe impl Send for Block {}

static CACHE: Mutex<Option<Cache>> = Mutex::new(None);

impl Cache {
    /// Nothing held.
    fn new() -> Self {
        Cache {
            free: HashMap::new(),
            bytes: 0,
        }
    }
}

/// The size class of a request of `bytes` bytes (at least [`MIN_BYTES`]):
/// `bytes` rounded up to a multiple of a quarter of its power of two.
pub(crate) fn class(bytes: usize) -> Option<usize> {
    let top = usize::BITS - 1 - bytes.leading_zeros();
    let step = (1usize << top) / 4;
    bytes.div_ceil(step).checked_mul(step)
}

/// The most bytes the cache holds: [`set_limit`]'s value, else
/// `SHAPED_CPU_CACHE_BYTES`, else 1 GiB.
pub fn limit() -> usize {
    match LIMIT.load(Ordering::Relaxed) {
        UNSET => {
            let n = std::env::var("SHAPED_CPU_CACHE_BYTES")
                .ok()
                .and_then(|s| s.trim().parse().ok())
                .unwrap_or(DEFAULT_LIMIT)
                .min(UNSET - 1);
            // A concurrent `set_limit` wins.
            let _ = LIMIT.compare_exchange(UNSET, n, Ordering::Relaxed, Ordering::Relaxed);
            LIMIT.load(Ordering::Relaxed)
        }
        n => n,
    }
}

/// Sets the most bytes the cache holds, freeing buffers past it.
pub fn set_limit(bytes: usize) {
    LIMIT.store(bytes.min(UNSET - 1), Ordering::Relaxed);
    let mut cache = CACHE.lock();
    if let Some(c) = cache.as_mut() {
        while c.bytes > bytes {
            let Some((&key, _)) = c.free.iter().find(|(_, v)| !v.is_empty()) else {
                break;
            };
            let block = c.free.get_mut(&key).and_then(Vec::pop).expect("non-empty");
            c.bytes -= key.0;
            release(block, key);
        }
    }
}

/// The bytes the cache holds now.
pub fn held() -> usize {
    CACHE.lock().as_ref().map_or(0, |c| c.bytes)
}

/// Frees every buffer the cache holds.
pub fn empty() {
    let taken = CACHE.lock().take();
    if let Some(c) = taken {
        for (key, blocks) in c.free {
            for block in blocks {
                release(block, key);
            }
        }
    }
}

/// Gives a held block back to the global allocator.
fn release(block: Block, (bytes, align): (usize, usize)) {
    // SAFETY: the block was allocated by the global allocator with exactly
    // this layout (the key it was filed under is the layout of the `Vec`
    // it came from), and the cache no longer holds it.
    unsafe {
        let layout = std::alloc::Layout::from_size_align_unchecked(bytes, align);
        std::alloc::dealloc(block.0.as_ptr(), layout);
    }
}

/// An empty `Vec<T>` with room for at least `len` elements, from the cache
/// when it holds a buffer of the class, else newly allocated with the
/// class's capacity (then `true` comes with it: fresh pages); `None` when the request is not cached (too small, or
/// `T` has drop glue or no size), and the caller allocates as usual.
#[inline(never)]
pub(crate) fn take<T>(len: usize) -> Option<(Vec<T>, bool)> {
    let size = core::mem::size_of::<T>();
    if core::mem::needs_drop::<T>() || size == 0 {
        return None;
    }
    let bytes = len.checked_mul(size)?;
    if bytes < MIN_BYTES || limit() == 0 {
        return None;
    }
    let class = class(bytes)?;
    if class > isize::MAX as usize || class % size != 0 {
        return None;
    }
    let cap = class / size;
    let key = (class, core::mem::align_of::<T>());
    let block = {
        let mut cache = CACHE.lock();
        // Made here as well as in `give`: a buffer allocated before the
        // cache exists must already have a class's capacity, or it is never
        // taken back (and every later buffer of its size is fresh pages).
        let c = cache.get_or_insert_with(Cache::new);
        let block = c.free.get_mut(&key).and_then(Vec::pop);
        if block.is_some() {
            c.bytes -= class;
        }
        block
    };
    match block {
        // SAFETY: the block was allocated by the global allocator with the
        // layout `key` = (cap * size_of::<T>(), align_of::<T>()), which is
        // the layout of a `Vec<T>` of capacity `cap`; length 0 claims no
        // initialised element.
        Some(b) => Some((
            unsafe { Vec::from_raw_parts(b.0.as_ptr().cast::<T>(), 0, cap) },
            false,
        )),
        None => {
            let mut v = Vec::new();
            v.try_reserve_exact(cap).ok()?;
            // `try_reserve_exact` may give more: only an exact class can be
            // filed when it comes back.
            (v.capacity() == cap).then_some((v, true))
        }
    }
}

/// Takes `v`'s buffer into the cache when its capacity is a size class and
/// the cache has room; otherwise frees it. Its elements are not dropped
/// (only types without drop glue are cached).
#[inline(never)]
pub(crate) fn give<T>(mut v: Vec<T>) {
    let size = core::mem::size_of::<T>();
    if core::mem::needs_drop::<T>() || size == 0 {
        return;
    }
    let bytes = v.capacity() * size;
    if bytes < MIN_BYTES || class(bytes) != Some(bytes) {
        return;
    }
    let limit = limit();
    let key = (bytes, core::mem::align_of::<T>());
    let mut cache = CACHE.lock();
    let c = cache.get_or_insert_with(Cache::new);
    if c.bytes + bytes > limit {
        // Freed after the lock is given back.
        drop(cache);
        return;
    }
    // SAFETY: `T` has no drop glue, so forgetting the elements is what
    // dropping them would do; the buffer is handed to the cache instead of
    // being freed.
    unsafe { v.set_len(0) };
    let ptr = core::mem::ManuallyDrop::new(v).as_mut_ptr();
    c.free.entry(key).or_default().push(Block(
        NonNull::new(ptr.cast::<u8>()).expect("a Vec with capacity is non-null"),
    ));
    c.bytes += bytes;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classes_round_up_by_at_most_a_quarter() {
        assert_eq!(class(32 << 10), Some(32 << 10));
        assert_eq!(class((32 << 10) + 1), Some(40 << 10));
        assert_eq!(class(100_000), Some(114_688));
        for bytes in [
            MIN_BYTES,
            50_000,
            1 << 20,
            (1 << 20) + 1,
            3 << 29,
            12_345_678,
        ] {
            let c = class(bytes).unwrap();
            assert!(c >= bytes && (c - bytes) * 4 <= bytes, "{bytes} -> {c}");
            assert_eq!(class(c), Some(c), "a class is its own class");
        }
        assert_eq!(class(usize::MAX), None);
    }
}
