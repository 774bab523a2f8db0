//! The CUDA side of the reductions that are not one combining expression:
//! `var`/`std`, the norms, `logsumexp` and `softmax`/`log_softmax` composed
//! of [`Backend`] primitives (each step one generated kernel, the way
//! PyTorch's composite forms are written); `all`/`any` as a comparison with
//! zero and a `bool` reduction; `argmax`/`argmin` on their own kernels;
//! `cat` as one copy kernel per part into its slice of the result; the
//! masked ops as `where` (and a gather, for `masked_select`).

use crate::tensor::indexing;
use crate::tensor::{pointwise, reduction};
use std::sync::Arc;

use super::primitives::{check_no_overlap, output, reduce_mask};
use super::reduce::arg_reduce;
use super::reductions::find_reduction;
use super::{CudaDevice, CudaElement, CudaError, CudaStorage};
use crate::Tensor;
use crate::backend::op::table::{
    Abs, Add, CopyFrom, Div, Equal, Exp, Log, Mul, NotEqual, Pow, Sqrt, Sub, Where,
};
use crate::backend::op::{Reduction, ScalarRhs, Statistic};
use crate::backend::primitives::reduced_dims;
use crate::device::Cuda;
use crate::element::{Float, Numeric};
use crate::shape::{DimVec, Dyn, DynRank, Shape, check_inplace};

/// A tensor of dynamic rank on the GPU.
type G<T> = Tensor<T, DynRank, Cuda>;

/// A new tensor of sizes `dims` on `dev` holding `value` everywhere.
pub(crate) fn full<T: CudaElement, S: Shape>(
    dev: &CudaDevice,
    dims: &[usize],
    value: T,
) -> Result<Tensor<T, S, Cuda>, CudaError> {
    Ok(Tensor::from_output(super::fill::full(dev, dims, value)?)?)
}

/// The number of elements each output of a reduction over `mask` reduces.
fn count(dims: &[usize], mask: &[bool]) -> usize {
    dims.iter()
        .zip(mask)
        .filter(|(_, m)| **m)
        .map(|(d, _)| d)
        .product()
}

/// [`Backend::statistic`] on CUDA.
pub(crate) fn statistic<T: CudaElement + Float, S: Shape, SO: Shape>(
    s: Statistic,
    a: &Tensor<T, S, Cuda>,
    mask: &[bool],
    keepdim: bool,
) -> Result<Tensor<T, SO, Cuda>, CudaError> {
    let dev = a.device();
    let n = count(a.dims(), mask);
    let out_dims = reduced_dims(a.dims(), mask, keepdim);
    match s {
        Statistic::Variance { correction, sqrt } => {
            // Two passes, as `torch.var`'s composite reference: the mean,
            // then the sum of squared deviations from it.
            let mean: G<T> = reduction::reduce(Reduction::Mean, a, mask, true)?;
            let dev_: G<T> = pointwise::binary(Sub, a, &mean)?;
            let sq: G<T> = pointwise::binary(Mul, &dev_, &dev_)?;
            let ss: Tensor<T, SO, Cuda> = reduction::reduce(Reduction::Sum, &sq, mask, keepdim)?;
            let divisor = T::from_f64((n as f64 - correction as f64).max(0.0));
            let var = pointwise::unary(ScalarRhs(Div, divisor), &ss)?;
            if sqrt {
                pointwise::unary(Sqrt, &var)
            } else {
                Ok(var)
            }
        }
        Statistic::Norm(p) => {
            if n == 0 {
                let empty = if p == f64::NEG_INFINITY {
                    T::infinity()
                } else {
                    T::zero()
                };
                return full(dev, &out_dims, empty);
            }
            let abs = pointwise::unary(Abs, a)?;
            let sum = |t: &G<T>| reduction::reduce(Reduction::Sum, t, mask, keepdim);
            if p == f64::INFINITY {
                reduction::reduce(Reduction::Max, &abs, mask, keepdim)
            } else if p == f64::NEG_INFINITY {
                reduction::reduce(Reduction::Min, &abs, mask, keepdim)
            } else if p == 0.0 {
                let zero: G<T> = full(dev, &[], T::zero())?;
                let one: G<T> = full(dev, &[], T::one())?;
                let nonzero: G<bool> = pointwise::compare(NotEqual, a, &zero)?;
                let counted: G<T> = pointwise::select(Where, &nonzero, &one, &zero)?;
                sum(&counted)
            } else if p == 1.0 {
                sum(&abs.into_dyn())
            } else if p == 2.0 {
                let sq: G<T> = pointwise::binary(Mul, &abs, &abs)?;
                pointwise::unary(Sqrt, &sum(&sq)?)
            } else {
                let powered = pointwise::unary(ScalarRhs(Pow, T::from_f64(p)), &abs.into_dyn())?;
                pointwise::unary(ScalarRhs(Pow, T::from_f64(1.0 / p)), &sum(&powered)?)
            }
        }
        Statistic::LogSumExp => {
            if n == 0 {
                return full(dev, &out_dims, T::neg_infinity());
            }
            // `max + log Σ exp(x - max)`, with an infinite maximum replaced
            // by 0 so that `inf - inf` does not make a NaN (PyTorch's
            // `logsumexp` does the same).
            let m: G<T> = reduction::reduce(Reduction::Max, a, mask, true)?;
            let inf: G<T> = full(dev, &[], T::infinity())?;
            let zero: G<T> = full(dev, &[], T::zero())?;
            let infinite: G<bool> = pointwise::compare(Equal, &pointwise::unary(Abs, &m)?, &inf)?;
            let shift: G<T> = pointwise::select(Where, &infinite, &zero, &m)?;
            let e = pointwise::unary(
                Exp,
                &pointwise::binary::<_, _, _, S, DynRank, DynRank>(Sub, a, &shift)?,
            )?;
            let lse: G<T> =
                pointwise::unary(Log, &reduction::reduce(Reduction::Sum, &e, mask, keepdim)?)?;
            let sizes: Vec<isize> = out_dims.iter().map(|&d| d as isize).collect();
            let shift = shift.try_reshape::<DynRank>(&sizes)?;
            pointwise::binary(Add, &lse, &shift)
        }
    }
}

