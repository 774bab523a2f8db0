//! Runs elementwise kernels for tensors: broadcasts the sizes, builds the
//! iteration plan, takes the storage guards, allocates the output and calls
//! the CPU loops.
//!
//! Generic over element types only: tensors are erased to a [`Layout`] before
//! anything else happens, so this code is compiled once per element type and
//! closure, not once per shape.

use core::mem::MaybeUninit;
use std::sync::Arc;

use super::locks::{read_write, read2_write, same_storage};
use super::storage::Storage;
use super::store::{Kernel1, Kernel1InPlace};
use crate::backend::cpu::isa::{Narrow, Width};
use crate::backend::cpu::{self, Out, Reducer, Src};
use crate::element::{Element, Float};
use crate::iter::{Plan, broadcast_strides, contiguous_strides};
use crate::shape::{DimVec, ShapeError, broadcast_pair, check_expand};

/// A CPU tensor with its shape type erased: the backends' [`Layout`]
/// over the CPU's storage.
///
/// [`Layout`]: crate::backend::Layout
pub(crate) type Layout<'a, T> = crate::backend::Layout<'a, Storage<T>>;

/// PyTorch's message for writing into a tensor whose elements overlap.
const OVERLAP: &str = "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.";

/// An error unless every element of `l` has its own memory location.
pub(crate) fn check_no_internal_overlap<T>(l: &Layout<'_, T>) -> Result<(), ShapeError> {
    let overlaps = l.dims.iter().zip(l.strides).any(|(&d, &s)| d > 1 && s == 0);
    if overlaps && l.dims.iter().all(|&d| d > 0) {
        return Err(ShapeError::Invalid(OVERLAP.into()));
    }
    Ok(())
}

/// PyTorch's message for an input that partly overlaps the written tensor.
pub(crate) const PARTIAL_OVERLAP: &str = "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single memory location. Please clone() the tensor before performing the operation.";

/// Whether the layout `(dims, strides)` fills a block of memory exactly, in
/// some order of its dimensions (PyTorch's `is_non_overlapping_and_dense`).
fn dense(dims: &[usize], strides: &[usize]) -> bool {
    let mut order: Vec<usize> = (0..dims.len()).filter(|&i| dims[i] >= 2).collect();
    order.sort_by_key(|&i| strides[i]);
    let mut expected = 1;
    for i in order {
        if strides[i] != expected {
            return false;
        }
        expected *= dims[i];
    }
    true
}

/// A layout as `(dims, strides, offset)`.
pub(crate) type Parts<'a> = (&'a [usize], &'a [usize], usize);

/// Whether `input` and the written `out`, two layouts on one storage, share
/// some but not all of their memory, as PyTorch's `assert_no_partial_overlap`:
/// both dense, and their element ranges intersect without being the same
/// range with the same strides (`a.add_(&a.t())`). Inputs that are the
/// written tensor itself, or too irregular to tell (not dense), are allowed:
/// the kernels read those from a copy.
pub(crate) fn partial_overlap(out: Parts<'_>, input: Parts<'_>) -> bool {
    let (n_out, n_in): (usize, usize) = (out.0.iter().product(), input.0.iter().product());
    if n_out == 0 || n_in == 0 || !dense(out.0, out.1) || !dense(input.0, input.1) {
        return false;
    }
    let (out_end, in_end) = (out.2 + n_out, input.2 + n_in);
    if out.2 == input.2 && out_end == in_end {
        out.1 != input.1
    } else {
        out.2 < in_end && input.2 < out_end
    }
}

/// An error when `input` and the written `out` partly overlap
/// ([`partial_overlap`]).
pub(crate) fn check_no_partial_overlap<A, B>(
    out: &Layout<'_, A>,
    input: &Layout<'_, B>,
) -> Result<(), ShapeError> {
    if same_storage(out.storage, input.storage)
        && partial_overlap(
            (out.dims, out.strides, out.offset),
            (input.dims, input.strides, input.offset),
        )
    {
        return Err(ShapeError::Invalid(PARTIAL_OVERLAP.into()));
    }
    Ok(())
}

