//! [`Gemm`] for CUDA: every product laid out by the shape rules
//! (`matmul`, `mm`, `mv`, `bmm`, `dot`, `outer`) as one cuBLAS
//! strided-batched GEMM, and the fused family (`addmm`, ...): the added term
//! broadcast into the output by the copy kernel, then GEMM with `beta`.
//!
//! The batch is one strided-batched GEMM: each operand's batch dimensions
//! (broadcast to the result's) must step by one stride, 0 where the operand
//! is broadcast across the whole batch, and each matrix must be row- or
//! column-major. An operand that is not is first copied (by the copy kernel)
//! into a contiguous `(batch..., rows, cols)` buffer.

use std::sync::Arc;

use super::blas::BlasElement;
use super::elementwise::{Operand, launch};
use super::operands::{fresh_output, same_device};
use super::{CudaDevice, CudaError, CudaStorage, GemmBatch, gemm_strided_batched};
use crate::backend::geometry::{Axes, Batch, Geometry};
use crate::backend::layout::Owned;
use crate::backend::op::Pointwise;
use crate::backend::op::ScalarRhs;
use crate::backend::op::table;
use crate::backend::{Backend, Gemm, Layout, Output};
use crate::device::Cuda;
use crate::element::Numeric;
use crate::iter::{broadcast_strides, contiguous_strides};
use crate::shape::{DimVec, check_expand};

/// One operand seen as a batch of `rows x cols` matrices over `batch`.
struct Side<'a, T> {
    op: Operand<'a, T>,
    /// Strides of the batch dims broadcast to the result's batch.
    batch_strides: DimVec,
    rs: usize,
    cs: usize,
    rows: usize,
    cols: usize,
}

fn side<'a, T>(op: Operand<'a, T>, axes: Axes, batch: &[usize], left: bool) -> Side<'a, T> {
    let get = |axis: Option<usize>| axis.map_or((1, 1), |i| (op.dims[i], op.strides[i]));
    let ((od, os), (id, is)) = (get(axes.outer), get(axes.inner));
    let batch_strides = broadcast_strides(&op.dims[..axes.batch], &op.strides[..axes.batch], batch);
    let (rows, rs, cols, cs) = if left {
        (od, os, id, is)
    } else {
        (id, is, od, os)
    };
    Side {
        op,
        batch_strides,
        rs,
        cs,
        rows,
        cols,
    }
}

/// The one stride that walks the flattened batch, if there is one.
fn single_stride(batch: &[usize], strides: &[usize]) -> Option<usize> {
    let mut expected: Option<usize> = None;
    let mut step = 1usize;
    let mut out = 0usize;
    let mut first = true;
    for (&d, &s) in batch.iter().zip(strides).rev() {
        if d == 1 {
            continue;
        }
        match expected {
            None if first => {
                out = s;
                first = false;
            }
            Some(e) if e == s => {}
            _ => return None,
        }
        step = step.saturating_mul(d);
        expected = Some(out.saturating_mul(step));
    }
    Some(out)
}

/// A copy made for cuBLAS (if one was needed) and how cuBLAS reads it.
type Prepared<T> = (Option<Arc<CudaStorage<T>>>, GemmBatch);

/// The operand as cuBLAS reads it, copying it first when needed; the copy
/// (if any) is returned to keep it alive.
fn prepare<T: BlasElement>(
    dev: &CudaDevice,
    s: &Side<'_, T>,
    batch: &[usize],
) -> Result<Prepared<T>, CudaError> {
    let direct = GemmBatch {
        offset: s.op.offset,
        row_stride: s.rs,
        col_stride: s.cs,
        batch_stride: 0,
    };
    if direct.is_blas_layout(s.rows, s.cols)
        && let Some(bs) = single_stride(batch, &s.batch_strides)
    {
        return Ok((
            None,
            GemmBatch {
                batch_stride: bs,
                ..direct
            },
        ));
    }
    // Copy into a contiguous (batch..., rows, cols) buffer.
    let mut dims: DimVec = batch.iter().copied().collect();
    dims.extend([s.rows, s.cols]);
    let mut strides = s.batch_strides.clone();
    strides.extend([s.rs, s.cs]);
    let n: usize = dims.iter().product();
    let buf = Arc::new(CudaStorage::new(dev.alloc::<T>(n)?, dev.clone()));
    let cs = contiguous_strides(&dims);
    let out = Operand {
        storage: &buf,
        dims: &dims,
        strides: &cs,
        offset: 0,
    };
    let src = Operand {
        storage: s.op.storage,
        dims: &dims,
        strides: &strides,
        offset: s.op.offset,
    };
    launch(dev, &table::Identity::DEF, out, src, &[], T::default())?;
    let g = GemmBatch {
        offset: 0,
        row_stride: s.cols,
        col_stride: 1,
        batch_stride: s.rows * s.cols,
    };
    Ok((Some(buf), g))
}

