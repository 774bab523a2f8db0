//! `gather`, `scatter` and `scatter_reduce` on CUDA: the kernels of
//! `source.rs`'s index modules over the index's sizes. Every index value is
//! checked on the device first (the first out-of-range one in row-major
//! order is fetched and reported with PyTorch's message, as the CPU does,
//! before anything is read or written), which costs one synchronisation.

use std::sync::Arc;

use cudarc::driver::{DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg};

use super::elementwise::{KLayout, config};
use super::operands::{check_no_overlap, fresh_output, same_device};
use super::source::index_source;
use super::{CudaDevice, CudaElement, CudaError, CudaStorage};
use crate::backend::layout::Owned;
use crate::backend::op::index::IndexElement;
use crate::backend::primitives::out_of_bounds;
use crate::backend::{Backend, Layout, Output};
use crate::device::Cuda;
use crate::iter::contiguous_strides;

/// A layout of a CUDA storage of `T`.
type Lay<'a, T> = Layout<'a, CudaStorage<T>>;

/// Sizes and strides with a 0-d tensor seen as 1-d of size 1.
fn nonempty(dims: &[usize], strides: &[usize]) -> (Vec<usize>, Vec<usize>) {
    if dims.is_empty() {
        (vec![1], vec![0])
    } else {
        (dims.to_vec(), strides.to_vec())
    }
}

/// The kernel-cache name of the index modules for index type `I`.
fn family<I: IndexElement>() -> &'static str {
    if I::NAME == "int32" {
        "index_i32"
    } else {
        "index_i64"
    }
}

/// Which write a scatter does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Write {
    /// `out[..] = src[..]`.
    Assign,
    /// `out[..] += src[..]` (atomic).
    Add,
    /// `out[..] *= src[..]` (a compare-and-swap loop).
    Prod,
    /// `out[..] = max(out[..], src[..])` (a compare-and-swap loop).
    Amax,
    /// `out[..] = min(out[..], src[..])` (a compare-and-swap loop).
    Amin,
}

