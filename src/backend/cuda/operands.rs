//! What every CUDA primitive checks of its operands and allocates for its
//! result: the same-device and overlap checks (PyTorch's messages), new
//! contiguous storages, and a layout made contiguous for a kernel that
//! reads rows. Shared by the primitives (`primitives.rs`), their
//! compositions (`compose.rs`), the index kernels, fills, products and
//! fused kernels.

use std::sync::Arc;

use super::{CudaDevice, CudaElement, CudaError, CudaStorage};
use crate::backend::layout::{Dense, Owned};
use crate::backend::{Backend, Layout, Output};
use crate::device::Cuda;
use crate::iter::contiguous_strides;
use crate::shape::{DimVec, ShapeError};

/// PyTorch's error when operands live on different GPUs.
pub(crate) fn same_device(a: &CudaDevice, b: &CudaDevice) -> Result<(), CudaError> {
    if a != b {
        return Err(CudaError::Shape(ShapeError::Invalid(format!(
            "Expected all tensors to be on the same device, but found at least two devices, cuda:{} and cuda:{}!",
            a.ordinal(),
            b.ordinal()
        ))));
    }
    Ok(())
}

/// PyTorch's refusal to write into a tensor whose elements share memory.
pub(crate) fn check_no_overlap(dims: &[usize], strides: &[usize]) -> Result<(), CudaError> {
    let overlaps = dims.iter().zip(strides).any(|(&d, &s)| d > 1 && s == 0);
    if overlaps && dims.iter().all(|&d| d > 0) {
        return Err(CudaError::Shape(ShapeError::Invalid(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.".into(),
        )));
    }
    Ok(())
}

/// A new contiguous storage of sizes `dims` on `dev` (its elements for the
/// caller's kernel to write), with its row-major strides.
pub(super) fn fresh<O: CudaElement>(
    dev: &CudaDevice,
    dims: &[usize],
) -> Result<(CudaStorage<O>, DimVec), CudaError> {
    let n: usize = dims.iter().product();
    let storage = CudaStorage::new(dev.alloc::<O>(n)?, dev.clone());
    Ok((storage, contiguous_strides(dims)))
}

/// A new contiguous storage of sizes `dims` on `dev` as a backend output,
/// its elements for the caller's kernel to write.
pub(crate) fn fresh_output<O: CudaElement>(
    dev: &CudaDevice,
    dims: &[usize],
) -> Result<Output<CudaStorage<O>>, CudaError> {
    let n: usize = dims.iter().product();
    Ok(Output {
        storage: Arc::new(CudaStorage::new(dev.alloc::<O>(n)?, dev.clone())),
        dims: DimVec::from_slice(dims),
    })
}

/// `l` as it is when contiguous, else its contiguous copy.
pub(crate) fn dense<T: CudaElement>(
    l: Layout<'_, CudaStorage<T>>,
) -> Result<Dense<'_, CudaStorage<T>>, CudaError> {
    if l.is_contiguous() {
        Ok(Dense::Borrowed(l))
    } else {
        Ok(Dense::Copied(Owned::new(<Cuda as Backend<T>>::copy(l)?)))
    }
}