/// `out = alpha * (a @ b) + beta * out` for the product `geo` describes,
/// `out` contiguous with the product's sizes (its values unread when
/// `beta == 0`); a batch summed into one matrix (`addbmm`) is one GEMM per
/// entry, accumulating from the second on.
fn run<T: BlasElement>(
    a: Operand<'_, T>,
    b: Operand<'_, T>,
    geo: &Geometry,
    alpha: T,
    beta: T,
    out: &CudaStorage<T>,
) -> Result<(), CudaError> {
    let dev = a.storage.dev.clone();
    same_device(&dev, &b.storage.dev)?;
    same_device(&dev, &out.dev)?;
    let (ls, rs) = (
        side(a, geo.lhs, &geo.batch, true),
        side(b, geo.rhs, &geo.batch, false),
    );
    let (ka, ga) = prepare(&dev, &ls, &geo.batch)?;
    let (kb, gb) = prepare(&dev, &rs, &geo.batch)?;
    let nbatch: usize = geo.batch.iter().product();
    let sa = ka.as_deref().unwrap_or(ls.op.storage);
    let sb = kb.as_deref().unwrap_or(rs.op.storage);
    let (bufa, bufb) = (sa.buf.read_recursive(), sb.buf.read_recursive());
    let mut c = out.write();
    match geo.mode {
        Batch::Each => gemm_strided_batched(
            &dev,
            (geo.m, geo.k, geo.n, nbatch),
            (&bufa, ga),
            (&bufb, gb),
            &mut c,
            alpha,
            beta,
        ),
        Batch::Sum => {
            for i in 0..nbatch {
                let entry = |g: GemmBatch| GemmBatch {
                    offset: g.offset + i * g.batch_stride,
                    batch_stride: 0,
                    ..g
                };
                let beta_i = if i == 0 { beta } else { T::one() };
                gemm_strided_batched(
                    &dev,
                    (geo.m, geo.k, geo.n, 1),
                    (&bufa, entry(ga)),
                    (&bufb, entry(gb)),
                    &mut c,
                    alpha,
                    beta_i,
                )?;
            }
            Ok(())
        }
    }
}

/// A CUDA tensor's layout, as the products take it.
type Lay<'a, T> = Layout<'a, CudaStorage<T>>;

/// Runs the product described by `geo` into a new storage.
fn product<T: BlasElement + Numeric>(
    a: Operand<'_, T>,
    b: Operand<'_, T>,
    geo: &Geometry,
    alpha: T,
) -> Result<Output<CudaStorage<T>>, CudaError> {
    let out = Owned::new(fresh_output::<T>(&a.storage.dev, &geo.out)?);
    if geo.k == 0 || geo.batch.contains(&0) {
        // No products to add: zeros (cuBLAS may leave C untouched).
        <Cuda as Backend<T>>::unary_(table::Fill(T::zero()), out.layout())?;
    } else {
        run(a, b, geo, alpha, T::zero(), out.layout().storage)?;
    }
    Ok(out.into_output())
}

impl<T: BlasElement + Numeric> Gemm<T> for Cuda {
    fn product(
        a: Lay<'_, T>,
        b: Lay<'_, T>,
        geo: &Geometry,
        alpha: T,
    ) -> Result<Output<CudaStorage<T>>, CudaError> {
        product(a.into(), b.into(), geo, alpha)
    }

    fn fused(
        c: Lay<'_, T>,
        a: Lay<'_, T>,
        b: Lay<'_, T>,
        geo: &Geometry,
        beta: T,
        alpha: T,
    ) -> Result<Output<CudaStorage<T>>, CudaError> {
        check_expand(c.dims(), &geo.out)?;
        if beta == T::zero() {
            return Self::product(a, b, geo, alpha);
        }
        // The addend broadcast into a fresh contiguous output, then one
        // GEMM with `beta` (or, with no products to add, `beta * c`).
        let c = Operand::from(c);
        let dev = &c.storage.dev;
        let out = Owned::new(fresh_output::<T>(dev, &geo.out)?);
        let o = out.layout();
        launch(dev, &table::Identity::DEF, o.into(), c, &[], T::default())?;
        if geo.k == 0 || geo.batch.contains(&0) {
            <Cuda as Backend<T>>::unary_(ScalarRhs(table::Mul, beta), o)?;
        } else {
            run(a.into(), b.into(), geo, alpha, beta, o.storage)?;
        }
        Ok(out.into_output())
    }

    fn fused_(
        c: Lay<'_, T>,
        a: Lay<'_, T>,
        b: Lay<'_, T>,
        geo: &Geometry,
        beta: T,
        alpha: T,
    ) -> Result<(), CudaError> {
        geo.check_inplace(c.dims())?;
        // Into a fresh buffer (so an operand sharing `c`'s storage is read
        // before it is written), then copied into `c`'s layout.
        let result = Owned::new(Self::fused(c, a, b, geo, beta, alpha)?);
        <Cuda as Backend<T>>::binary_(table::CopyFrom, c, result.layout())
    }
}
