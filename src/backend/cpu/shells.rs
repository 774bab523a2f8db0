//! Storages kept per thread: a dropped small tensor's storage (the `Arc`
//! block with its lock and version counter, and its buffer) reused whole for
//! the thread's next result of the same element type and byte count, so
//! that a small operation's result costs no call into the C allocator.
//!
//! A loop of small operations drops each result and makes the next one of
//! the same size. Before, the result's buffer came back from the thread's
//! small buffers (`small_buffers.rs`), but its storage was a `malloc` and a
//! `free` of its own, about 140 instructions together (callgrind, glibc
//! 2.36), and the buffer's trip through the small buffers about 100 more:
//! the `(8, 8) + (8,)` case of `examples/bench_instructions.rs` went from
//! 1,163 to 960 instructions a call (AMD EPYC Zen 3).
//!
//! - A storage is kept only when the tensor dropping it held its last
//!   handle and no [`Weak`](std::sync::Weak) watches it (autograd's nodes
//!   watch their values' storages; those are freed as before), so a reused
//!   storage is as new: no other handle can see it, and its version counter
//!   starts again at 0.
//! - A buffer under [`MIN_BYTES`] stays in its storage; a larger one goes
//!   to the caching allocator (`cache.rs`) at once and the storage is kept
//!   empty. A kernel's new result of exactly a kept buffer's byte count
//!   takes that storage and writes its elements there ([`whole`], through
//!   `alloc::try_storage_len_filled_by`); any other new storage of the
//!   element type takes a kept one and swaps its buffer in ([`storage`]).
//! - Each thread keeps at most [`SLOTS`] storages (so at most `SLOTS *
//!   MIN_BYTES` = 256 KiB of buffers), the most recently kept found first;
//!   with every slot in use, a new one replaces a kept one in turn (round
//!   robin), which is freed.
//! - A thread's storages are freed when it exits; a tensor dropped after
//!   that (by another thread-local's destructor) frees its storage at once.

use core::any::TypeId;
use core::cell::UnsafeCell;
use std::sync::Arc;

use super::cache::MIN_BYTES;
use super::storage::Storage;

/// The most shells one thread keeps.
pub(crate) const SLOTS: usize = 8;

/// Frees a kept shell (`free::<T>` for the shell's `T`).
type Free = unsafe fn(*const ());

/// A thread's kept storages: for each of the first `len` slots, an
/// `Arc<Storage<T>>` as a raw pointer, `T`'s type, the byte count of the
/// buffer it holds (0: none) and the function that frees it. Parallel
/// arrays of plain values, so that a search is a scan of two words a slot.
struct Shells {
    /// `Some` in the used slots (`TypeId::of` is not `const` before Rust
    /// 1.91, above the crate's MSRV).
    tys: [Option<TypeId>; SLOTS],
    bytes: [usize; SLOTS],
    ptrs: [*const (); SLOTS],
    frees: [Free; SLOTS],
    len: usize,
    /// The slot the next storage kept with every slot in use replaces
    /// (round robin), so that storages of a size no longer asked for do not
    /// hold the slots for good.
    evict: usize,
}

impl Shells {
    /// Takes slot `i` out (the last slot moves into it) and returns its
    /// pointer.
    #[inline(always)]
    fn take(&mut self, i: usize) -> *const () {
        let p = self.ptrs[i];
        let last = self.len - 1;
        self.tys[i] = self.tys[last];
        self.bytes[i] = self.bytes[last];
        self.ptrs[i] = self.ptrs[last];
        self.frees[i] = self.frees[last];
        self.len = last;
        p
    }
}

impl Drop for Shells {
    fn drop(&mut self) {
        for i in 0..self.len {
            // SAFETY: each kept storage came from `Arc::into_raw` of an
            // `Arc<Storage<T>>` with `frees[i]` being `free::<T>` for that
            // `T`, and is owned by these slots alone.
            unsafe { (self.frees[i])(self.ptrs[i]) };
        }
    }
}

thread_local! {
    static SHELLS: UnsafeCell<Shells> = const {
        UnsafeCell::new(Shells {
            tys: [None; SLOTS],
            bytes: [0; SLOTS],
            ptrs: [core::ptr::null(); SLOTS],
            frees: [free::<()>; SLOTS],
            len: 0,
            evict: 0,
        })
    };
}

/// Frees a kept storage of element type `T`.
///
/// # Safety
/// `p` came from `Arc::into_raw` of an `Arc<Storage<T>>`, and this is its
/// last use.
unsafe fn free<T>(p: *const ()) {
    // SAFETY: the caller's contract.
    drop(unsafe { Arc::from_raw(p.cast::<Storage<T>>()) });
}