/// [`Backend::truth`] on CUDA: `a != 0`, then the `bool` reduction.
pub(crate) fn truth<T: CudaElement, S: Shape, SO: Shape>(
    all: bool,
    a: &Tensor<T, S, Cuda>,
    mask: &[bool],
    keepdim: bool,
) -> Result<Tensor<bool, SO, Cuda>, CudaError> {
    let zero: G<T> = full(a.device(), &[], T::default())?;
    let nonzero: G<bool> = pointwise::compare(NotEqual, a, &zero)?;
    let def = find_reduction(if all { "all" } else { "any" });
    reduce_mask(def, &nonzero, mask, keepdim)
}

/// [`Backend::arg_extreme`] on CUDA: one reduced dimension is read in
/// place (after a contiguous copy if needed); several are moved last by a
/// permutation and copied, so that each output's span is one row, whose
/// flat index is the row-major index over the reduced dimensions.
#[allow(clippy::type_complexity)]
pub(crate) fn arg_extreme<T: CudaElement + Numeric, S: Shape, SO: Shape>(
    max: bool,
    a: &Tensor<T, S, Cuda>,
    mask: &[bool],
    keepdim: bool,
) -> Result<(Tensor<T, SO, Cuda>, Tensor<i64, SO, Cuda>), CudaError> {
    let dims = a.dims();
    let reduced: Vec<usize> = (0..dims.len()).filter(|&k| mask[k]).collect();
    let (c, view) = if let [k] = reduced[..] {
        let outer: usize = dims[..k].iter().product();
        let inner: usize = dims[k + 1..].iter().product();
        (a.try_contiguous()?.into_dyn(), (outer, dims[k], inner))
    } else {
        let kept: Vec<usize> = (0..dims.len()).filter(|&k| !mask[k]).collect();
        let perm: Vec<isize> = kept.iter().chain(&reduced).map(|&k| k as isize).collect();
        let moved = a.permute::<DynRank>(&perm)?.try_contiguous()?;
        let outer: usize = kept.iter().map(|&k| dims[k]).product();
        (moved, (outer, count(dims, mask), 1))
    };
    let out_dims = reduced_dims(dims, mask, keepdim);
    let vals = output::<T, SO>(a.device(), &out_dims)?;
    let idx = output::<i64, SO>(a.device(), &out_dims)?;
    {
        let g = c.storage.buf.read();
        let mut v = vals.storage.write();
        let mut i = idx.storage.write();
        arg_reduce(a.device(), max, &g, c.offset, view, &mut v, &mut i)?;
    }
    Ok((vals, idx))
}

