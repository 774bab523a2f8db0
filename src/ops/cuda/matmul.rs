//! `matmul`, `mm` and `bmm` on CUDA tensors through cuBLAS, with the CPU's
//! shape rules (`ops::matmul::rules`) and messages.
//!
//! The batch is one strided-batched GEMM: each operand's batch dimensions
//! (broadcast to the result's) must step by one stride, 0 where the operand
//! is broadcast across the whole batch, and each matrix must be row- or
//! column-major. An operand that is not is first copied (by the copy kernel)
//! into a contiguous `(batch..., rows, cols)` buffer.

use crate::shape::OrPanic;
use std::sync::Arc;

use super::output;
use crate::Tensor;
use crate::backend::cuda::blas::BlasElement;
use crate::backend::cuda::elementwise::{Operand, launch};
use crate::backend::op::Pointwise;
use crate::ops::table;
use crate::backend::cuda::{CudaDevice, CudaError, CudaStorage, GemmBatch, gemm_strided_batched};
use crate::device::Cuda;
use crate::iter::{broadcast_strides, contiguous_strides};
use crate::ops::matmul::rules::{self, Axes, Geometry};
use crate::ops::matmul::{
    BatchOut, BatchShape, ContractsWith, Matmul, MatmulShape, MmWith, SameBatch,
};
use crate::shape::{DimVec, DynRank, Shape};

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

/// Runs the product described by `geo` into a new tensor.
fn product<T: BlasElement>(
    a: Operand<'_, T>,
    b: Operand<'_, T>,
    geo: &Geometry,
) -> Result<Tensor<T, DynRank, Cuda>, CudaError> {
    let dev = a.storage.dev.clone();
    super::same_device(&dev, &b.storage.dev)?;
    let (ls, rs) = (
        side(a, geo.lhs, &geo.batch, true),
        side(b, geo.rhs, &geo.batch, false),
    );
    let (ka, ga) = prepare(&dev, &ls, &geo.batch)?;
    let (kb, gb) = prepare(&dev, &rs, &geo.batch)?;
    let out = output::<T, DynRank>(&dev, &geo.out)?;
    let nbatch: usize = geo.batch.iter().product();
    {
        let sa = ka.as_deref().unwrap_or(ls.op.storage);
        let sb = kb.as_deref().unwrap_or(rs.op.storage);
        let (bufa, bufb) = (sa.buf.read_recursive(), sb.buf.read_recursive());
        let mut c = out.storage.buf.write();
        gemm_strided_batched(
            &dev,
            (geo.m, geo.k, geo.n, nbatch),
            (&bufa, ga),
            (&bufb, gb),
            &mut c,
            T::one(),
            T::zero(),
        )?;
    }
    Ok(out)
}

impl<T: BlasElement, S: Shape> Tensor<T, S, Cuda> {
    /// The matrix product with NumPy's rules, as `torch.matmul`, on the GPU
    /// (`f32`, `f64`) through cuBLAS.
    ///
    /// # Panics
    /// With PyTorch's message when a run-time size does not match, or on a
    /// driver or cuBLAS error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let a = Tensor::<f32, Shape![4, 2, 3]>::ones().to_device(&dev).unwrap();
    ///     let b = Tensor::<f32, Shape![3, 5]>::ones().to_device(&dev).unwrap();
    ///     let c: Tensor<f32, Shape![4, 2, 5], Cuda> = a.matmul(&b);
    ///     assert!(c.to_cpu().unwrap().to_vec().iter().all(|&x| x == 3.));
    /// }
    /// ```
    #[track_caller]
    pub fn matmul<S2: Shape>(&self, other: &Tensor<T, S2, Cuda>) -> Tensor<T, Matmul<S, S2>, Cuda>
    where
        S: MatmulShape<S2>,
    {
        self.try_matmul(other).or_panic()
    }

    /// The fallible form of [`Tensor::matmul`] on CUDA tensors.
    ///
    /// # Errors
    /// PyTorch's shape errors, or a driver or cuBLAS error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let a = shaped::Tensor::<f32, shaped::DynRank>::try_ones(&[2, 3]).unwrap().to_device(&dev).unwrap();
    ///     assert!(a.try_matmul(&a).is_err());
    /// }
    /// ```
    pub fn try_matmul<S2: Shape>(
        &self,
        other: &Tensor<T, S2, Cuda>,
    ) -> Result<Tensor<T, Matmul<S, S2>, Cuda>, CudaError>
    where
        S: MatmulShape<S2>,
    {
        let geo = rules::matmul(self.dims(), other.dims())?;
        Ok(product(self.operand(), other.operand(), &geo)?.try_into_shape()?)
    }

