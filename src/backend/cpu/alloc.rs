//! Buffers: allocated without zero-filling, written once by a kernel or a
//! constructor, and advised onto transparent huge pages when large (as NumPy does), since
//! first-touch page faults dominate allocating operations on large tensors
//! (see ../shared/DESIGN.md: 37 ms with 4 KiB pages vs 7 ms with huge pages
//! for 64 MiB).

/// Buffers at least this large ask the kernel for huge pages.
const HUGE_PAGE_BYTES: usize = 4 << 20;

/// A buffer of `len` elements, every one written by `fill` before it is
/// returned. `fill` receives the buffer's base pointer and must write all
/// `len` elements.
///
/// # Safety
/// The caller's `fill` must initialise every element `0..len` through the
/// pointer (the kernels do: their plan covers exactly `len` output elements).
pub(crate) unsafe fn alloc_filled_by<T: Copy>(len: usize, fill: impl FnOnce(*mut T)) -> Vec<T> {
    let mut v: Vec<T> = Vec::with_capacity(len);
    let bytes = len * core::mem::size_of::<T>();
    if bytes >= HUGE_PAGE_BYTES {
        advise_huge_pages(v.as_mut_ptr() as *mut u8, bytes);
    }
    fill(v.as_mut_ptr());
    // SAFETY: capacity is `len`, and the caller guarantees `fill` wrote all
    // `len` elements; `T: Copy` has no drop glue to run on them.
    unsafe { v.set_len(len) };
    v
}

/// A buffer of `len` elements, element `i` being `f(i)`, on huge pages when
/// large: what the constructors (`zeros`, `full`, `rand`, ...) allocate, so
/// that later kernels over them see the same pages as over kernel outputs.
pub(crate) fn vec_from_fn<T: Copy>(len: usize, mut f: impl FnMut(usize) -> T) -> Vec<T> {
    // SAFETY: the loop writes every element `0..len` through the base
    // pointer of a buffer with room for `len` elements.
    unsafe {
        alloc_filled_by(len, |p: *mut T| {
            for i in 0..len {
                p.add(i).write(f(i));
            }
        })
    }
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
