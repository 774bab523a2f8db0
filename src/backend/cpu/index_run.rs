//! The CPU's index primitives on layouts: what `gather` and the scatter
//! family need around the loops of `index.rs` (a 0-d operand seen as 1-d,
//! inputs that alias the written buffer copied first, locks taken in
//! address order, index errors in PyTorch's words).

use crate::backend::primitives::out_of_bounds;
use crate::element::Element;
use crate::shape::ShapeError;

use super::exec::{self, Layout};
use super::index::{self as kernel, GatherError, ScatterOut, Strided};

/// A 0-d layout seen as 1-d of size 1, as PyTorch's `ensure_nonempty_dim`.
pub(crate) struct NonEmpty {
    pub(crate) dims: Vec<usize>,
    pub(crate) strides: Vec<usize>,
}

impl NonEmpty {
    /// The sizes and strides of `l`, with `[1]` / `[0]` for a 0-d layout.
    pub(crate) fn of<T>(l: &Layout<'_, T>) -> Self {
        if l.dims.is_empty() {
            NonEmpty {
                dims: vec![1],
                strides: vec![0],
            }
        } else {
            NonEmpty {
                dims: l.dims.to_vec(),
                strides: l.strides.to_vec(),
            }
        }
    }
}

/// A storage's address: equal for views of one buffer, and an order in which
/// to take locks.
pub(crate) fn storage_addr<T>(s: &std::sync::Arc<super::storage::Storage<T>>) -> usize {
    std::sync::Arc::as_ptr(s) as *const () as usize
}

/// `out[i with dim replaced by index[i]] = f(that, src[i])` for every `i` of
/// `dims`: the erased core of the scatter family (`scatter_`,
/// `scatter_add_`, `scatter_reduce_`, and through them `index_add_`,
/// `index_copy_`). `index` and `src` carry strides in `dims`; `out` its own
/// sizes and strides (0-d already seen as 1-d).
pub(crate) fn run_scatter<T: Element, I: Element + Into<i64>>(
    out: Layout<'_, T>,
    dim: usize,
    dims: &[usize],
    index: Layout<'_, I>,
    src: Layout<'_, T>,
    f: impl Fn(T, T) -> T + Sync,
) -> Result<(), ShapeError> {
    exec::check_no_internal_overlap(&out)?;
    // Inputs that share the written buffer are copied first.
    if storage_addr(index.storage) == storage_addr(out.storage) {
        let copy = exec::copy_of(&index)?;
        return run_scatter(out, dim, dims, copy.layout(), src, f);
    }
    if storage_addr(src.storage) == storage_addr(out.storage) {
        let copy = exec::copy_of(&src)?;
        return run_scatter(out, dim, dims, index, copy.layout(), f);
    }
    // Take the locks in address order (see `exec::update2`).
    let mut order = [
        (storage_addr(out.storage), 0),
        (storage_addr(index.storage), 1),
        (storage_addr(src.storage), 2),
    ];
    order.sort_unstable();
    let (mut g_out, mut g_idx, mut g_src) = (None, None, None);
    for (_, which) in order {
        match which {
            0 => g_out = Some(out.storage.write()),
            1 => g_idx = Some(index.storage.read()),
            _ => g_src = Some(src.storage.read()),
        }
    }
    let (mut g_out, g_idx, g_src) = (
        g_out.expect("locked"),
        g_idx.expect("locked"),
        g_src.expect("locked"),
    );
    let result = kernel::scatter(
        ScatterOut {
            data: &mut g_out,
            strides: out.strides,
            offset: out.offset,
            dims: out.dims,
        },
        dims,
        dim,
        Strided {
            data: &g_idx,
            strides: index.strides,
            offset: index.offset,
        },
        Strided {
            data: &g_src,
            strides: src.strides,
            offset: src.offset,
        },
        f,
    );
    result.map_err(|v| out_of_bounds(v, dim, out.dims[dim]))
}

/// `out[i] = src[i with dim replaced by index[i]]` for every `i` of `dims`:
/// the erased core of `gather`, `take_along_dim` and `index_select`.
/// `index` and `src` carry strides in `dims`; `src_dim` is `src`'s size and
/// stride along `dim`.
pub(crate) fn run_gather<T: Element, I: Element + Into<i64>>(
    dims: &[usize],
    dim: usize,
    index: Layout<'_, I>,
    src: Layout<'_, T>,
    src_dim: (usize, usize),
) -> Result<Vec<T>, ShapeError> {
    let (g_idx, g_src) = (index.storage.read(), src.storage.read());
    kernel::gather(
        dims,
        dim,
        Strided {
            data: &g_idx,
            strides: index.strides,
            offset: index.offset,
        },
        Strided {
            data: &g_src,
            strides: src.strides,
            offset: src.offset,
        },
        src_dim,
    )
    .map_err(|e| match e {
        GatherError::Index(v) => out_of_bounds(v, dim, src_dim.0),
        GatherError::Alloc(e) => e,
    })
}

/// `run_scatter` with 0-d operands seen as 1-d (the caller has checked
/// scatter's sizes and that the index has elements).
pub(crate) fn scatter_nonempty<T: Element, I: Element + Into<i64>>(
    out: Layout<'_, T>,
    dim: usize,
    index: Layout<'_, I>,
    src: Layout<'_, T>,
    f: impl Fn(T, T) -> T + Sync,
) -> Result<(), ShapeError> {
    let (o, ix, sr) = (NonEmpty::of(&out), NonEmpty::of(&index), NonEmpty::of(&src));
    let out = Layout {
        dims: &o.dims,
        strides: &o.strides,
        ..out
    };
    let idx = Layout {
        dims: &ix.dims,
        strides: &ix.strides,
        ..index
    };
    let src = Layout {
        dims: &sr.dims,
        strides: &sr.strides,
        ..src
    };
    run_scatter(out, dim, &ix.dims, idx, src, f)
}

/// `run_gather` over the index's sizes with 0-d operands seen as 1-d.
pub(crate) fn gather_nonempty<T: Element, I: Element + Into<i64>>(
    src: Layout<'_, T>,
    dim: usize,
    index: Layout<'_, I>,
) -> Result<Vec<T>, ShapeError> {
    let (s, ix) = (NonEmpty::of(&src), NonEmpty::of(&index));
    let idx = Layout {
        dims: &ix.dims,
        strides: &ix.strides,
        ..index
    };
    let from = Layout {
        dims: &s.dims,
        strides: &s.strides,
        ..src
    };
    run_gather(&ix.dims, dim, idx, from, (s.dims[dim], s.strides[dim]))
}