/// A new contiguous storage and its sizes: what an eager kernel returns.
/// The typed layer makes it a tensor of its shape type
/// (`Tensor::from_fresh`), checking the sizes there once; the backend never
/// names a shape type.
#[derive(Debug)]
pub(crate) struct Fresh<T> {
    /// The elements, row-major, in a storage no one else holds.
    pub storage: Arc<Storage<T>>,
    /// The sizes.
    pub dims: DimVec,
}

impl<T: Copy + 'static> Fresh<T> {
    /// `data` (row-major) of sizes `dims`, in a new storage.
    pub(crate) fn from_vec(data: Vec<T>, dims: &[usize]) -> Self {
        Fresh {
            storage: Storage::shared(data),
            dims: DimVec::from_slice(dims),
        }
    }

    /// The elements, row-major.
    pub(crate) fn into_vec(mut self) -> Vec<T> {
        match Arc::get_mut(&mut self.storage) {
            Some(s) => s.take_elements(),
            // Not reached: a fresh storage has one handle.
            None => self.storage.read().to_vec(),
        }
    }
}

/// A fresh contiguous buffer of sizes `dims` whose elements `fill` writes
/// through an output pointer.
///
/// # Safety
/// `fill` must write every element of a contiguous buffer of `numel(dims)`.
unsafe fn alloc_output<O: Element>(
    dims: &[usize],
    fill: impl FnOnce(*mut O),
) -> Result<Fresh<O>, ShapeError> {
    let len = cpu::checked_len::<O>(dims)?;
    // SAFETY: forwarded to the caller; `len` is `checked_len`'s.
    unsafe { alloc_output_len(dims, len, fill) }
}

/// [`alloc_output`] of `len` elements, `len` being `numel(dims)` with a byte
/// count that fits (the count of an existing operand of a type at least as
/// wide): the row fast path does not count the sizes again.
///
/// # Safety
/// As [`alloc_output`].
unsafe fn alloc_output_len<O: Element>(
    dims: &[usize],
    len: usize,
    fill: impl FnOnce(*mut O),
) -> Result<Fresh<O>, ShapeError> {
    // SAFETY: forwarded to the caller.
    let storage = unsafe { cpu::try_storage_len_filled_by(len, fill) }?;
    Ok(Fresh {
        storage,
        dims: DimVec::from_slice(dims),
    })
}

/// `f` applied to every element of `a`, into a new tensor of `a`'s sizes.
pub(crate) fn map1<A: Element, O: Element>(
    a: Layout<'_, A>,
    vectors: impl Width,
    f: impl Kernel1<A, O>,
) -> Result<Fresh<O>, ShapeError> {
    let out_strides = contiguous_strides(a.dims);
    let plan = Plan::new(a.dims, [(&out_strides, 0), (a.strides, a.offset)]);
    let ga = a.storage.read_brief();
    // SAFETY: the output is fresh and contiguous with `numel` elements, and
    // the plan covers each of them once; `a`'s offsets come from its layout,
    // which lies inside its storage (the tensor invariant).
    unsafe {
        alloc_output(a.dims, |o| {
            cpu::map1(&plan, Out::Fresh(o), Src(ga.as_ptr()), vectors, f)
        })
    }
}

/// Whether `l` is contiguous (row-major, no gaps).
fn contiguous<T>(l: &Layout<'_, T>) -> bool {
    contiguous_numel(l).is_some()
}

/// `l`'s element count when it is contiguous (row-major, no gaps; sizes of
/// 1 take any stride), `None` otherwise: one pass for both answers.
#[inline]
fn contiguous_numel<T>(l: &Layout<'_, T>) -> Option<usize> {
    let mut expected = 1usize;
    for (&d, &s) in l.dims.iter().zip(l.strides).rev() {
        if d != 1 && s != expected {
            return None;
        }
        expected *= d;
    }
    Some(expected)
}

