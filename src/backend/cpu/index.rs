//! Loops for indexing and joining: `gather` (and through it `index_select`
//! and `take_along_dim`), `scatter` (and `scatter_add`, `index_add_`,
//! `index_copy_`), and `cat`.
//!
//! Unlike the elementwise loops, these functions are safe to call: each one
//! checks what its `unsafe` blocks rely on before it touches memory.
//!
//! - **Spans.** Every offset an operand can reach (its offset plus the sum
//!   over dimensions of `(size - 1) * stride`) is below its buffer's length
//!   ([`span_ok`], O(rank), asserted).
//! - **Index values.** Every value of the index tensor lies in
//!   `0..size` of the indexed dimension; the first value that does not is
//!   returned as an error before any element is read or written.
//! - **Allocation.** A fresh output is allocated fallibly: an index expanded
//!   to more elements than the machine can hold is an error, never an abort.
//! - **Writes.** The written tensor's elements have distinct memory
//!   locations ([`non_overlapping`], asserted), and it is a `&mut` buffer,
//!   so no input can share it.
//!
//! Parallelism: `gather` splits its output elements across threads; the
//! scatter family splits *lines* (all positions along the indexed dimension
//! for one choice of the other coordinates), since two elements of one line
//! may write the same location (repeated indices), while two lines never do.

use super::isa::Narrow;
use crate::iter::{Plan, contiguous_strides};
use crate::shape::ShapeError;

use super::elementwise::{Out, Src, map1};
use super::pool::par_segments;
use super::try_alloc_filled_by;

/// Why [`gather`] returned no output.
#[derive(Debug, PartialEq)]
pub(crate) enum GatherError {
    /// The first index value outside `0..size` of the gathered dimension.
    Index(i64),
    /// The output's buffer could not be allocated (PyTorch's message).
    Alloc(ShapeError),
}

/// A strided read-only operand: its whole buffer, its strides in the
/// iteration's dimensions, and its offset.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Strided<'a, T> {
    /// The buffer (a storage's elements).
    pub data: &'a [T],
    /// Strides, one per iteration dimension.
    pub strides: &'a [usize],
    /// The offset of the first element.
    pub offset: usize,
}

/// The largest offset that sizes `dims` with `strides` reach from `offset`,
/// or `None` when there are no elements.
fn max_offset(dims: &[usize], strides: &[usize], offset: usize) -> Option<usize> {
    if dims.contains(&0) {
        return None;
    }
    let mut max = offset;
    for (&d, &s) in dims.iter().zip(strides) {
        max = max.checked_add((d - 1).checked_mul(s)?)?;
    }
    Some(max)
}

/// Whether every offset of sizes `dims` with `strides` from `offset` is below
/// `len` (vacuously true when there are no elements).
pub(crate) fn span_ok(dims: &[usize], strides: &[usize], offset: usize, len: usize) -> bool {
    dims.len() == strides.len()
        && (dims.contains(&0) || max_offset(dims, strides, offset).is_some_and(|m| m < len))
}

/// Whether distinct multi-indices of `dims` reach distinct offsets: with the
/// dimensions of size > 1 sorted by stride, each stride exceeds the largest
/// offset the smaller ones reach together. Sufficient, and exact for every
/// view this crate makes (permutations, slices, steps, expansions).
pub(crate) fn non_overlapping(dims: &[usize], strides: &[usize]) -> bool {
    if dims.contains(&0) {
        return true;
    }
    let mut ds: Vec<(usize, usize)> = dims
        .iter()
        .zip(strides)
        .filter(|(d, _)| **d > 1)
        .map(|(&d, &s)| (s, d))
        .collect();
    ds.sort_unstable();
    let mut reach = 0usize;
    for (s, d) in ds {
        if s <= reach {
            return false;
        }
        match (d - 1).checked_mul(s).and_then(|x| x.checked_add(reach)) {
            Some(r) => reach = r,
            None => return false,
        }
    }
    true
}