/// The first kept slot, from the most recent, for which `hit(type, bytes)`
/// holds, taken out: its pointer (an `Arc<Storage<T>>` for the slot's `T`).
#[inline(always)]
fn find(hit: impl Fn(Option<TypeId>, usize) -> bool) -> Option<*const ()> {
    SHELLS
        .try_with(|c| {
            // SAFETY: the slots are this thread's; no reference to them
            // outlives this closure, and nothing in it reenters this module.
            let c = unsafe { &mut *c.get() };
            let i = (0..c.len).rev().find(|&i| hit(c.tys[i], c.bytes[i]))?;
            Some(c.take(i))
        })
        .ok()
        .flatten()
}

/// Keeps `storage` for this thread's next storage of `T` when `storage` is
/// its last handle (no other `Arc` and no `Weak`): a second handle is kept
/// (a large buffer handed to the caching allocator first), in a free slot
/// or in place of a kept storage (round robin) when every slot is in use;
/// the caller then drops `storage` as usual, which leaves the kept handle
/// the only one.
#[inline(always)]
pub(crate) fn keep<T: 'static>(storage: &mut Arc<Storage<T>>) {
    let _ = SHELLS.try_with(|c| {
        // SAFETY: as in `find`.
        let c = unsafe { &mut *c.get() };
        let Some(s) = Arc::get_mut(storage) else {
            return;
        };
        let i = if c.len < SLOTS {
            c.len += 1;
            c.len - 1
        } else {
            // Every slot in use: the round robin's storage is freed (its
            // buffer handed to the caches, as a dropped storage's is; that
            // touches no slot) and this one takes its place.
            let e = c.evict;
            c.evict = (e + 1) % SLOTS;
            // SAFETY: slot `e` holds a kept storage (`len == SLOTS`) with its
            // own `free`, and is overwritten below.
            unsafe { (c.frees[e])(c.ptrs[e]) };
            e
        };
        let mut bytes = s.buffer_bytes();
        if bytes >= MIN_BYTES {
            s.give_buffer();
            bytes = 0;
        }
        c.tys[i] = Some(TypeId::of::<T>());
        c.bytes[i] = bytes;
        c.ptrs[i] = Arc::into_raw(Arc::clone(storage)).cast::<()>();
        c.frees[i] = free::<T>;
    });
}

/// The kept storage of `T` at `p`, taken out of its slot.
///
/// # Safety
/// `p` came from `Arc::into_raw` of an `Arc<Storage<T>>` kept by `keep`,
/// and its slot no longer holds it.
#[inline(always)]
unsafe fn kept_storage<T>(p: *const ()) -> Arc<Storage<T>> {
    // SAFETY: the caller's contract.
    unsafe { Arc::from_raw(p.cast::<Storage<T>>()) }
}

/// A kept storage of `T` whose buffer has exactly `len` elements' byte
/// count (taken out of its slot), to be written whole as a new storage;
/// `None` when there is none.
#[inline(always)]
pub(crate) fn whole<T: 'static>(len: usize) -> Option<Arc<Storage<T>>> {
    let bytes = len * size_of::<T>();
    if bytes == 0 || bytes >= MIN_BYTES {
        return None;
    }
    let ty = Some(TypeId::of::<T>());
    let p = find(|t, b| t == ty && b == bytes)?;
    // SAFETY: the slot's type is `T`: `p` is a kept `Arc<Storage<T>>`.
    Some(unsafe { kept_storage::<T>(p) })
}

/// A storage holding `data`: a kept storage of this thread's of element
/// type `T` when there is one (its buffer, if any, handed to the small
/// buffers), else a new one.
#[inline(always)]
pub(crate) fn storage<T: 'static>(data: Vec<T>) -> Arc<Storage<T>> {
    let ty = Some(TypeId::of::<T>());
    if let Some(p) = find(|t, _| t == ty) {
        // SAFETY: the slot's type is `T`: `p` is a kept `Arc<Storage<T>>`.
        let mut s = unsafe { kept_storage::<T>(p) };
        // The last handle (the tensor that kept it dropped its own right
        // after); a shared one is let go: one handle among others.
        if let Some(st) = Arc::get_mut(&mut s) {
            st.refill(data);
            return s;
        }
    }
    Arc::new(Storage::new(data))
}

/// How many shells this thread keeps now (for tests).
#[cfg(test)]
fn kept() -> usize {
    SHELLS.with(|c| {
        // SAFETY: as in `keep`.
        unsafe { (*c.get()).len }
    })
}

