//! Reductions on CUDA tensors, with the CPU's names and shape rules: over
//! all elements (`sum`), one static axis (`sum_dim::<K>`,
//! `sum_dim_keepdim::<K>`) or run-time dims (`try_sum_dims`). Several dims
//! reduce one after another, the highest first (a mean of means over equal
//! counts is the mean).

use super::output;
use crate::Tensor;
use crate::backend::cuda::reductions::{ReduceDef, find_reduction};
use crate::backend::cuda::reduce::reduce as launch_reduce;
use crate::backend::cuda::{CudaElement, CudaError};
use crate::device::Cuda;
use crate::element::{Float, Numeric};
use crate::ops::reduce::axes;
use crate::shape::OrPanic;
use crate::shape::{DynRank, RemoveAxis, Shape, ShapeError};

/// Reduces axis `k` of `t` (contiguous copy first if needed), keeping it
/// with size 1 or not.
fn reduce_axis<T: CudaElement, S: Shape>(
    def: &ReduceDef,
    t: &Tensor<T, S, Cuda>,
    k: usize,
    keepdim: bool,
) -> Result<Tensor<T, DynRank, Cuda>, CudaError> {
    let c = t.contiguous()?;
    let dims = c.dims();
    let outer: usize = dims[..k].iter().product();
    let inner: usize = dims[k + 1..].iter().product();
    let mut out_dims = dims.to_vec();
    if keepdim {
        out_dims[k] = 1;
    } else {
        out_dims.remove(k);
    }
    let out = output::<T, DynRank>(c.device(), &out_dims)?;
    let g = c.storage.buf.read();
    let mut o = out.storage.buf.write();
    launch_reduce(c.device(), def, &g, c.offset, outer, dims[k], inner, &mut o)?;
    drop(o);
    Ok(out)
}

/// Reduces the axes set in `mask`, highest first.
fn reduce_mask<T: CudaElement, S: Shape>(
    def: &ReduceDef,
    nonempty: bool,
    t: &Tensor<T, S, Cuda>,
    mask: &[bool],
    keepdim: bool,
) -> Result<Tensor<T, DynRank, Cuda>, CudaError> {
    if nonempty {
        check_nonempty(def.name, t.dims(), mask)?;
    }
    let rank = t.rank();
    if mask.iter().all(|&m| m) {
        // Every axis (or a 0-d tensor): one pass over the contiguous
        // elements seen as a single row, then the result's sizes.
        let c = t.contiguous()?;
        let flat = Tensor::<T, DynRank, Cuda> {
            storage: c.storage.clone(),
            offset: c.offset,
            dims: smallvec::smallvec![c.numel()],
            strides: smallvec::smallvec![1],
            device: core::marker::PhantomData,
        };
        let r = reduce_axis(def, &flat, 0, false)?;
        let dims: crate::shape::DimVec = if keepdim {
            smallvec::smallvec![1; rank]
        } else {
            Default::default()
        };
        let strides = crate::iter::contiguous_strides(&dims);
        return Ok(Tensor {
            storage: r.storage,
            offset: 0,
            dims,
            strides,
            device: core::marker::PhantomData,
        });
    }
    let mut cur = Tensor::<T, DynRank, Cuda> {
        storage: t.storage.clone(),
        offset: t.offset,
        dims: crate::shape::DimVec::from_slice(t.dims()),
        strides: crate::shape::DimVec::from_slice(t.strides()),
        device: core::marker::PhantomData,
    };
    let mut reduced_any = false;
    for k in (0..rank).rev().filter(|&k| mask[k]) {
        cur = reduce_axis(def, &cur, k, keepdim)?;
        reduced_any = true;
    }
    if !reduced_any {
        cur = cur.deep_copy()?;
    }
    Ok(cur)
}

/// PyTorch's error for `max`/`min` over no elements.
fn check_nonempty(name: &str, dims: &[usize], mask: &[bool]) -> Result<(), CudaError> {
    if mask.iter().all(|&m| m) && dims.contains(&0) {
        return Err(CudaError::Shape(ShapeError::Invalid(format!(
            "{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
        ))));
    }
    if let Some(k) = dims.iter().zip(mask).position(|(&d, &m)| m && d == 0) {
        return Err(CudaError::Shape(ShapeError::Invalid(format!(
            "{name}(): Expected reduction dim {k} to have non-zero size."
        ))));
    }
    Ok(())
}

