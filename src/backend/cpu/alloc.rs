//! Buffers: allocated without zero-filling, written once by a kernel or a
//! constructor, and advised onto transparent huge pages when large (as NumPy does), since
//! first-touch page faults dominate allocating operations on large tensors
//! (see ../shared/DESIGN.md: 37 ms with 4 KiB pages vs 7 ms with huge pages
//! for 64 MiB). Allocation is fallible: a byte count past `isize::MAX` or a
//! request the allocator refuses is PyTorch's error, never an abort.

/// Buffers at least this large ask the kernel for huge pages.
const HUGE_PAGE_BYTES: usize = 4 << 20;

use std::sync::Arc;

use super::storage::Storage;
use crate::element::Numeric;
use crate::shape::OrPanic;
use crate::shape::ShapeError;

/// PyTorch's error when a buffer's byte count does not fit in `isize`.
pub(crate) fn storage_overflow(sizes: &[usize]) -> ShapeError {
    ShapeError::Invalid(format!(
        "Storage size calculation overflowed with sizes={sizes:?}"
    ))
}

/// PyTorch's message when the allocator refuses a buffer of `bytes` bytes.
fn out_of_memory_message(bytes: usize) -> String {
    format!(
        "DefaultCPUAllocator: can't allocate memory: you tried to allocate {bytes} bytes. Error code 12 (Cannot allocate memory)"
    )
}

/// The number of elements of a buffer of sizes `sizes` of `T`, when its byte
/// count fits in `isize` (Rust's limit for one allocation; PyTorch's error
/// otherwise).
pub(crate) fn checked_len<T>(sizes: &[usize]) -> Result<usize, ShapeError> {
    // One pass (every allocating operation runs this): a size of 0 makes
    // the count 0 even when the other sizes' product overflows.
    let (mut len, mut zero, mut overflowed) = (1usize, false, false);
    for &d in sizes {
        zero |= d == 0;
        match len.checked_mul(d) {
            Some(n) => len = n,
            None => overflowed = true,
        }
    }
    if zero {
        return Ok(0);
    }
    match len.checked_mul(core::mem::size_of::<T>()) {
        Some(bytes) if !overflowed && bytes <= isize::MAX as usize => Ok(len),
        _ => Err(storage_overflow(sizes)),
    }
}

/// `Ok` when `len` elements of `T` (the element count of `sizes`) fit in
/// one allocation's `isize` bytes: [`checked_len`] for a caller that has the
/// count already.
///
/// # Errors
/// As [`checked_len`].
pub(crate) fn checked_len_of<T>(len: usize, sizes: &[usize]) -> Result<(), ShapeError> {
    match len.checked_mul(core::mem::size_of::<T>()) {
        Some(bytes) if bytes <= isize::MAX as usize => Ok(()),
        _ => Err(storage_overflow(sizes)),
    }
}

/// An empty buffer with room for `numel(sizes)` elements (that
/// number returned with it), from the caching allocator when large
/// (`cache.rs`; it may have room for more), on huge pages when large: what
/// [`try_alloc_filled_by`] fills, and what a pass writing several outputs
/// at once (`fused::eval_each`) fills before setting their lengths.
///
/// # Errors
/// As [`try_alloc_filled_by`].
pub(crate) fn try_with_capacity<T>(sizes: &[usize]) -> Result<(Vec<T>, usize), ShapeError> {
    let len = checked_len::<T>(sizes)?;
    Ok((try_with_len(len)?, len))
}

/// An empty buffer with room for `len` elements, `len` being the element
/// count of `sizes` with a byte count that fits in `isize` (what
/// [`checked_len`] returns, or the count of an existing buffer of `T` or of
/// a wider type): a caller that already knows the count skips recounting
/// it.
///
/// # Errors
/// PyTorch's out-of-memory message when the allocator refuses the buffer.
pub(crate) fn try_with_len<T>(len: usize) -> Result<Vec<T>, ShapeError> {
    let bytes = len * core::mem::size_of::<T>();
    if bytes < super::cache::MIN_BYTES {
        // The small-op path: this thread's last buffer of the size, else
        // the C allocator's.
        if let Some(v) = super::small_buffers::take::<T>(len) {
            return Ok(v);
        }
    } else if let Some((mut v, fresh)) = super::cache::take::<T>(len) {
        if fresh && bytes >= HUGE_PAGE_BYTES {
            advise_huge_pages(
                v.as_mut_ptr() as *mut u8,
                v.capacity() * core::mem::size_of::<T>(),
            );
        }
        return Ok(v);
    }
    let mut v =
        try_exact::<T>(len).ok_or_else(|| ShapeError::Invalid(out_of_memory_message(bytes)))?;
    if bytes >= HUGE_PAGE_BYTES {
        advise_huge_pages(v.as_mut_ptr() as *mut u8, bytes);
    }
    Ok(v)
}

