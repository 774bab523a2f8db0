//! [`Backend`] for CUDA: each primitive launches the kernel generated from
//! the op's CUDA expression (`source.rs`) over the shared iteration plan
//! (`elementwise.rs`), with the CPU's shape checks and messages.

use std::sync::Arc;

use super::compose;
use super::elementwise::{Operand, launch, launch_cast};
use super::index::{self as index_kernels, Write};
use super::operands::{check_no_overlap, dense, fresh, same_device};
use super::reduce::reduce_mask;
use super::reductions::find_reduction;
use super::{CudaElement, CudaError, CudaStorage};
use crate::backend::composite;
use crate::backend::op::index::{IndexElement, ScatterReduce};
use crate::backend::op::table::Identity;
use crate::backend::op::{Map1, Map2, Map3, OpDef, Pointwise, Reduction, Statistic};
use crate::backend::{Backend, Output};
use crate::device::Cuda;
use crate::element::{Element, Float, Numeric};
use crate::shape::{DimVec, ShapeError, broadcast_pair, check_inplace};

/// Runs `op` on `a` and `rest` broadcast together, into a new storage.
fn apply<A0: CudaElement, T: CudaElement, O: CudaElement>(
    op: &OpDef,
    a: Operand<'_, A0>,
    rest: &[Operand<'_, T>],
    s: T,
) -> Result<Output<CudaStorage<O>>, CudaError> {
    let dev = &a.storage.dev;
    let mut dims = DimVec::from_slice(a.dims);
    for r in rest {
        same_device(dev, &r.storage.dev)?;
        dims = broadcast_pair(&dims, r.dims)?;
    }
    let (storage, strides) = fresh::<O>(dev, &dims)?;
    let out = Operand {
        storage: &storage,
        dims: &dims,
        strides: &strides,
        offset: 0,
    };
    launch(dev, op, out, a, rest, s)?;
    Ok(Output {
        storage: Arc::new(storage),
        dims,
    })
}

/// Runs `op` writing into `target` (which keeps its shape) from `target`
/// itself and `rest`, each of which must expand to `target`'s sizes.
fn apply_<T: CudaElement>(
    op: &OpDef,
    target: Operand<'_, T>,
    rest: &[Operand<'_, T>],
    s: T,
) -> Result<(), CudaError> {
    let dev = &target.storage.dev;
    for r in rest {
        same_device(dev, &r.storage.dev)?;
    }
    let dims: Vec<&[usize]> = rest.iter().map(|r| r.dims).collect();
    check_inplace(target.dims, &dims)?;
    check_no_overlap(target.dims, target.strides)?;
    launch(dev, op, target, target, rest, s)
}

/// A CUDA tensor's layout, as the pointwise primitives take it.
type Lay<'a, T> = crate::backend::Layout<'a, CudaStorage<T>>;

impl<T: CudaElement> Backend<T> for Cuda {
    fn unary<Op: Map1<T>>(op: Op, a: Lay<'_, T>) -> Result<Output<CudaStorage<T>>, CudaError> {
        apply::<T, T, T>(&Op::DEF, a.into(), &[], op.scalar())
    }

    fn copy(a: Lay<'_, T>) -> Result<Output<CudaStorage<T>>, CudaError> {
        apply::<T, T, T>(&<Identity as Pointwise>::DEF, a.into(), &[], T::default())
    }

    fn cast_from<F: Element>(a: Lay<'_, F>) -> Result<Output<CudaStorage<T>>, CudaError>
    where
        Cuda: Backend<F>,
    {
        let src = Operand::from(a);
        let dev = &src.storage.dev;
        let (storage, strides) = fresh::<T>(dev, src.dims)?;
        let out = Operand {
            storage: &storage,
            dims: src.dims,
            strides: &strides,
            offset: 0,
        };
        launch_cast(dev, out, src)?;
        Ok(Output {
            storage: Arc::new(storage),
            dims: DimVec::from_slice(src.dims),
        })
    }

    fn binary<Op: Map2<T, Out = T>>(
        op: Op,
        a: Lay<'_, T>,
        b: Lay<'_, T>,
    ) -> Result<Output<CudaStorage<T>>, CudaError> {
        apply(&Op::DEF, a.into(), &[b.into()], op.scalar())
    }

    fn compare<Op: Map2<T, Out = bool>>(
        op: Op,
        a: Lay<'_, T>,
        b: Lay<'_, T>,
    ) -> Result<Output<CudaStorage<bool>>, CudaError> {
        apply(&Op::DEF, a.into(), &[b.into()], op.scalar())
    }

    fn binary_into<Op: Map2<T, Out = T>>(
        op: Op,
        a: Lay<'_, T>,
        b: Lay<'_, T>,
        out: Lay<'_, T>,
    ) -> Result<(), CudaError> {
        let (a, b, out) = (Operand::from(a), Operand::from(b), Operand::from(out));
        let dev = &out.storage.dev;
        same_device(dev, &a.storage.dev)?;
        same_device(dev, &b.storage.dev)?;
        let dims = broadcast_pair(a.dims, b.dims)?;
        if dims.as_slice() != out.dims {
            return Err(ShapeError::OutputShape {
                output: out.dims.to_vec(),
                broadcast: dims.into_vec(),
            }
            .into());
        }
        check_no_overlap(out.dims, out.strides)?;
        launch(dev, &Op::DEF, out, a, &[b], op.scalar())
    }

    fn ternary<Op: Map3<T, T>>(
        op: Op,
        a: Lay<'_, T>,
        b: Lay<'_, T>,
        c: Lay<'_, T>,
    ) -> Result<Output<CudaStorage<T>>, CudaError> {
        apply(&Op::DEF, a.into(), &[b.into(), c.into()], op.scalar())
    }

    fn select<Op: Map3<bool, T>>(
        op: Op,
        cond: Lay<'_, bool>,
        b: Lay<'_, T>,
        c: Lay<'_, T>,
    ) -> Result<Output<CudaStorage<T>>, CudaError> {
        apply(&Op::DEF, cond.into(), &[b.into(), c.into()], op.scalar())
    }

    fn unary_<Op: Map1<T>>(op: Op, a: Lay<'_, T>) -> Result<(), CudaError> {
        apply_(&Op::DEF, a.into(), &[], op.scalar())
    }

    fn binary_<Op: Map2<T, Out = T>>(
        op: Op,
        a: Lay<'_, T>,
        b: Lay<'_, T>,
    ) -> Result<(), CudaError> {
        apply_(&Op::DEF, a.into(), &[b.into()], op.scalar())
    }

    fn ternary_<Op: Map3<T, T>>(
        op: Op,
        a: Lay<'_, T>,
        b: Lay<'_, T>,
        c: Lay<'_, T>,
    ) -> Result<(), CudaError> {
        apply_(&Op::DEF, a.into(), &[b.into(), c.into()], op.scalar())
    }

    fn reduce(
        r: Reduction,
        a: Lay<'_, T>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Output<CudaStorage<T>>, CudaError>
    where
        T: Numeric,
    {
        let def = find_reduction(r.name());
        reduce_mask(def, a, mask, keepdim)
    }

    fn statistic(
        s: Statistic,
        a: Lay<'_, T>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Output<CudaStorage<T>>, CudaError>
    where
        T: Float,
    {
        composite::statistic::<T, Cuda>(s, a, mask, keepdim)
    }

    fn truth(
        all: bool,
        a: Lay<'_, T>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Output<CudaStorage<bool>>, CudaError> {
        compose::truth(all, a, mask, keepdim)
    }

    fn arg_extreme(
        max: bool,
        a: Lay<'_, T>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<(Output<CudaStorage<T>>, Output<CudaStorage<i64>>), CudaError>
    where
        T: Numeric,
    {
        compose::arg_extreme(max, a, mask, keepdim)
    }

    fn softmax(a: Lay<'_, T>, dim: usize, log: bool) -> Result<Output<CudaStorage<T>>, CudaError>
    where
        T: Float,
    {
        composite::softmax::<T, Cuda>(a, dim, log)
    }

    fn gather<I: IndexElement>(
        src: Lay<'_, T>,
        dim: usize,
        index: Lay<'_, I>,
    ) -> Result<Output<CudaStorage<T>>, CudaError> {
        index_kernels::gather(src, dim, index)
    }

    fn scatter<I: IndexElement>(
        out: Lay<'_, T>,
        dim: usize,
        index: Lay<'_, I>,
        src: Lay<'_, T>,
    ) -> Result<(), CudaError> {
        index_kernels::scatter(out, dim, index, src, Write::Assign)
    }

    fn scatter_reduce<I: IndexElement>(
        out: Lay<'_, T>,
        dim: usize,
        index: Lay<'_, I>,
        src: Lay<'_, T>,
        reduce: ScatterReduce,
    ) -> Result<(), CudaError>
    where
        T: Numeric,
    {
        let write = match reduce {
            ScatterReduce::Sum | ScatterReduce::Mean => Write::Add,
            ScatterReduce::Prod => Write::Prod,
            ScatterReduce::Amax => Write::Amax,
            ScatterReduce::Amin => Write::Amin,
        };
        index_kernels::scatter(out, dim, index, src, write)
    }

    fn cat(
        parts: &[Lay<'_, T>],
        dim: usize,
        out: &[usize],
    ) -> Result<Output<CudaStorage<T>>, CudaError> {
        compose::cat(parts, dim, out)
    }

    fn masked_fill(
        a: Lay<'_, T>,
        mask: Lay<'_, bool>,
        value: T,
    ) -> Result<Output<CudaStorage<T>>, CudaError> {
        composite::masked_fill::<T, Cuda>(a, mask, value)
    }

    fn masked_fill_(a: Lay<'_, T>, mask: Lay<'_, bool>, value: T) -> Result<(), CudaError> {
        compose::masked_fill_(a, mask, value)
    }

    fn masked_select(
        a: Lay<'_, T>,
        mask: Lay<'_, bool>,
        dims: &[usize],
    ) -> Result<Output<CudaStorage<T>>, CudaError> {
        compose::masked_select(a, mask, dims)
    }

    fn from_host<U: Element>(
        like: Lay<'_, U>,
        data: Vec<T>,
        dims: &[usize],
    ) -> Result<Output<CudaStorage<T>>, CudaError> {
        if crate::shape::checked_numel(dims)? != data.len() {
            return Err(ShapeError::Numel {
                shape: dims.to_vec(),
                numel: data.len(),
            }
            .into());
        }
        let dev = &like.storage.dev;
        Ok(Output {
            storage: Arc::new(CudaStorage::new(dev.upload(&data)?, dev.clone())),
            dims: DimVec::from_slice(dims),
        })
    }

    fn to_host(a: Lay<'_, T>) -> Result<Vec<T>, CudaError> {
        let n = a.numel();
        if n == 0 {
            return Ok(Vec::new());
        }
        let c = dense(a)?;
        let c = c.layout();
        let dev = &c.storage.dev;
        let g = c.storage.buf.read();
        let data = dev.stream().clone_dtoh(&g.slice(c.offset..c.offset + n))?;
        // A copy to pageable memory completes before the call returns; the
        // synchronisation also reports errors of earlier asynchronous work.
        dev.synchronize()?;
        Ok(data)
    }
}