macro_rules! reductions {
    ($($all:ident, $try_all:ident, $dim:ident, $keep:ident, $try_dims:ident : $bound:ident, $nonempty:literal;)*) => {$(
        impl<T: $bound + CudaElement, S: Shape> Tensor<T, S, Cuda> {
            #[doc = concat!("`torch.", stringify!($all), "` over every element, on the GPU (a 0-d tensor).")]
            ///
            /// # Panics
            /// As [`Tensor::try_sum`]'s errors.
            ///
            /// ```
            /// use shaped::device::Cuda;
            /// use shaped::{Shape, Tensor};
            /// if let Ok(dev) = Cuda::device(0) {
            ///     let a = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]);
            #[doc = concat!("    let g = a.to_device(&dev).unwrap().", stringify!($all), "();")]
            #[doc = concat!("    let want = a.", stringify!($all), "().item();")]
            ///     assert!((g.to_cpu().unwrap().item() - want).abs() <= 1e-5 * want.abs().max(1.0));
            /// }
            /// ```
            #[track_caller]
            pub fn $all(&self) -> Tensor<T, (), Cuda> {
                self.$try_all().or_panic()
            }

            #[doc = concat!("The fallible form of [`Tensor::", stringify!($all), "`] on CUDA tensors.")]
            ///
            /// # Errors
            /// PyTorch's error for `max`/`min` of no elements, or a driver
            /// error.
            pub fn $try_all(&self) -> Result<Tensor<T, (), Cuda>, CudaError> {
                let m = axes::all(self.rank());
                Ok(reduce_mask(find_reduction(stringify!($all)), $nonempty, self, &m, false)?.try_into_shape()?)
            }

            #[doc = concat!("[`Tensor::", stringify!($all), "`] over axis `K`, which the result drops.")]
            ///
            /// # Panics
            /// On PyTorch's error for an empty `max`/`min`, or a driver error.
            #[track_caller]
            pub fn $dim<const K: usize>(&self) -> Tensor<T, <S as RemoveAxis<K>>::Output, Cuda>
            where
                S: RemoveAxis<K>,
            {
                axes::from_axis(K, self.rank())
                    .map_err(CudaError::from)
                    .and_then(|m| reduce_mask(find_reduction(stringify!($all)), $nonempty, self, &m, false))
                    .and_then(|t| Ok(t.try_into_shape()?))
                    .or_panic()
            }

            #[doc = concat!("[`Tensor::", stringify!($all), "`] over axis `K`, which the result keeps with size 1.")]
            ///
            /// # Panics
            /// On PyTorch's error for an empty `max`/`min`, or a driver error.
            #[track_caller]
            pub fn $keep<const K: usize>(&self) -> Tensor<T, <S as RemoveAxis<K>>::KeepDim, Cuda>
            where
                S: RemoveAxis<K>,
            {
                axes::from_axis(K, self.rank())
                    .map_err(CudaError::from)
                    .and_then(|m| reduce_mask(find_reduction(stringify!($all)), $nonempty, self, &m, true))
                    .and_then(|t| Ok(t.try_into_shape()?))
                    .or_panic()
            }

            #[doc = concat!("[`Tensor::", stringify!($all), "`] over the run-time dims `dims` (negative counts from the end; empty means all), into a tensor of dynamic rank.")]
            ///
            /// # Errors
            /// PyTorch's error for a dim out of range or an empty
            /// `max`/`min`, or a driver error.
            pub fn $try_dims(&self, dims: &[isize], keepdim: bool) -> Result<Tensor<T, DynRank, Cuda>, CudaError> {
                let m = axes::from_dims(dims, self.rank())?;
                reduce_mask(find_reduction(stringify!($all)), $nonempty, self, &m, keepdim)
            }
        }
    )*};
}

reductions! {
    sum, try_sum, sum_dim, sum_dim_keepdim, try_sum_dims: Numeric, false;
    prod, try_prod, prod_dim, prod_dim_keepdim, try_prod_dims: Numeric, false;
    max, try_max, max_dim, max_dim_keepdim, try_max_dims: Numeric, true;
    min, try_min, min_dim, min_dim_keepdim, try_min_dims: Numeric, true;
}

reductions! {
    mean, try_mean, mean_dim, mean_dim_keepdim, try_mean_dims: Float, false;
}