/// The first value (in the plan's order) of the index operand outside
/// `0..upper`, read with checked indexing.
fn first_bad_index<I: Copy + Into<i64>>(
    dims: &[usize],
    index: Strided<'_, I>,
    upper: usize,
) -> Option<i64> {
    // A stride-0 (broadcast) dimension repeats the same values: visit it once.
    let once: Vec<usize> = dims
        .iter()
        .zip(index.strides)
        .map(|(&d, &s)| if s == 0 { d.min(1) } else { d })
        .collect();
    let plan = Plan::new(&once, [(index.strides, index.offset)]);
    let mut bad = None;
    plan.segments(0, plan.numel(), |offs, st, len| {
        if bad.is_some() {
            return;
        }
        for k in 0..len {
            let v: i64 = index.data[offs[0] + k * st[0]].into();
            if v < 0 || v as u64 >= upper as u64 {
                bad = Some(v);
                return;
            }
        }
    });
    bad
}

/// The output pointer, shared across threads.
#[derive(Clone, Copy)]
struct Dst<T>(*mut T);

impl<T> Dst<T> {
    /// The pointer (a method, so closures capture the `Sync` wrapper).
    fn ptr(self) -> *mut T {
        self.0
    }
}

// SAFETY: threads write disjoint sets of elements through it (distinct
// output offsets for `gather`, distinct lines for `scatter`), while the
// caller holds the buffer exclusively.
unsafe impl<T: Send> Send for Dst<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Dst<T> {}

/// A read-only input pointer, shared across threads.
#[derive(Clone, Copy)]
struct Rd<T>(*const T);

impl<T> Rd<T> {
    /// The pointer (a method, so closures capture the `Sync` wrapper).
    fn ptr(self) -> *const T {
        self.0
    }
}

// SAFETY: the buffer is borrowed shared for the whole call and only read.
unsafe impl<T: Sync> Send for Rd<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for Rd<T> {}

/// `out[i] = src[i with coordinate dim replaced by index[i]]` for every
/// multi-index `i` of `dims` (the index's sizes), into a fresh contiguous
/// buffer.
///
/// `src.strides` are `src`'s strides in `dims` except at `dim`, where the
/// stride used is `src_dim.1` and the size `src_dim.0`. The other sizes of
/// `src` must be at least those of `dims` (the caller checks PyTorch's shape
/// rule; the span assertion below enforces what memory safety needs).
///
/// # Errors
/// [`GatherError::Index`]: the first index value outside `0..src_dim.0`;
/// [`GatherError::Alloc`]: the output (of `dims`, which an expanded index
/// can make far larger than any buffer) cannot be allocated.
///
/// # Panics
/// When an operand's span leaves its buffer (a broken tensor invariant).
pub(crate) fn gather<T, I>(
    dims: &[usize],
    dim: usize,
    index: Strided<'_, I>,
    src: Strided<'_, T>,
    src_dim: (usize, usize),
) -> Result<Vec<T>, GatherError>
where
    T: Copy + Send + Sync,
    I: Copy + Into<i64> + Sync,
{
    let (src_size, src_stride) = src_dim;
    assert!(span_ok(dims, index.strides, index.offset, index.data.len()));
    let mut src_dims = dims.to_vec();
    src_dims[dim] = src_size;
    let mut src_strides = src.strides.to_vec();
    src_strides[dim] = src_stride;
    assert!(span_ok(&src_dims, &src_strides, src.offset, src.data.len()));
    if let Some(bad) = first_bad_index(dims, index, src_size) {
        return Err(GatherError::Index(bad));
    }
    // The plan walks `src` with stride 0 at `dim`: the index picks the
    // position along `dim` instead.
    src_strides[dim] = 0;
    let out_strides = contiguous_strides(dims);
    let plan = Plan::new(
        dims,
        [
            (&out_strides, 0),
            (index.strides, index.offset),
            (&src_strides, src.offset),
        ],
    );
    let (ip, sp) = (Rd(index.data.as_ptr()), Rd(src.data.as_ptr()));
    let fill = |out: *mut T| {
        let out = Dst(out);
        par_segments(&plan, |offs, st, len| {
            for k in 0..len {
                // SAFETY: `offs[1] + k * st[1]` is an offset of the index's
                // layout over `dims` (span checked against its buffer above).
                // `offs[2] + k * st[2]` is an offset of `src` with the
                // coordinate at `dim` zero; adding `v * src_stride` with
                // `0 <= v < src_size` (every index value was validated above)
                // stays within the span checked for `src_dims`. The output
                // offset is below `numel(dims)`, the buffer's length, and
                // each is written by exactly one segment.
                unsafe {
                    let v: i64 = (*ip.ptr().add(offs[1] + k * st[1])).into();
                    let x = *sp.ptr().add(offs[2] + k * st[2] + v as usize * src_stride);
                    out.ptr().add(offs[0] + k * st[0]).write(x);
                }
            }
        });
    };
    // SAFETY: the output is contiguous with `numel(dims)` elements and the
    // plan visits each of its offsets once, so `fill` writes all of them.
    unsafe { try_alloc_filled_by(dims, fill) }.map_err(GatherError::Alloc)
}

