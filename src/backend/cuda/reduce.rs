//! Reductions of a contiguous buffer viewed as `(outer, r, inner)` over the
//! middle dimension: rows (`inner == 1`) reduce with one block per output
//! and warp shuffles; columns (`inner > 1`) with one thread per output,
//! neighbouring threads reading neighbouring elements; a single long row
//! first reduces into per-block partials. Arg-reductions (values and
//! indices) take the same `(outer, r, inner)` view. Over a layout, a
//! reduction of one axis or several ([`reduce_mask`]) is made of these
//! launches.

use cudarc::driver::{CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg};

use super::device::{CudaDevice, CudaElement};
use super::elementwise::config;
use super::operands::{dense, fresh_output};
use super::reductions::ReduceDef;
use super::source::{arg_source, reduce_source};
use super::{CudaError, CudaStorage};
use crate::backend::layout::Owned;
use crate::backend::{Backend, Layout, Output};
use crate::device::Cuda;
use crate::shape::DimVec;

/// Most blocks of the partial pass of a full reduction.
const PARTIALS: u64 = 1024;

/// `out[o * inner + i] = reduce_k in[off + (o * r + k) * inner + i]`
/// (divided by `r` for a mean).
#[allow(clippy::too_many_arguments)]
pub(crate) fn reduce<T: CudaElement>(
    dev: &CudaDevice,
    def: &ReduceDef,
    input: &CudaSlice<T>,
    off: usize,
    outer: usize,
    r: usize,
    inner: usize,
    out: &mut CudaSlice<T>,
) -> Result<(), CudaError> {
    if outer == 0 || inner == 0 {
        return Ok(());
    }
    let make = || reduce_source(def, T::NAME);
    let stream = dev.stream();
    let scale = 1.0 / r as f64;
    let (outer, r64, inner, off) = (outer as u64, r as u64, inner as u64, off as u64);
    let (pi, _si) = input.device_ptr(stream);
    let (po, _so) = out.device_ptr_mut(stream);
    if inner > 1 {
        let f = dev.kernel((def.name, "", T::NAME, "cols"), make)?;
        let cfg = config(outer * inner);
        let mut b = stream.launch_builder(&f);
        b.arg(&po)
            .arg(&pi)
            .arg(&off)
            .arg(&outer)
            .arg(&r64)
            .arg(&inner)
            .arg(&scale);
        // SAFETY: `_cols(T*, const T*, u64 off, u64 outer, u64 r, u64 inner,
        // double)` matches the pushed arguments; the caller guarantees
        // `input` holds `off + outer * r * inner` elements and `out`
        // `outer * inner`; the kernel reads and writes only those.
        unsafe { b.launch(cfg) }?;
        return Ok(());
    }
    let rows_f = dev.kernel((def.name, "", T::NAME, "rows"), make)?;
    if outer == 1 && r64 > 256 * 64 {
        // One long row: per-block partials, then one row over them.
        let blocks = r64.div_ceil(256).min(PARTIALS);
        let mut partials = dev.alloc::<T>(blocks as usize)?;
        let (pp, _sp) = partials.device_ptr_mut(stream);
        let f = dev.kernel((def.name, "", T::NAME, "partial"), make)?;
        let cfg = LaunchConfig {
            grid_dim: (blocks as u32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut b = stream.launch_builder(&f);
        b.arg(&pp).arg(&pi).arg(&off).arg(&r64);
        // SAFETY: `_partial(T*, const T*, u64 off, u64 n)`; `partials` has
        // one element per block, `input` at least `off + r` elements.
        unsafe { b.launch(cfg) }?;
        let (zero, one) = (0u64, 1u64);
        let mut b = stream.launch_builder(&rows_f);
        b.arg(&po)
            .arg(&pp)
            .arg(&zero)
            .arg(&one)
            .arg(&blocks)
            .arg(&scale);
        // SAFETY: `_rows(T*, const T*, u64 off, u64 rows, u64 r, double)`
        // over one row of `blocks` partials, written to `out[0]`.
        unsafe { b.launch(cfg_rows(1, blocks)) }?;
        drop(_sp);
        return Ok(());
    }
    let mut b = stream.launch_builder(&rows_f);
    b.arg(&po)
        .arg(&pi)
        .arg(&off)
        .arg(&outer)
        .arg(&r64)
        .arg(&scale);
    // SAFETY: `_rows(T*, const T*, u64 off, u64 rows, u64 r, double)`; the
    // caller guarantees `input` holds `off + outer * r` elements and `out`
    // `outer`.
    unsafe { b.launch(cfg_rows(outer, r64)) }?;
    Ok(())
}

/// One block per row (up to 65535 blocks, grid-strided beyond), with a
/// multiple of 32 threads, no more than the row needs.
fn cfg_rows(rows: u64, r: u64) -> LaunchConfig {
    let threads = r.clamp(1, 256).div_ceil(32) * 32;
    LaunchConfig {
        grid_dim: (rows.clamp(1, 65535) as u32, 1, 1),
        block_dim: (threads as u32, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// `vals[o * inner + i]`, `idx[o * inner + i]`: the largest (`max`) or
/// smallest of `in[off + (o * r + k) * inner + i]` over `k` and its `k`
/// (the first of equal values; a NaN beats everything). `r` must be at
/// least 1 where there are outputs.
#[allow(clippy::too_many_arguments)]
pub(crate) fn arg_reduce<T: CudaElement>(
    dev: &CudaDevice,
    max: bool,
    input: &CudaSlice<T>,
    off: usize,
    (outer, r, inner): (usize, usize, usize),
    vals: &mut CudaSlice<T>,
    idx: &mut CudaSlice<i64>,
) -> Result<(), CudaError> {
    if outer == 0 || inner == 0 {
        return Ok(());
    }
    let name = if max { "argmax" } else { "argmin" };
    let make = || arg_source(max, T::NAME);
    let stream = dev.stream();
    let (outer, r, inner, off) = (outer as u64, r as u64, inner as u64, off as u64);
    let (pi, _si) = input.device_ptr(stream);
    let (pv, _sv) = vals.device_ptr_mut(stream);
    let (px, _sx) = idx.device_ptr_mut(stream);
    if inner == 1 {
        let f = dev.kernel((name, "", T::NAME, "rows"), make)?;
        let cfg = LaunchConfig {
            grid_dim: (outer.clamp(1, 65535) as u32, 1, 1),
            block_dim: (256, 1, 1),
            shared_mem_bytes: 0,
        };
        let mut b = stream.launch_builder(&f);
        b.arg(&pv).arg(&px).arg(&pi).arg(&off).arg(&outer).arg(&r);
        // SAFETY: `_rows(T*, long long*, const T*, u64 off, u64 rows, u64 r)`
        // with 256 threads (the size of its shared arrays) matches the
        // pushed arguments; `input` holds `off + outer * r` elements, `vals`
        // and `idx` `outer` each.
        unsafe { b.launch(cfg) }?;
        return Ok(());
    }
    let f = dev.kernel((name, "", T::NAME, "cols"), make)?;
    let cfg = config(outer * inner);
    let mut b = stream.launch_builder(&f);
    b.arg(&pv)
        .arg(&px)
        .arg(&pi)
        .arg(&off)
        .arg(&outer)
        .arg(&r)
        .arg(&inner);
    // SAFETY: `_cols(T*, long long*, const T*, u64 off, u64 outer, u64 r,
    // u64 inner)` matches the pushed arguments; `input` holds
    // `off + outer * r * inner` elements, `vals` and `idx` `outer * inner`.
    unsafe { b.launch(cfg) }?;
    Ok(())
}

/// `def` over axis `k` of `l` (made contiguous first): `outer` rows of
/// `r` reduced elements `inner` apart.
fn reduce_axis<T: CudaElement>(
    def: &ReduceDef,
    l: Layout<'_, CudaStorage<T>>,
    k: usize,
    keepdim: bool,
) -> Result<Output<CudaStorage<T>>, CudaError> {
    let c = dense(l)?;
    let c = c.layout();
    let dims = c.dims;
    let outer: usize = dims[..k].iter().product();
    let inner: usize = dims[k + 1..].iter().product();
    let mut out_dims = dims.to_vec();
    if keepdim {
        out_dims[k] = 1;
    } else {
        out_dims.remove(k);
    }
    let dev = &c.storage.dev;
    let out = fresh_output::<T>(dev, &out_dims)?;
    let g = c.storage.buf.read();
    let mut o = out.storage.write();
    reduce(dev, def, &g, c.offset, outer, dims[k], inner, &mut o)?;
    drop(o);
    Ok(out)
}

/// `def` over the axes in `mask`: every axis in one pass over the
/// contiguous elements, else one axis after another, the highest first (a
/// mean of means over equal counts is the mean).
pub(crate) fn reduce_mask<T: CudaElement>(
    def: &ReduceDef,
    a: Layout<'_, CudaStorage<T>>,
    mask: &[bool],
    keepdim: bool,
) -> Result<Output<CudaStorage<T>>, CudaError> {
    let rank = a.dims.len();
    if mask.iter().all(|&m| m) {
        let c = dense(a)?;
        let c = c.layout();
        let n = [c.numel()];
        let flat = Layout {
            dims: &n,
            strides: &[1],
            ..c
        };
        let r = reduce_axis(def, flat, 0, false)?;
        let dims: DimVec = if keepdim {
            smallvec::smallvec![1; rank]
        } else {
            DimVec::new()
        };
        return Ok(Output {
            storage: r.storage,
            dims,
        });
    }
    if mask.iter().all(|&m| !m) {
        return <Cuda as Backend<T>>::copy(a);
    }
    let mut cur: Option<Owned<CudaStorage<T>>> = None;
    for k in (0..rank).rev().filter(|&k| mask[k]) {
        let next = match &cur {
            None => reduce_axis(def, a, k, keepdim)?,
            Some(c) => reduce_axis(def, c.layout(), k, keepdim)?,
        };
        cur = Some(Owned::new(next));
    }
    Ok(cur.expect("some axis is reduced").into_output())
}
