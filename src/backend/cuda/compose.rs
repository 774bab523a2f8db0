//! The CUDA side of the primitives that are not one generated kernel nor
//! one of the compositions every device shares (`backend/composite.rs`):
//! `all`/`any` as a comparison with zero and a `bool` reduction;
//! `argmax`/`argmin` on their own kernels; `cat` as one copy kernel per
//! part into its slice of the result; `masked_fill_` as `where` copied
//! back; `masked_select` as a gather at the positions found on the host.

use std::sync::Arc;

use super::operands::{check_no_overlap, dense, fresh_output};
use super::reduce::arg_reduce;
use super::reduce::reduce_mask;
use super::reductions::find_reduction;
use super::{CudaElement, CudaError, CudaStorage};
use crate::backend::composite;
use crate::backend::layout::Owned;
use crate::backend::op::table::{CopyFrom, NotEqual};
use crate::backend::primitives::{reduced_count, reduced_dims};
use crate::backend::{Backend, Layout, Output};
use crate::device::Cuda;
use crate::element::Numeric;
use crate::iter::{broadcast_strides, contiguous_strides};
use crate::shape::{DimVec, check_inplace};

/// A layout of a CUDA storage of `T`.
type Lay<'a, T> = Layout<'a, CudaStorage<T>>;

/// [`Backend::truth`] on CUDA: `a != 0`, then the `bool` reduction.
pub(crate) fn truth<T: CudaElement>(
    all: bool,
    a: Lay<'_, T>,
    mask: &[bool],
    keepdim: bool,
) -> Result<Output<CudaStorage<bool>>, CudaError> {
    let zero = Owned::new(<Cuda as Backend<T>>::from_host(a, vec![T::default()], &[])?);
    let nonzero = Owned::new(<Cuda as Backend<T>>::compare(NotEqual, a, zero.layout())?);
    let def = find_reduction(if all { "all" } else { "any" });
    reduce_mask(def, nonzero.layout(), mask, keepdim)
}

/// [`Backend::arg_extreme`] on CUDA: one reduced dimension is read in
/// place (after a contiguous copy if needed); several are moved last by a
/// permutation and copied, so that each output's span is one row, whose
/// flat index is the row-major index over the reduced dimensions.
#[allow(clippy::type_complexity)]
pub(crate) fn arg_extreme<T: CudaElement + Numeric>(
    max: bool,
    a: Lay<'_, T>,
    mask: &[bool],
    keepdim: bool,
) -> Result<(Output<CudaStorage<T>>, Output<CudaStorage<i64>>), CudaError> {
    let dims = a.dims;
    let reduced: Vec<usize> = (0..dims.len()).filter(|&k| mask[k]).collect();
    let kept: Vec<usize> = (0..dims.len()).filter(|&k| !mask[k]).collect();
    // Several reduced dimensions: the kept ones first, the reduced last.
    let order: Vec<usize> = kept.iter().chain(&reduced).copied().collect();
    let pdims: DimVec = order.iter().map(|&k| dims[k]).collect();
    let pstrides: DimVec = order.iter().map(|&k| a.strides[k]).collect();
    let (c, view) = if let [k] = reduced[..] {
        let outer: usize = dims[..k].iter().product();
        let inner: usize = dims[k + 1..].iter().product();
        (dense(a)?, (outer, dims[k], inner))
    } else {
        let moved = Lay {
            dims: &pdims,
            strides: &pstrides,
            ..a
        };
        let copy = Owned::new(<Cuda as Backend<T>>::copy(moved)?);
        let outer: usize = kept.iter().map(|&k| dims[k]).product();
        (
            crate::backend::layout::Dense::Copied(copy),
            (outer, reduced_count(dims, mask), 1),
        )
    };
    let c = c.layout();
    let dev = &a.storage.dev;
    let out_dims = reduced_dims(dims, mask, keepdim);
    let vals = fresh_output::<T>(dev, &out_dims)?;
    let idx = fresh_output::<i64>(dev, &out_dims)?;
    {
        let g = c.storage.buf.read();
        let mut v = vals.storage.write();
        let mut i = idx.storage.write();
        arg_reduce(dev, max, &g, c.offset, view, &mut v, &mut i)?;
    }
    Ok((vals, idx))
}

/// [`Backend::cat`] on CUDA: each part copied (the `copy_from` kernel,
/// through the part's strides) into its slice of a fresh contiguous result.
pub(crate) fn cat<T: CudaElement>(
    parts: &[Lay<'_, T>],
    dim: usize,
    out: &[usize],
) -> Result<Output<CudaStorage<T>>, CudaError> {
    let first = parts.first().expect("the caller checked there are parts");
    let result = fresh_output::<T>(&first.storage.dev, out)?;
    let strides = contiguous_strides(out);
    let mut start = 0;
    for p in parts {
        let slice = Lay {
            storage: &result.storage,
            dims: p.dims,
            strides: &strides,
            offset: start * strides[dim],
        };
        <Cuda as Backend<T>>::binary_(CopyFrom, slice, *p)?;
        start += p.dims[dim];
    }
    Ok(result)
}

/// [`Backend::masked_fill_`] on CUDA: `where(mask, value, a)` into a
/// fresh storage, copied back into `a` (two passes; the `where` kernel
/// cannot write one of its own operands).
pub(crate) fn masked_fill_<T: CudaElement>(
    a: Lay<'_, T>,
    mask: Lay<'_, bool>,
    value: T,
) -> Result<(), CudaError> {
    check_inplace(a.dims, &[mask.dims])?;
    check_no_overlap(a.dims, a.strides)?;
    let filled = Owned::new(composite::masked_fill::<T, Cuda>(a, mask, value)?);
    <Cuda as Backend<T>>::binary_(CopyFrom, a, filled.layout())
}

/// [`Backend::masked_select`] on CUDA: the mask's `true` positions are
/// found on the host, then the values are gathered on the device.
pub(crate) fn masked_select<T: CudaElement>(
    a: Lay<'_, T>,
    mask: Lay<'_, bool>,
    dims: &[usize],
) -> Result<Output<CudaStorage<T>>, CudaError> {
    let dev = &a.storage.dev;
    let mstrides = broadcast_strides(mask.dims, mask.strides, dims);
    let keep = <Cuda as Backend<bool>>::to_host(Lay {
        dims,
        strides: &mstrides,
        ..mask
    })?;
    let positions: Vec<i64> = keep
        .iter()
        .enumerate()
        .filter_map(|(i, &m)| m.then_some(i as i64))
        .collect();
    let n = positions.len();
    if n == 0 {
        return fresh_output(dev, &[0]);
    }
    let astrides = broadcast_strides(a.dims, a.strides, dims);
    let values = Owned::new(<Cuda as Backend<T>>::copy(Lay {
        dims,
        strides: &astrides,
        ..a
    })?);
    let numel = [values.layout().numel()];
    let flat = Lay {
        dims: &numel,
        strides: &[1],
        ..values.layout()
    };
    let index = Arc::new(CudaStorage::new(dev.upload(&positions)?, dev.clone()));
    let count = [n];
    let index = Layout {
        storage: &index,
        dims: &count,
        strides: &[1],
        offset: 0,
    };
    <Cuda as Backend<T>>::gather(flat, 0, index)
}