/// The row fast path of a binary operation: both contiguous, and one
/// operand's sizes (leading 1s aside) the trailing sizes of the other's,
/// which has the larger rank. Returns `(rows, row_len, a_is_row)`; the
/// broadcast sizes are then the other operand's sizes.
///
/// Every eager binary operation asks this first, so it walks each operand's
/// sizes once (the small-op path: 171 instructions a call before, under
/// callgrind).
#[inline]
fn rows_fast_path<A, B>(a: &Layout<'_, A>, b: &Layout<'_, B>) -> Option<(usize, usize, bool)> {
    let (na, nb) = (contiguous_numel(a)?, contiguous_numel(b)?);
    // Without their leading 1s: the row operand has fewer sizes left
    // (`a` is the full one on a tie).
    let trim = |d: &'_ [usize]| -> usize { d.iter().position(|&x| x != 1).unwrap_or(d.len()) };
    let (ra, rb) = (&a.dims[trim(a.dims)..], &b.dims[trim(b.dims)..]);
    let a_is_row = ra.len() < rb.len();
    let (full, full_dims, row, row_numel) = if a_is_row {
        (nb, b.dims, ra, na)
    } else {
        (na, a.dims, rb, nb)
    };
    // The row's sizes must end the full operand's sizes; the full one has
    // the larger rank (it gives the result's rank).
    if row_numel == 0
        || full_dims.len() < if a_is_row { a.dims.len() } else { b.dims.len() }
        || !row
            .iter()
            .rev()
            .zip(full_dims.iter().rev())
            .all(|(x, y)| x == y)
    {
        return None;
    }
    Some((full / row_numel, row_numel, a_is_row))
}

/// `f` applied to `a` and `b` broadcast together, into a new tensor.
pub(crate) fn map2<A: Element, B: Element, O: Element>(
    a: Layout<'_, A>,
    b: Layout<'_, B>,
    vectors: impl Width,
    f: impl Fn(A, B) -> O + Sync,
) -> Result<Fresh<O>, ShapeError> {
    if let Some((rows, row_len, a_is_row)) = rows_fast_path(&a, &b) {
        let dims = if a_is_row { b.dims } else { a.dims };
        let len = rows * row_len;
        // The full operand's count; checked again only for an output type
        // wider than both inputs.
        if size_of::<O>() > size_of::<A>().min(size_of::<B>()) {
            cpu::checked_len_of::<O>(len, dims)?;
        }
        let (ga, gb) = (a.storage.read_brief(), b.storage.read_brief());
        // SAFETY: both inputs are contiguous from their offsets, the full one
        // with `rows * row_len` elements and the row one with `row_len`; the
        // output is fresh with `rows * row_len` elements, all written.
        return unsafe {
            alloc_output_len(dims, len, |o| {
                let pa = Src(ga.as_ptr().add(a.offset));
                let pb = Src(gb.as_ptr().add(b.offset));
                cpu::map2_rows(Out::Fresh(o), pa, pb, rows, row_len, a_is_row, vectors, f)
            })
        };
    }
    let dims = broadcast_pair(a.dims, b.dims)?;
    let out_strides = contiguous_strides(&dims);
    let (sa, sb) = (
        broadcast_strides(a.dims, a.strides, &dims),
        broadcast_strides(b.dims, b.strides, &dims),
    );
    let plan = Plan::new(&dims, [(&out_strides, 0), (&sa, a.offset), (&sb, b.offset)]);
    let (ga, gb) = (a.storage.read_brief(), b.storage.read_brief());
    // SAFETY: as in `map1`; broadcast strides only repeat elements of each
    // input (stride 0), never leave its layout.
    unsafe {
        alloc_output(&dims, |o| {
            cpu::map2(
                &plan,
                Out::Fresh(o),
                Src(ga.as_ptr()),
                Src(gb.as_ptr()),
                vectors,
                f,
            )
        })
    }
}