/// [`Backend::softmax`] on CUDA: `d = x - max`, then `exp(d) / Σ exp(d)`
/// or `d - log Σ exp(d)` along `dim`.
pub(crate) fn softmax<T: CudaElement + Float, S: Shape>(
    a: &Tensor<T, S, Cuda>,
    dim: usize,
    log: bool,
) -> Result<Tensor<T, S, Cuda>, CudaError> {
    if a.numel() == 0 {
        return pointwise::copy(a);
    }
    let mask: Vec<bool> = (0..a.rank()).map(|k| k == dim).collect();
    let m: G<T> = reduction::reduce(Reduction::Max, a, &mask, true)?;
    let d: Tensor<T, S, Cuda> = pointwise::binary(Sub, a, &m)?;
    let e = pointwise::unary(Exp, &d)?;
    let s: G<T> = reduction::reduce(Reduction::Sum, &e, &mask, true)?;
    if log {
        pointwise::binary(Sub, &d, &pointwise::unary(Log, &s)?)
    } else {
        pointwise::binary(Div, &e, &s)
    }
}

/// [`Backend::cat`] on CUDA: each part copied (the `copy_from` kernel,
/// through the part's strides) into its slice of a fresh contiguous result.
pub(crate) fn cat<T: CudaElement, SO: Shape>(
    parts: &[G<T>],
    dim: usize,
    out: &[usize],
) -> Result<Tensor<T, SO, Cuda>, CudaError> {
    let first = parts.first().expect("the caller checked there are parts");
    let result = output::<T, SO>(first.device(), out)?;
    let strides = crate::iter::contiguous_strides(out);
    let mut start = 0;
    for p in parts {
        let mut slice: G<T> =
            result.view_as(DimVec::from_slice(p.dims()), &strides, start * strides[dim]);
        pointwise::binary_(CopyFrom, &mut slice, p)?;
        start += p.dims()[dim];
    }
    Ok(result)
}

/// [`Backend::masked_fill`] on CUDA: `where(mask, value, a)`.
pub(crate) fn masked_fill<T: CudaElement, S: Shape, SM: Shape, SO: Shape>(
    a: &Tensor<T, S, Cuda>,
    mask: &Tensor<bool, SM, Cuda>,
    value: T,
) -> Result<Tensor<T, SO, Cuda>, CudaError> {
    let v: G<T> = full(a.device(), &[], value)?;
    pointwise::select(Where, mask, &v, a)
}

/// [`Backend::masked_fill_`] on CUDA: `where(mask, value, a)` into a
/// fresh tensor, copied back into `a` (two passes; the `where` kernel
/// cannot write one of its own operands).
pub(crate) fn masked_fill_<T: CudaElement, S: Shape, SM: Shape>(
    a: &mut Tensor<T, S, Cuda>,
    mask: &Tensor<bool, SM, Cuda>,
    value: T,
) -> Result<(), CudaError> {
    check_inplace(a.dims(), &[mask.dims()])?;
    check_no_overlap(a.dims(), a.strides())?;
    let filled: G<T> = masked_fill(a, mask, value)?;
    pointwise::binary_(CopyFrom, a, &filled)
}

/// [`Backend::masked_select`] on CUDA: the mask's `true` positions are
/// found on the host, then the values are gathered on the device.
pub(crate) fn masked_select<T: CudaElement, S: Shape, SM: Shape>(
    a: &Tensor<T, S, Cuda>,
    mask: &Tensor<bool, SM, Cuda>,
    dims: &[usize],
) -> Result<Tensor<T, (Dyn,), Cuda>, CudaError> {
    let dev = a.device();
    let keep = mask.try_broadcast_to::<DynRank>(dims)?.to_cpu()?.to_vec();
    let positions: Vec<i64> = keep
        .iter()
        .enumerate()
        .filter_map(|(i, &m)| m.then_some(i as i64))
        .collect();
    let n = positions.len();
    if n == 0 {
        return output(dev, &[0]);
    }
    let values = pointwise::copy(&a.try_broadcast_to::<DynRank>(dims)?)?;
    let numel = values.numel();
    let flat: G<T> = values.view_as(DimVec::from_slice(&[numel]), &[1], values.offset);
    let buf = Arc::new(CudaStorage::new(dev.upload(&positions)?, dev.clone()));
    let index =
        Tensor::<i64, (Dyn,), Cuda>::from_cuda_parts(buf, <(Dyn,) as Shape>::check_dims(&[n])?);
    indexing::gather(&flat, 0, &index)
}