    /// The product of two matrices, as `torch.mm`, on the GPU.
    ///
    /// # Errors
    /// PyTorch's shape errors, or a driver or cuBLAS error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let a = Tensor::<f32, Shape![2, 3]>::ones().to_device(&dev).unwrap();
    ///     let b = Tensor::<f32, Shape![3, 4]>::ones().to_device(&dev).unwrap();
    ///     assert_eq!(a.try_mm(&b).unwrap().dims(), &[2, 4]);
    /// }
    /// ```
    pub fn try_mm<S2: MmWith<S>>(
        &self,
        mat2: &Tensor<T, S2, Cuda>,
    ) -> Result<Tensor<T, S2::Output, Cuda>, CudaError> {
        let geo = rules::mm(self.dims(), mat2.dims())?;
        Ok(product(self.operand(), mat2.operand(), &geo)?.try_into_shape()?)
    }

    /// The product of two matrices, as `torch.mm`, on the GPU.
    ///
    /// # Panics
    /// As [`Tensor::try_mm`]'s errors.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let a = Tensor::<f32, Shape![2, 3]>::ones().to_device(&dev).unwrap();
    ///     let b = Tensor::<f32, Shape![3, 4]>::ones().to_device(&dev).unwrap();
    ///     let c: Tensor<f32, Shape![2, 4], Cuda> = a.mm(&b);
    ///     assert!(c.to_cpu().unwrap().to_vec().iter().all(|&x| x == 3.));
    /// }
    /// ```
    #[track_caller]
    pub fn mm<S2: MmWith<S>>(&self, mat2: &Tensor<T, S2, Cuda>) -> Tensor<T, S2::Output, Cuda> {
        self.try_mm(mat2).or_panic()
    }

    /// Batched matrix products of two 3-d tensors with the same batch, as
    /// `torch.bmm`, on the GPU.
    ///
    /// # Errors
    /// PyTorch's shape errors, or a driver or cuBLAS error.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let a = Tensor::<f32, Shape![2, 2, 3]>::ones().to_device(&dev).unwrap();
    ///     let b = Tensor::<f32, Shape![2, 3, 4]>::ones().to_device(&dev).unwrap();
    ///     assert_eq!(a.try_bmm(&b).unwrap().dims(), &[2, 2, 4]);
    /// }
    /// ```
    pub fn try_bmm<S2: BatchShape>(
        &self,
        batch2: &Tensor<T, S2, Cuda>,
    ) -> Result<Tensor<T, BatchOut<S, S2>, Cuda>, CudaError>
    where
        S: BatchShape,
        S::Batch: SameBatch<S2::Batch>,
        S::Cols: ContractsWith<S2::Rows>,
    {
        let geo = rules::bmm(self.dims(), batch2.dims())?;
        Ok(product(self.operand(), batch2.operand(), &geo)?.try_into_shape()?)
    }

    /// Batched matrix products, as `torch.bmm`, on the GPU.
    ///
    /// # Panics
    /// As [`Tensor::try_bmm`]'s errors.
    ///
    /// ```
    /// use shaped::device::Cuda;
    /// use shaped::{Shape, Tensor};
    /// if let Ok(dev) = Cuda::device(0) {
    ///     let a = Tensor::<f32, Shape![2, 2, 3]>::ones().to_device(&dev).unwrap();
    ///     let b = Tensor::<f32, Shape![2, 3, 4]>::ones().to_device(&dev).unwrap();
    ///     let c: Tensor<f32, Shape![2, 2, 4], Cuda> = a.bmm(&b);
    ///     assert!(c.to_cpu().unwrap().to_vec().iter().all(|&x| x == 3.));
    /// }
    /// ```
    #[track_caller]
    pub fn bmm<S2: BatchShape>(
        &self,
        batch2: &Tensor<T, S2, Cuda>,
    ) -> Tensor<T, BatchOut<S, S2>, Cuda>
    where
        S: BatchShape,
        S::Batch: SameBatch<S2::Batch>,
        S::Cols: ContractsWith<S2::Rows>,
    {
        self.try_bmm(batch2).or_panic()
    }
}

#[cfg(test)]
mod tests {
    use super::single_stride;

    #[test]
    fn batch_strides_collapse_to_one_when_they_chain() {
        assert_eq!(single_stride(&[], &[]), Some(0));
        assert_eq!(single_stride(&[4, 3], &[36, 12]), Some(12));
        assert_eq!(single_stride(&[4, 3], &[0, 0]), Some(0));
        assert_eq!(single_stride(&[4, 1, 3], &[36, 7, 12]), Some(12));
        // Broadcast over one batch dim only, or a gap: no single stride.
        assert_eq!(single_stride(&[4, 3], &[12, 0]), None);
        assert_eq!(single_stride(&[4, 3], &[0, 12]), None);
        assert_eq!(single_stride(&[4, 3], &[40, 12]), None);
    }
}