/// `f` applied to `a` and `b` broadcast together, written into the
/// existing `out`, whose sizes must be the broadcast sizes (PyTorch's `out=`,
/// without resizing).
pub(crate) fn map2_into<A: Element, B: Element, O: Element>(
    a: Layout<'_, A>,
    b: Layout<'_, B>,
    out: Layout<'_, O>,
    vectors: impl Width,
    f: impl Fn(A, B) -> O + Sync,
) -> Result<(), ShapeError> {
    if let Some((rows, row_len, a_is_row)) = rows_fast_path(&a, &b) {
        // The broadcast sizes are the full operand's sizes.
        let full = if a_is_row { b.dims } else { a.dims };
        if full == out.dims
            && contiguous(&out)
            && !same_storage(out.storage, a.storage)
            && !same_storage(out.storage, b.storage)
        {
            let (ga, gb, mut g) = read2_write(a.storage, b.storage, out.storage);
            // SAFETY: `out` is contiguous from its offset with `rows *
            // row_len` elements (its sizes are the broadcast sizes) in a
            // buffer no input shares; the inputs are contiguous from their
            // offsets with the element counts `map2_rows` reads.
            unsafe {
                let (pa, pb) = (
                    Src(ga.as_ptr().add(a.offset)),
                    Src(gb.as_ptr().add(b.offset)),
                );
                let o = g.as_mut_ptr().add(out.offset);
                cpu::map2_rows(
                    Out::Existing(o),
                    pa,
                    pb,
                    rows,
                    row_len,
                    a_is_row,
                    vectors,
                    f,
                );
            }
            return Ok(());
        }
    }
    let dims = broadcast_pair(a.dims, b.dims)?;
    if dims.as_slice() != out.dims {
        return Err(ShapeError::OutputShape {
            output: out.dims.to_vec(),
            broadcast: dims.into_vec(),
        });
    }
    check_no_internal_overlap(&out)?;
    check_no_partial_overlap(&out, &a)?;
    check_no_partial_overlap(&out, &b)?;
    if same_storage(out.storage, a.storage) {
        let copy = copy_of(&a)?;
        return map2_into(copy.layout(), b, out, vectors, f);
    }
    if same_storage(out.storage, b.storage) {
        let copy = copy_of(&b)?;
        return map2_into(a, copy.layout(), out, vectors, f);
    }
    let (sa, sb) = (
        broadcast_strides(a.dims, a.strides, &dims),
        broadcast_strides(b.dims, b.strides, &dims),
    );
    let plan = Plan::new(
        &dims,
        [(out.strides, out.offset), (&sa, a.offset), (&sb, b.offset)],
    );
    let (ga, gb, mut g) = read2_write(a.storage, b.storage, out.storage);
    // SAFETY: `out`'s offsets lie in its storage and are pairwise distinct
    // (checked above); the inputs are other buffers (copied above if not),
    // read within their layouts.
    unsafe {
        let o = Out::Existing(g.as_mut_ptr());
        cpu::map2(&plan, o, Src(ga.as_ptr()), Src(gb.as_ptr()), vectors, f)
    };
    Ok(())
}

/// `f` applied to `a`, `b` and `c` broadcast together, into a new tensor.
pub(crate) fn map3<A: Element, B: Element, C: Element, O: Element>(
    a: Layout<'_, A>,
    b: Layout<'_, B>,
    c: Layout<'_, C>,
    vectors: impl Width,
    f: impl Fn(A, B, C) -> O + Sync,
) -> Result<Fresh<O>, ShapeError> {
    let dims = broadcast_pair(&broadcast_pair(a.dims, b.dims)?, c.dims)?;
    let out_strides = contiguous_strides(&dims);
    let sa = broadcast_strides(a.dims, a.strides, &dims);
    let sb = broadcast_strides(b.dims, b.strides, &dims);
    let sc = broadcast_strides(c.dims, c.strides, &dims);
    let plan = Plan::new(
        &dims,
        [
            (&out_strides, 0),
            (&sa, a.offset),
            (&sb, b.offset),
            (&sc, c.offset),
        ],
    );
    let (ga, gb, gc) = (
        a.storage.read_brief(),
        b.storage.read_brief(),
        c.storage.read_brief(),
    );
    // SAFETY: as in `map2`.
    unsafe {
        alloc_output(&dims, |o| {
            cpu::map3(
                &plan,
                Out::Fresh(o),
                Src(ga.as_ptr()),
                Src(gb.as_ptr()),
                Src(gc.as_ptr()),
                vectors,
                f,
            )
        })
    }
}