/// The written tensor of a scatter: its buffer (held exclusively), strides
/// and offset, and its size along the scattered dimension.
pub(crate) struct ScatterOut<'a, T> {
    /// The whole buffer.
    pub data: &'a mut [T],
    /// Strides, one per iteration dimension (its own strides).
    pub strides: &'a [usize],
    /// The offset of its first element.
    pub offset: usize,
    /// Its sizes (at least the iteration's sizes except at `dim`).
    pub dims: &'a [usize],
}

/// For every multi-index `i` of `dims` (the index's sizes):
/// `out[i with coordinate dim replaced by index[i]] = f(that, src[i])`,
/// where `src[i]` is read through `src`'s strides in `dims`.
///
/// Lines along `dim` run in parallel; within a line, in order, so repeated
/// indices accumulate (`f = add`) or the last one wins (`f = replace`).
///
/// # Errors
/// `Err(value)`: the first index value outside `0..out.dims[dim]`; nothing
/// has been written then.
///
/// # Panics
/// When an operand's span leaves its buffer, the iteration is larger than
/// `out` away from `dim`, or `out` has elements sharing memory.
pub(crate) fn scatter<T, I>(
    out: ScatterOut<'_, T>,
    dims: &[usize],
    dim: usize,
    index: Strided<'_, I>,
    src: Strided<'_, T>,
    f: impl Fn(T, T) -> T + Sync,
) -> Result<(), i64>
where
    T: Copy + Send + Sync,
    I: Copy + Into<i64> + Sync,
{
    let size = out.dims[dim];
    assert!(span_ok(dims, index.strides, index.offset, index.data.len()));
    assert!(span_ok(dims, src.strides, src.offset, src.data.len()));
    assert!(span_ok(out.dims, out.strides, out.offset, out.data.len()));
    assert!(non_overlapping(out.dims, out.strides));
    let fits = dims.len() == out.dims.len()
        && (0..dims.len()).all(|d| d == dim || dims[d] <= out.dims[d] || dims.contains(&0));
    assert!(
        fits,
        "scatter: the index is larger than the output away from dim"
    );
    if let Some(bad) = first_bad_index(dims, index, size) {
        return Err(bad);
    }
    // One plan element per line: the dimension `dim` is iterated inside.
    let mut lines = dims.to_vec();
    let line_len = core::mem::replace(&mut lines[dim], 1);
    let (o_step, i_step, s_step) = (out.strides[dim], index.strides[dim], src.strides[dim]);
    let plan = Plan::new(
        &lines,
        [
            (out.strides, out.offset),
            (index.strides, index.offset),
            (src.strides, src.offset),
        ],
    );
    let (dst, ip, sp) = (
        Dst(out.data.as_mut_ptr()),
        Rd(index.data.as_ptr()),
        Rd(src.data.as_ptr()),
    );
    par_segments(&plan, |offs, st, len| {
        for l in 0..len {
            let (o, i, s) = (
                offs[0] + l * st[0],
                offs[1] + l * st[1],
                offs[2] + l * st[2],
            );
            for k in 0..line_len {
                // SAFETY: `i + k * i_step` and `s + k * s_step` are offsets
                // of the index's and `src`'s layouts over `dims` (spans
                // checked above). `o` is `out`'s offset at this line's
                // coordinates with 0 at `dim`; those coordinates are within
                // `out.dims` (checked: `dims[d] <= out.dims[d]` away from
                // `dim`), and `v < out.dims[dim]` (validated), so
                // `o + v * o_step` lies in `out`'s checked span. Lines differ
                // in a coordinate away from `dim` and `out` does not overlap
                // itself, so no two threads write the same element.
                unsafe {
                    let v: i64 = (*ip.ptr().add(i + k * i_step)).into();
                    let p = dst.ptr().add(o + v as usize * o_step);
                    *p = f(*p, *sp.ptr().add(s + k * s_step));
                }
            }
        }
    });
    Ok(())
}