/// Frees this thread's kept shells (for tests, which may share a thread).
#[cfg(test)]
fn clear() {
    SHELLS.with(|c| {
        // SAFETY: as in `keep`; the slots are emptied first, then their
        // shells freed, which touches no slot.
        let c = unsafe { &mut *c.get() };
        let old = Shells {
            tys: c.tys,
            bytes: c.bytes,
            ptrs: c.ptrs,
            frees: c.frees,
            len: core::mem::take(&mut c.len),
            evict: core::mem::take(&mut c.evict),
        };
        drop(old);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dropped last handle's storage comes back whole for the next result
    /// of its element type and byte count, written in place with its
    /// version counter reset; a result of another byte count or element
    /// type does not take it, and a new storage of the type swaps its
    /// buffer in.
    #[test]
    fn storages_come_back_for_their_type_and_size() {
        clear();
        let mut a = storage(vec![1.0f32, 2.0, 3.0]);
        let addr = Arc::as_ptr(&a);
        a.bump_version();
        keep(&mut a);
        assert_eq!(kept(), 1);
        assert_eq!(*a.read(), vec![1.0, 2.0, 3.0], "a small buffer stays in it");
        drop(a);

        // Another byte count, or another element type: not this storage.
        assert!(whole::<f32>(2).is_none());
        assert!(whole::<u32>(3).is_none());
        assert_eq!(kept(), 1);

        // A kernel's result of its byte count is written into it.
        let fill = |p: *mut f32| {
            for i in 0..3 {
                // SAFETY: `p` has room for the 3 elements asked for.
                unsafe { p.add(i).write(10.0 + i as f32) };
            }
        };
        // SAFETY: `fill` writes the 3 elements asked for.
        let b = unsafe { crate::backend::cpu::try_storage_len_filled_by::<f32>(3, fill) }.unwrap();
        assert_eq!(Arc::as_ptr(&b), addr);
        assert_eq!(*b.read(), vec![10.0, 11.0, 12.0]);
        assert_eq!(b.version(), 0);
        assert_eq!(kept(), 0);
        // With none kept, a new storage.
        // SAFETY: as above.
        let n = unsafe { crate::backend::cpu::try_storage_len_filled_by::<f32>(3, fill) }.unwrap();
        assert_ne!(Arc::as_ptr(&n), addr);
        assert_eq!(*n.read(), vec![10.0, 11.0, 12.0]);

        let mut b = b;
        keep(&mut b);
        drop(b);
        let other = storage(vec![7i64]);
        assert_ne!(Arc::as_ptr(&other).cast::<()>(), addr.cast::<()>());
        let c = storage(vec![4.0f32, 5.0]);
        assert_eq!(Arc::as_ptr(&c), addr);
        assert_eq!(*c.read(), vec![4.0, 5.0]);
        assert_eq!(kept(), 0);
    }

    /// A storage with another handle, or watched by a `Weak`, is not kept;
    /// a large buffer goes to the caching allocator and its storage is kept
    /// empty; with every slot in use a new one replaces the oldest.
    #[test]
    fn shared_watched_and_large_storages() {
        clear();
        let mut a = storage(vec![1u8; 5]);
        let a2 = Arc::clone(&a);
        keep(&mut a);
        assert_eq!(kept(), 0);
        assert_eq!(
            *a2.read(),
            vec![1u8; 5],
            "a shared storage keeps its elements"
        );
        drop(a2);
        let w = Arc::downgrade(&a);
        keep(&mut a);
        assert_eq!(kept(), 0);
        drop(a);
        assert!(
            w.upgrade().is_none(),
            "a watched storage is freed when dropped"
        );

        let mut big = storage(vec![0u8; MIN_BYTES]);
        keep(&mut big);
        assert_eq!(kept(), 1);
        assert_eq!(big.len(), 0, "a large buffer is handed on");
        drop(big);
        clear();

        // Past `SLOTS`, each new one replaces the oldest in turn: the last
        // `SLOTS` kept are the ones left.
        let mut all: Vec<_> = (0..SLOTS + 2).map(|i| storage(vec![i as u16])).collect();
        let addrs: Vec<_> = all.iter().map(Arc::as_ptr).collect();
        for s in &mut all {
            keep(s);
        }
        assert_eq!(kept(), SLOTS);
        drop(all);
        let mut back: Vec<_> = (0..SLOTS).map(|_| storage(Vec::<u16>::new())).collect();
        assert_eq!(kept(), 0);
        assert!(back.iter().all(|s| s.len() == 0));
        let mut got: Vec<_> = back.iter().map(Arc::as_ptr).collect();
        let mut want = addrs[2..].to_vec();
        got.sort();
        want.sort();
        assert_eq!(got, want);
        back.clear();
    }
}