/// A contiguous copy of a layout's elements in a storage of its own.
pub(crate) struct Copied<T> {
    storage: Arc<Storage<T>>,
    dims: DimVec,
    strides: DimVec,
}

impl<T> Copied<T> {
    /// The copy's layout.
    pub(crate) fn layout(&self) -> Layout<'_, T> {
        Layout {
            storage: &self.storage,
            dims: &self.dims,
            strides: &self.strides,
            offset: 0,
        }
    }
}

/// A contiguous copy of `l`'s elements, used when an in-place operation reads
/// the storage it writes.
pub(crate) fn copy_of<T: Element>(l: &Layout<'_, T>) -> Result<Copied<T>, ShapeError> {
    let f = map1(*l, Narrow, |x| x)?;
    Ok(Copied {
        strides: contiguous_strides(&f.dims),
        storage: f.storage,
        dims: f.dims,
    })
}

/// `f` of `l`'s elements in row-major order: a slice of its storage when
/// `l` is contiguous, else of a copy.
pub(crate) fn with_elements<T: Element, R>(
    l: Layout<'_, T>,
    f: impl FnOnce(&[T]) -> R,
) -> Result<R, ShapeError> {
    let n = l.numel();
    if n == 0 {
        // The offset of an empty view may lie past the end of the storage.
        return Ok(f(&[]));
    }
    if l.is_contiguous() {
        return Ok(f(&l.storage.read()[l.offset..l.offset + n]));
    }
    Ok(f(&map1(l, Narrow, |x| x)?.storage.read()))
}

/// `out = f(out)` for every element of `out`, in place.
pub(crate) fn update1<O: Element>(
    out: Layout<'_, O>,
    vectors: impl Width,
    f: impl Kernel1InPlace<O>,
) -> Result<(), ShapeError> {
    check_no_internal_overlap(&out)?;
    let plan = Plan::new(out.dims, [(out.strides, out.offset)]);
    let mut g = out.storage.write_brief();
    // SAFETY: `out`'s offsets lie in its storage and are pairwise distinct
    // (checked above), and we hold the only guard.
    unsafe { cpu::update1(&plan, g.as_mut_ptr(), vectors, f) };
    Ok(())
}

/// `out = f(out, b)` with `b` expanded to `out`'s sizes, in place.
pub(crate) fn update2<O: Element, B: Element>(
    out: Layout<'_, O>,
    b: Layout<'_, B>,
    vectors: impl Width,
    f: impl Fn(O, B) -> O + Sync,
) -> Result<(), ShapeError> {
    check_expand(b.dims, out.dims)?;
    check_no_internal_overlap(&out)?;
    check_no_partial_overlap(&out, &b)?;
    if same_storage(out.storage, b.storage) {
        let copy = copy_of(&b)?;
        return update2(out, copy.layout(), vectors, f);
    }
    let sb = broadcast_strides(b.dims, b.strides, out.dims);
    let plan = Plan::new(out.dims, [(out.strides, out.offset), (&sb, b.offset)]);
    // The lock order (`backend::cpu::locks`): two threads updating each other's
    // operands cannot deadlock.
    let (gb, mut g) = read_write(b.storage, out.storage);
    // SAFETY: as in `update1`; `b` is a different buffer (copied above if
    // not) and its broadcast offsets stay inside its layout.
    unsafe { cpu::update2(&plan, g.as_mut_ptr(), Src(gb.as_ptr()), vectors, f) };
    Ok(())
}