/// One input of [`cat`]: its buffer, sizes, strides and offset.
pub(crate) struct CatPart<'a, T> {
    /// The operand, strides in its own `dims`.
    pub src: Strided<'a, T>,
    /// Its sizes.
    pub dims: &'a [usize],
}

/// The inputs laid one after the other along `dim` into a fresh contiguous
/// buffer of sizes `out_dims`.
///
/// # Panics
/// When a part's sizes differ from `out_dims` away from `dim`, the sizes
/// along `dim` do not add up to `out_dims[dim]`, or a span leaves its buffer
/// (the caller checks the first two with PyTorch's messages).
pub(crate) fn cat<T: Copy + Send + Sync>(
    out_dims: &[usize],
    dim: usize,
    parts: &[CatPart<'_, T>],
) -> Result<Vec<T>, ShapeError> {
    let mut total = 0usize;
    for p in parts {
        assert_eq!(p.dims.len(), out_dims.len(), "cat: ranks differ");
        for (d, (&pd, &od)) in p.dims.iter().zip(out_dims).enumerate() {
            assert!(d == dim || pd == od, "cat: sizes differ");
        }
        assert!(span_ok(
            p.dims,
            p.src.strides,
            p.src.offset,
            p.src.data.len()
        ));
        total += p.dims[dim];
    }
    assert_eq!(total, out_dims[dim], "cat: sizes along dim do not add up");
    let out_strides = contiguous_strides(out_dims);
    let fill = |out: *mut T| {
        let mut start = 0usize;
        for p in parts {
            let plan = Plan::new(
                p.dims,
                [
                    (&out_strides, start * out_strides[dim]),
                    (p.src.strides, p.src.offset),
                ],
            );
            // SAFETY: the part's offsets lie in its buffer (span checked).
            // Its output offsets are those of the output's elements whose
            // coordinate along `dim` is in `start..start + p.dims[dim]`: in
            // bounds of the `numel(out_dims)`-element output, and disjoint from every
            // other part's. The output is a fresh buffer no input shares.
            unsafe {
                map1(
                    &plan,
                    Out::Fresh(out),
                    Src(p.src.data.as_ptr()),
                    Narrow,
                    |x| x,
                )
            };
            start += p.dims[dim];
        }
    };
    // SAFETY: the parts' ranges along `dim` tile `0..out_dims[dim]` (checked
    // above) and each part's plan covers its whole range, so every output
    // element is written.
    unsafe { try_alloc_filled_by(out_dims, fill) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_and_overlap() {
        assert!(span_ok(&[2, 3], &[3, 1], 0, 6));
        assert!(!span_ok(&[2, 3], &[3, 1], 1, 6));
        assert!(span_ok(&[0, 3], &[3, 1], 100, 6));
        assert!(non_overlapping(&[2, 3], &[1, 2]));
        assert!(!non_overlapping(&[2, 3], &[0, 1]));
        assert!(!non_overlapping(&[2, 2], &[1, 1]));
        assert!(non_overlapping(&[1, 3], &[0, 1]));
    }

    /// `gather` along the only axis of `[1., 2., 3.]`, with index values
    /// `idx` at stride `idx_stride` over `n` outputs.
    fn gather_from_three(
        n: usize,
        idx: &[i64],
        idx_stride: usize,
    ) -> Result<Vec<f32>, GatherError> {
        let src = [1.0f32, 2.0, 3.0];
        gather(
            &[n],
            0,
            Strided {
                data: idx,
                strides: &[idx_stride],
                offset: 0,
            },
            Strided {
                data: &src,
                strides: &[1],
                offset: 0,
            },
            (3, 1),
        )
    }

    #[test]
    fn gather_rejects_before_reading() {
        assert_eq!(gather_from_three(2, &[0, 3], 1), Err(GatherError::Index(3)));
        assert_eq!(gather_from_three(3, &[2, 0, 2], 1), Ok(vec![3.0, 1.0, 3.0]));
    }

    #[test]
    #[cfg_attr(miri, ignore)] // Miri stops at a request larger than its memory.
    fn gather_too_large_to_allocate_is_an_error() {
        // One index value broadcast (stride 0) to 2^40 outputs: 4 TiB.
        let r = gather_from_three(1 << 40, &[0], 0);
        let Err(GatherError::Alloc(e)) = r else {
            panic!("expected an allocation error, got {r:?}");
        };
        assert!(
            e.to_string()
                .contains("you tried to allocate 4398046511104 bytes"),
            "{e}"
        );
    }
}