/// Checks every index value against `0..size` along `dim` (of the indexed
/// tensor), with PyTorch's message for the first that is not.
fn check_indices<T: CudaElement, I: IndexElement>(
    dev: &CudaDevice,
    l: &KLayout,
    idx: u64,
    (dim, size): (usize, usize),
    n: u64,
) -> Result<(), CudaError> {
    let make = || index_source(T::NAME, I::NAME);
    let stream = dev.stream();
    let mut bad = dev.upload(&[i64::MAX, 0])?;
    {
        let (pb, _sb) = bad.device_ptr_mut(stream);
        let size64 = size as u64;
        let f = dev.kernel((family::<I>(), "", T::NAME, "check"), make)?;
        let mut b = stream.launch_builder(&f);
        b.arg(l).arg(&idx).arg(&size64).arg(&n).arg(&pb);
        // SAFETY: `_check(ShLayout, const I*, u64 size, u64 n, long long*
        // bad)` matches the pushed arguments; `l` reaches only elements of
        // the index's buffer (the caller built it from the index's own
        // sizes, strides and offset); `bad` holds two elements.
        unsafe { b.launch(config(n)) }?;
        let f = dev.kernel((family::<I>(), "", T::NAME, "fetch"), make)?;
        let mut b = stream.launch_builder(&f);
        b.arg(l).arg(&idx).arg(&pb);
        let one = LaunchConfig {
            grid_dim: (1, 1, 1),
            block_dim: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: `_fetch(ShLayout, const I*, long long* bad)` matches; it
        // reads the index at the position `_check` recorded, if any.
        unsafe { b.launch(one) }?;
    }
    let found = stream.clone_dtoh(&bad)?;
    dev.synchronize()?;
    if found[0] != i64::MAX {
        return Err(out_of_bounds(found[1], dim, size).into());
    }
    Ok(())
}

/// Checks every index value, then launches kernel `variant` (`gather`,
/// `scatter`, `scatter_add`) over `l`: operand 0 writes into `out`, 1 reads
/// the index, 2 reads `src`, the indexed operand moving `step` elements per
/// index unit along `dim` (of size `size`). The caller built `l` so that
/// every position it reaches lies within each operand's view once the
/// index values are in `0..size`.
fn run<T: CudaElement, I: IndexElement>(
    dev: &CudaDevice,
    l: &KLayout,
    (out, index, src): (&CudaStorage<T>, &CudaStorage<I>, &CudaStorage<T>),
    (dim, size, step): (usize, usize, usize),
    n: usize,
    variant: &'static str,
) -> Result<(), CudaError> {
    let stream = dev.stream();
    let gi = index.buf.read();
    let (pi, _si) = gi.device_ptr(stream);
    check_indices::<T, I>(dev, l, pi, (dim, size), n as u64)?;
    let gs = src.buf.read();
    let (ps, _ss) = gs.device_ptr(stream);
    let mut go = out.write();
    let (po, _so) = go.device_ptr_mut(stream);
    let f = dev.kernel((family::<I>(), "", T::NAME, variant), || {
        index_source(T::NAME, I::NAME)
    })?;
    let (step, n) = (step as u64, n as u64);
    let mut b = stream.launch_builder(&f);
    b.arg(l).arg(&po).arg(&pi).arg(&ps).arg(&step).arg(&n);
    // SAFETY: `_gather` / `_scatter` / `_scatter_add(ShLayout, T*, const
    // I*, const T*, u64 step, u64 n)` match the pushed arguments; every
    // index value was checked to lie in `0..size`, and the caller built `l`
    // within the operands' views (see its comment at the call).
    unsafe { b.launch(config(n)) }?;
    Ok(())
}

/// [`Backend::gather`] on CUDA.
pub(crate) fn gather<T: CudaElement, I: IndexElement>(
    src: Lay<'_, T>,
    dim: usize,
    index: Lay<'_, I>,
) -> Result<Output<CudaStorage<T>>, CudaError> {
    let dev = src.storage.dev.clone();
    same_device(&dev, &index.storage.dev)?;
    let out = fresh_output::<T>(&dev, index.dims)?;
    let (dims, istr) = nonempty(index.dims, index.strides);
    let n: usize = dims.iter().product();
    if n == 0 {
        return Ok(out);
    }
    let (sdims, mut sstr) = nonempty(src.dims, src.strides);
    let (size, step) = (sdims[dim], sstr[dim]);
    sstr[dim] = 0;
    let ostr = contiguous_strides(&dims);
    let l = KLayout::direct(
        &dims,
        &[(&ostr, 0), (&istr, index.offset), (&sstr, src.offset)],
    )?;
    // Bounds: `out` is fresh and contiguous over the
    // index's sizes; the caller checked that the index's sizes away from
    // `dim` do not exceed `src`'s, so with every index value in
    // `0..size` every read lies within `src`'s view.
    run(
        &dev,
        &l,
        (&out.storage, index.storage, src.storage),
        (dim, size, step),
        n,
        "gather",
    )?;
    Ok(out)
}

/// [`Backend::scatter`] (`Write::Assign`) and [`Backend::scatter_reduce`] (the
/// other writes) on CUDA.
pub(crate) fn scatter<T: CudaElement, I: IndexElement>(
    out: Lay<'_, T>,
    dim: usize,
    index: Lay<'_, I>,
    src: Lay<'_, T>,
    write: Write,
) -> Result<(), CudaError> {
    let dev = &out.storage.dev;
    same_device(dev, &index.storage.dev)?;
    same_device(dev, &src.storage.dev)?;
    check_no_overlap(out.dims, out.strides)?;
    // A source that shares the written buffer is read from a copy; an
    // index that does (an integer tensor scattered into by its own values)
    // is refused, as PyTorch refuses other writes into an input.
    let aliased = |p: *const u8| core::ptr::eq(p, Arc::as_ptr(out.storage) as *const u8);
    if aliased(Arc::as_ptr(index.storage) as *const u8) {
        return Err(CudaError::Shape(crate::shape::ShapeError::Invalid(
            "unsupported operation: the index of a CUDA scatter shares memory with the written tensor. Please clone() the index before performing the operation.".into(),
        )));
    }
    if aliased(Arc::as_ptr(src.storage) as *const u8) {
        let copy = Owned::new(<Cuda as Backend<T>>::copy(src)?);
        return scatter(out, dim, index, copy.layout(), write);
    }
    let (dims, istr) = nonempty(index.dims, index.strides);
    let n: usize = dims.iter().product();
    if n == 0 {
        return Ok(());
    }
    let (odims, mut ostr) = nonempty(out.dims, out.strides);
    let (_, sstr) = nonempty(src.dims, src.strides);
    let (size, step) = (odims[dim], ostr[dim]);
    ostr[dim] = 0;
    let l = KLayout::direct(
        &dims,
        &[
            (&ostr, out.offset),
            (&istr, index.offset),
            (&sstr, src.offset),
        ],
    )?;
    let variant = match write {
        Write::Assign => "scatter",
        Write::Add => "scatter_add",
        Write::Prod => "scatter_prod",
        Write::Amax => "scatter_amax",
        Write::Amin => "scatter_amin",
    };
    // Bounds: the caller checked that the index's sizes fit
    // `out` away from `dim` and `src` everywhere, so with every index value
    // in `0..size` every write lies within `out`'s view and every read
    // within `src`'s; `out`'s elements are distinct and neither input
    // shares its buffer.
    run(
        dev,
        &l,
        (out.storage, index.storage, src.storage),
        (dim, size, step),
        n,
        variant,
    )
}