/// `out = f(out, b, c)` with `b` and `c` expanded to `out`'s sizes, in place.
pub(crate) fn update3<O: Element, B: Element, C: Element>(
    out: Layout<'_, O>,
    b: Layout<'_, B>,
    c: Layout<'_, C>,
    vectors: impl Width,
    f: impl Fn(O, B, C) -> O + Sync,
) -> Result<(), ShapeError> {
    check_expand(b.dims, out.dims)?;
    check_expand(c.dims, out.dims)?;
    check_no_internal_overlap(&out)?;
    check_no_partial_overlap(&out, &b)?;
    check_no_partial_overlap(&out, &c)?;
    if same_storage(out.storage, b.storage) {
        let copy = copy_of(&b)?;
        return update3(out, copy.layout(), c, vectors, f);
    }
    if same_storage(out.storage, c.storage) {
        let copy = copy_of(&c)?;
        return update3(out, b, copy.layout(), vectors, f);
    }
    let sb = broadcast_strides(b.dims, b.strides, out.dims);
    let sc = broadcast_strides(c.dims, c.strides, out.dims);
    let plan = Plan::new(
        out.dims,
        [(out.strides, out.offset), (&sb, b.offset), (&sc, c.offset)],
    );
    // The lock order (`backend::cpu::locks`).
    let (gb, gc, mut g) = read2_write(b.storage, c.storage, out.storage);
    // SAFETY: as in `update2`.
    unsafe {
        cpu::update3(
            &plan,
            g.as_mut_ptr(),
            Src(gb.as_ptr()),
            Src(gc.as_ptr()),
            vectors,
            f,
        )
    };
    Ok(())
}

/// `softmax` (`log_softmax` when `log`) of `l` along its last dimension,
/// into a new tensor, when `l` is contiguous and that dimension is not
/// empty (`None` otherwise: the general reduction then runs).
pub(crate) fn softmax_last<T: Float>(
    l: Layout<'_, T>,
    log: bool,
) -> Option<Result<Fresh<T>, ShapeError>> {
    let n = *l.dims.last()?;
    if n == 0 || !contiguous(&l) {
        return None;
    }
    let numel: usize = l.dims.iter().product();
    let g = l.storage.read_brief();
    let x = &g[l.offset..l.offset + numel];
    // SAFETY: `rows` writes every element of the `numel`-element buffer.
    Some(unsafe {
        alloc_output(l.dims, |o: *mut T| {
            let o = core::slice::from_raw_parts_mut(o as *mut MaybeUninit<T>, numel);
            cpu::softmax_rows(x, n, log, o)
        })
    })
}

/// Reduces `l` over the dimensions in `mask`: one output per kept index,
/// row-major over the kept dimensions.
pub(crate) fn reduce_vec<T: Element, R: Reducer<T>>(
    l: Layout<'_, T>,
    mask: &[bool],
    r: &R,
) -> Result<Vec<R::Out>, ShapeError> {
    let keep_sizes: DimVec = l
        .dims
        .iter()
        .zip(mask)
        .map(|(&d, &m)| if m { 1 } else { d })
        .collect();
    let reduced_sizes: DimVec = l
        .dims
        .iter()
        .zip(mask)
        .map(|(&d, &m)| if m { d } else { 1 })
        .collect();
    let mut out_strides = contiguous_strides(&keep_sizes);
    let mut index_strides = contiguous_strides(&reduced_sizes);
    for (i, &m) in mask.iter().enumerate() {
        if m {
            out_strides[i] = 0;
        } else {
            index_strides[i] = 0;
        }
    }
    let plan = Plan::new(
        l.dims,
        [
            (&out_strides, 0),
            (l.strides, l.offset),
            (&index_strides, 0),
        ],
    );
    let n_out: usize = keep_sizes.iter().product();
    let g = l.storage.read_brief();
    // SAFETY: the output is fresh with `n_out` elements, one per kept index,
    // each written once by the kernel; the input's offsets come from its
    // layout, which lies inside its storage (the tensor invariant), held
    // under a read guard.
    unsafe {
        cpu::try_alloc_filled_by(&keep_sizes, |o| cpu::reduce(&plan, n_out, o, g.as_ptr(), r))
    }
}
