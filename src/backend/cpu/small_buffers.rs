//! Small buffers (under [`cache::MIN_BYTES`](super::cache::MIN_BYTES))
//! freed by a thread, kept for that thread's next buffer of the same byte
//! count and alignment: the small-op path's buffer without a call into the
//! C allocator.
//!
//! A loop of small operations frees each result and allocates the next one
//! of the same size. glibc's per-thread bins already reuse such a buffer,
//! but a `malloc` and a `free` cost about 130 instructions together
//! (callgrind, glibc 2.36, the `(8, 8) + (8,)` case of
//! `examples/bench_instructions.rs`); taking a slot here costs about 20.
//!
//! - Each thread keeps at most [`SLOTS`] buffers (so at most
//!   `SLOTS * MIN_BYTES` = 256 KiB), matched by exact byte count and
//!   alignment, the most recently freed first. A buffer past that is freed.
//! - The buffers are ordinary allocations of the global allocator with the
//!   layout of the `Vec` they came from, so a `Vec` handed out (to
//!   `Tensor::into_vec`, say) frees itself as any other.
//! - A thread's buffers are freed when it exits; a buffer dropped after
//!   that (by another thread-local's destructor) is freed at once.

use core::cell::UnsafeCell;

use super::cache::MIN_BYTES;

/// The most buffers one thread keeps.
pub(crate) const SLOTS: usize = 8;

/// One kept buffer: its byte count, alignment and address.
#[derive(Clone, Copy)]
struct Slot {
    bytes: usize,
    align: usize,
    ptr: *mut u8,
}

/// A thread's kept buffers: `slots[..len]`.
struct Bins {
    slots: [Slot; SLOTS],
    len: usize,
}

impl Drop for Bins {
    fn drop(&mut self) {
        for s in &self.slots[..self.len] {
            // SAFETY: each kept slot was allocated by the global allocator
            // with exactly this layout (that of the `Vec` it came from) and
            // is owned by the bins alone.
            unsafe {
                let layout = std::alloc::Layout::from_size_align_unchecked(s.bytes, s.align);
                std::alloc::dealloc(s.ptr, layout);
            }
        }
    }
}

const EMPTY: Slot = Slot {
    bytes: 0,
    align: 0,
    ptr: core::ptr::null_mut(),
};

thread_local! {
    static BINS: UnsafeCell<Bins> = const {
        UnsafeCell::new(Bins { slots: [EMPTY; SLOTS], len: 0 })
    };
}

/// Whether buffers of `bytes` bytes of `T` are kept here.
#[inline(always)]
fn kept<T>(bytes: usize) -> bool {
    !core::mem::needs_drop::<T>() && bytes != 0 && bytes < MIN_BYTES
}

/// An empty `Vec<T>` with room for exactly `len` elements from this
/// thread's kept buffers, `None` when none has the size (or `len * size`
/// overflows, or the thread is exiting): the caller allocates as usual.
#[inline]
pub(crate) fn take<T>(len: usize) -> Option<Vec<T>> {
    let bytes = len.checked_mul(core::mem::size_of::<T>())?;
    if !kept::<T>(bytes) {
        return None;
    }
    let align = core::mem::align_of::<T>();
    BINS.try_with(|b| {
        // SAFETY: the bins are this thread's; no reference to them outlives
        // this closure, and nothing in it reenters `take` or `give`.
        let b = unsafe { &mut *b.get() };
        let i = b.slots[..b.len]
            .iter()
            .rposition(|s| s.bytes == bytes && s.align == align)?;
        let s = b.slots[i];
        b.len -= 1;
        b.slots[i] = b.slots[b.len];
        // SAFETY: the slot was a `Vec` of `bytes` bytes aligned to `align`
        // from the global allocator, which is the layout of a `Vec<T>` of
        // capacity `len` (same byte count and alignment); length 0 claims
        // no initialised element, and the bins no longer hold it.
        Some(unsafe { Vec::from_raw_parts(s.ptr.cast::<T>(), 0, len) })
    })
    .ok()
    .flatten()
}

/// Keeps `v`'s buffer for this thread's next buffer of its size when it is
/// small and a slot is free; otherwise `v` is freed. Its elements are not
/// dropped (only types without drop glue are kept).
#[inline]
pub(crate) fn give<T>(v: Vec<T>) {
    let bytes = v.capacity() * core::mem::size_of::<T>();
    if !kept::<T>(bytes) {
        return;
    }
    let mut v = core::mem::ManuallyDrop::new(v);
    let slot = Slot {
        bytes,
        align: core::mem::align_of::<T>(),
        ptr: v.as_mut_ptr().cast::<u8>(),
    };
    let kept = BINS
        .try_with(|b| {
            // SAFETY: as in `take`.
            let b = unsafe { &mut *b.get() };
            if b.len == SLOTS {
                return false;
            }
            b.slots[b.len] = slot;
            b.len += 1;
            true
        })
        .unwrap_or(false);
    if !kept {
        // Freed as usual (its elements need no drop).
        drop(core::mem::ManuallyDrop::into_inner(v));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_freed_buffer_is_reused_by_the_next_of_its_size() {
        let v: Vec<f32> = Vec::with_capacity(64);
        let p = v.as_ptr();
        give(v);
        // Another size or alignment does not take it.
        assert!(take::<f32>(63).is_none());
        assert!(take::<u8>(256).is_none());
        // The same layout with another element type does.
        let w = take::<i32>(64).expect("kept");
        assert_eq!(
            (w.as_ptr().cast::<f32>(), w.len(), w.capacity()),
            (p, 0, 64)
        );
        assert!(take::<i32>(64).is_none());
    }

    #[test]
    fn at_most_slots_are_kept_and_large_or_empty_buffers_are_not() {
        for _ in 0..SLOTS + 3 {
            give(Vec::<u64>::with_capacity(3));
        }
        let mut got = Vec::new();
        while let Some(v) = take::<u64>(3) {
            got.push(v);
        }
        assert_eq!(got.len(), SLOTS);
        give(Vec::<u8>::with_capacity(MIN_BYTES));
        assert!(take::<u8>(MIN_BYTES).is_none());
        give(Vec::<u8>::new());
        assert!(take::<u8>(0).is_none());
    }

    #[test]
    fn threads_keep_their_own_buffers() {
        give(Vec::<f64>::with_capacity(5));
        std::thread::spawn(|| {
            assert!(take::<f64>(5).is_none());
            // Freed when the thread exits (Miri and the leak checkers
            // would report it otherwise).
            give(Vec::<f64>::with_capacity(5));
        })
        .join()
        .unwrap();
        assert!(take::<f64>(5).is_some());
    }
}