/// `len` zeros, in a buffer from the small-buffer stash or the caching
/// allocator where one fits (as [`try_with_len`] takes it): scratch that
/// a kernel reuses call after call would otherwise be fresh pages each
/// time. Give a large one back with `cache::give`.
///
/// # Errors
/// PyTorch's out-of-memory message when the allocator refuses the buffer.
pub(crate) fn try_zeroed<T: Numeric>(len: usize) -> Result<Vec<T>, ShapeError> {
    let mut v = try_with_len::<T>(len)?;
    v.resize(len, T::zero());
    Ok(v)
}

/// An empty vector with room for exactly `len` elements (whose byte count
/// [`checked_len`] bounded), `None` when the allocator refuses. One call
/// to the global allocator: `Vec::try_reserve_exact` on an empty vector
/// went through its growth path, about 50 instructions more a small op.
fn try_exact<T>(len: usize) -> Option<Vec<T>> {
    let layout = std::alloc::Layout::array::<T>(len).ok()?;
    if layout.size() == 0 {
        return Some(Vec::new());
    }
    // SAFETY: the layout's size is not zero.
    let p = unsafe { std::alloc::alloc(layout) }.cast::<T>();
    if p.is_null() {
        return None;
    }
    // SAFETY: `p` comes from the global allocator with the layout of
    // `[T; len]`, which is what a vector of capacity `len` frees; no element
    // is initialised and the length is 0.
    Some(unsafe { Vec::from_raw_parts(p, 0, len) })
}

/// A buffer for a tensor of sizes `sizes`, every element written by `fill`
/// before it is returned. `fill` receives the buffer's base pointer and must
/// write all `numel(sizes)` elements.
///
/// # Errors
/// PyTorch's messages: "Storage size calculation overflowed with
/// sizes=[..]" when the byte count does not fit in `isize`, and "...
/// you tried to allocate N bytes ..." when the allocator refuses the buffer
/// (the allocation is fallible: a request too large for the machine is an
/// error, not an abort).
///
/// # Safety
/// The caller's `fill` must initialise every element `0..numel(sizes)`
/// through the pointer (the kernels do: their plan covers exactly that many
/// output elements).
pub(crate) unsafe fn try_alloc_filled_by<T: Copy>(
    sizes: &[usize],
    fill: impl FnOnce(*mut T),
) -> Result<Vec<T>, ShapeError> {
    let len = checked_len::<T>(sizes)?;
    // SAFETY: forwarded to the caller; `len` is `checked_len`'s.
    unsafe { try_alloc_len_filled_by(len, fill) }
}

/// [`try_alloc_filled_by`] for a caller that knows the element count `len`
/// and that its byte count fits (as [`try_with_len`] requires).
///
/// # Errors
/// PyTorch's out-of-memory message when the allocator refuses the buffer.
///
/// # Safety
/// `fill` must initialise every element `0..len` through the pointer.
pub(crate) unsafe fn try_alloc_len_filled_by<T: Copy>(
    len: usize,
    fill: impl FnOnce(*mut T),
) -> Result<Vec<T>, ShapeError> {
    let mut v = try_with_len::<T>(len)?;
    fill(v.as_mut_ptr());
    // SAFETY: capacity is at least `len`, and the caller guarantees `fill`
    // wrote all `len` elements; `T: Copy` has no drop glue to run on them.
    unsafe { v.set_len(len) };
    Ok(v)
}

/// [`try_alloc_len_filled_by`] into a new storage: one this thread kept
/// from a dropped tensor with a buffer of exactly this byte count when
/// there is one (`shells.rs`), written in place, else a new buffer in a
/// kept or new storage.
///
/// The parts that do not depend on `fill` ([`buffer_for`], [`stored`]) are
/// functions of `T` alone, called, not inlined: every kernel is
/// instantiated here with its own `fill`, and the storage search inlined
/// into each made a binary of many kernels 3% larger.
///
/// # Errors
/// As [`try_alloc_len_filled_by`].
///
/// # Safety
/// As [`try_alloc_len_filled_by`].
#[inline]
pub(crate) unsafe fn try_storage_len_filled_by<T: Copy + 'static>(
    len: usize,
    fill: impl FnOnce(*mut T),
) -> Result<Arc<Storage<T>>, ShapeError> {
    let (mut v, shell) = buffer_for::<T>(len)?;
    fill(v.as_mut_ptr());
    // SAFETY: the capacity is `len` (`buffer_for`), and the caller's `fill`
    // wrote every element; `T: Copy` has no drop glue for elements
    // replaced.
    unsafe { v.set_len(len) };
    Ok(stored(v, shell))
}

/// A buffer for a new storage, and the kept storage it came out of (now
/// empty) when there was one.
type Taken<T> = (Vec<T>, Option<Arc<Storage<T>>>);

/// A buffer with room for exactly `len` elements for a new storage, and
/// the kept storage it was taken out of (`shells.rs`) when there was one
/// with a buffer of that byte count, else a new buffer ([`try_with_len`]).
#[inline(never)]
fn buffer_for<T: 'static>(len: usize) -> Result<Taken<T>, ShapeError> {
    if let Some(mut shell) = super::shells::whole::<T>(len) {
        // The last handle on it (the tensor that kept it dropped its own
        // right after); one found shared anyway is let go (one handle
        // among others: nothing is freed).
        if let Some(s) = Arc::get_mut(&mut shell) {
            let v = s.take_elements();
            debug_assert_eq!(v.capacity(), len);
            return Ok((v, Some(shell)));
        }
    }
    Ok((try_with_len::<T>(len)?, None))
}

/// `v` as a new storage: in `shell` (a kept storage it came out of, now
/// empty) when there is one, else in a kept or new one.
#[inline(never)]
fn stored<T: 'static>(v: Vec<T>, shell: Option<Arc<Storage<T>>>) -> Arc<Storage<T>> {
    if let Some(mut shell) = shell
        && let Some(s) = Arc::get_mut(&mut shell)
    {
        s.refill(v);
        return shell;
    }
    Storage::shared(v)
}

/// A buffer for sizes `sizes`, element `i` being `f(i)`, on huge pages when
/// large: what the constructors (`zeros`, `full`, `rand`, ...) allocate, so
/// that later kernels over them see the same pages as over kernel outputs.
///
/// # Errors
/// As [`try_alloc_filled_by`].
pub(crate) fn try_vec_from_fn<T: Copy>(
    sizes: &[usize],
    mut f: impl FnMut(usize) -> T,
) -> Result<Vec<T>, ShapeError> {
    let len = checked_len::<T>(sizes)?;
    // SAFETY: the loop writes every element `0..len` through the base
    // pointer of a buffer with room for `len` elements.
    unsafe {
        try_alloc_filled_by(sizes, |p: *mut T| {
            for i in 0..len {
                p.add(i).write(f(i));
            }
        })
    }
}

/// [`try_vec_from_fn`] for `len` elements, panicking with its message.
#[track_caller]
pub(crate) fn vec_from_fn<T: Copy>(len: usize, f: impl FnMut(usize) -> T) -> Vec<T> {
    try_vec_from_fn(&[len], f).or_panic()
}

#[cfg(target_os = "linux")]
pub(super) fn advise_huge_pages(ptr: *mut u8, bytes: usize) {
    let page = 4096usize;
    let start = (ptr as usize).div_ceil(page) * page;
    let end = (ptr as usize + bytes) / page * page;
    if end > start {
        // SAFETY: [start, end) lies inside the allocation just made (rounded
        // inward to page boundaries); madvise only changes paging advice and
        // does not read or write the memory. A failure is harmless.
        unsafe {
            libc::madvise(start as *mut libc::c_void, end - start, libc::MADV_HUGEPAGE);
        }
    }
}

#[cfg(not(target_os = "linux"))]
pub(super) fn advise_huge_pages(_ptr: *mut u8, _bytes: usize) {}
