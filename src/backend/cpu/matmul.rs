//! [`Gemm`] for the CPU: tensor layouts and a [`Geometry`] in, one batched
//! GEMM problem out to the kernels of `gemm.rs`. Generic over the element
//! type only, so it is compiled once per element type, not per shape.
//!
//! Every product reaches the kernel through [`product`] (a new result) or
//! [`accumulate`] (an existing destination, for the fused products); both
//! hand `f16` and `bf16` to `widened.rs`, so that all of them accumulate in
//! `f32` and round once, the fused ones' `beta * c` term included.

use super::exec::{self, Fresh, Layout, check_no_internal_overlap};
use super::gemm::{Accum, Batches, GemmProblem, MatDesc, gemm_into, gemm_new};
use super::isa::Narrow;
use super::locks::{read2_write, same_storage};
use super::primitives::whole;
use super::storage::Storage;
use crate::backend::geometry::{Axes, Batch, Geometry};
use crate::backend::layout::Owned;
use crate::backend::{Gemm, Output};
use crate::device::Cpu;
use crate::element::Numeric;
use crate::iter::broadcast_strides;
use crate::shape::{DimVec, ShapeError, check_expand};

/// Which side of the product an operand is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Left,
    Right,
}

/// An operand's place in the batched product: its batch strides broadcast to
/// the product's batch (0 where expanded or missing), and its row and column
/// strides. A promoted size-1 axis gets stride 1, which is never stepped.
fn operand<T>(l: &Layout<'_, T>, axes: Axes, batch: &[usize], side: Side) -> MatDesc {
    let stride = |axis: Option<usize>| axis.map_or(1, |i| l.strides[i]);
    let (outer, inner) = (stride(axes.outer), stride(axes.inner));
    let (rs, cs) = match side {
        Side::Left => (outer, inner),
        Side::Right => (inner, outer),
    };
    MatDesc {
        offset: l.offset,
        batch_strides: broadcast_strides(&l.dims[..axes.batch], &l.strides[..axes.batch], batch),
        rs,
        cs,
    }
}

/// The result's place in the batched product, from its strides: batch
/// dimensions first (none when the batch is summed), then the rows and the
/// columns where the operands have them.
fn destination(strides: &[usize], offset: usize, geo: &Geometry) -> MatDesc {
    let lead = match geo.mode {
        Batch::Each => geo.batch.len(),
        Batch::Sum => 0,
    };
    let mut axis = lead;
    let mut next = |present: bool| {
        if !present {
            return 1;
        }
        axis += 1;
        strides[axis - 1]
    };
    let rs = next(geo.lhs.outer.is_some());
    let cs = next(geo.rhs.outer.is_some());
    let batch_strides = match geo.mode {
        Batch::Each => DimVec::from_slice(&strides[..lead]),
        Batch::Sum => smallvec::smallvec![0; geo.batch.len()],
    };
    MatDesc {
        offset,
        batch_strides,
        rs,
        cs,
    }
}

fn problem<T>(geo: &Geometry, a: &Layout<'_, T>, b: &Layout<'_, T>) -> GemmProblem {
    GemmProblem {
        m: geo.m,
        n: geo.n,
        k: geo.k,
        batch: geo.batch.clone(),
        batches: match geo.mode {
            Batch::Each => Batches::Each,
            Batch::Sum => Batches::Sum,
        },
        lhs: operand(a, geo.lhs, &geo.batch, Side::Left),
        rhs: operand(b, geo.rhs, &geo.batch, Side::Right),
    }
}

/// `alpha * (a @ b)` into a new contiguous storage of sizes `geo.out`
/// (computed in `f32` for `f16` and `bf16`); an error when its buffer cannot
/// be allocated.
pub(super) fn product<T: Numeric>(
    a: Layout<'_, T>,
    b: Layout<'_, T>,
    geo: &Geometry,
    alpha: T,
) -> Result<Output<Storage<T>>, ShapeError> {
    if T::MATMUL_IN_F32 {
        return super::widened::product(a, b, geo, alpha);
    }
    let p = problem(geo, &a, &b);
    let (ga, gb) = (a.storage.read(), b.storage.read());
    let data = gemm_new(&p, &ga, &gb, alpha)?;
    Ok(whole(data, &geo.out))
}

/// `out = beta * out + alpha * (a @ b)` (`out`'s values ignored when
/// `beta == 0`; computed in `f32` and rounded once for `f16` and `bf16`),
/// where `out` has the product's sizes, distinct elements, and a storage of
/// its own; an error only when the widened copies cannot be allocated.
pub(super) fn accumulate<T: Numeric>(
    out: Layout<'_, T>,
    a: Layout<'_, T>,
    b: Layout<'_, T>,
    geo: &Geometry,
    beta: T,
    alpha: T,
) -> Result<(), ShapeError> {
    if T::MATMUL_IN_F32 {
        return super::widened::accumulate(out, a, b, geo, beta, alpha);
    }
    let accum = if beta == T::zero() {
        Accum::Replace
    } else {
        Accum::Add(beta)
    };
    let p = problem(geo, &a, &b);
    let dst = destination(out.strides, out.offset, geo);
    // The lock order (`backend::cpu::locks`), so that two threads writing each
    // other's operands cannot deadlock.
    let (ga, gb, mut g) = read2_write(a.storage, b.storage, out.storage);
    gemm_into(&p, dst, &mut g, &ga, &gb, alpha, accum);
    Ok(())
}

/// A kernel's new buffer, seen whole.
pub(super) fn fresh<T>(f: Fresh<T>) -> Owned<Storage<T>> {
    Owned::new(Output {
        storage: f.storage,
        dims: f.dims,
    })
}

/// `product` makes a new result; `fused` broadcasts `c` into a new buffer
/// (its values unread when `beta == 0`) and accumulates into it; `fused_`
/// accumulates into `c` itself, reading an operand that shares `c`'s
/// storage from a copy, so that the kernel never reads what it writes.
impl<T: Numeric> Gemm<T> for Cpu {
    fn product(
        a: Layout<'_, T>,
        b: Layout<'_, T>,
        geo: &Geometry,
        alpha: T,
    ) -> Result<Output<Storage<T>>, ShapeError> {
        product(a, b, geo, alpha)
    }

    fn fused(
        c: Layout<'_, T>,
        a: Layout<'_, T>,
        b: Layout<'_, T>,
        geo: &Geometry,
        beta: T,
        alpha: T,
    ) -> Result<Output<Storage<T>>, ShapeError> {
        check_expand(c.dims, &geo.out)?;
        if beta == T::zero() {
            return product(a, b, geo, alpha);
        }
        let strides = broadcast_strides(c.dims, c.strides, &geo.out);
        let expanded = Layout {
            dims: &geo.out,
            strides: &strides,
            ..c
        };
        let out = fresh(exec::map1(expanded, Narrow, |x| x)?);
        accumulate(out.layout(), a, b, geo, beta, alpha)?;
        Ok(out.into_output())
    }

    fn fused_(
        c: Layout<'_, T>,
        a: Layout<'_, T>,
        b: Layout<'_, T>,
        geo: &Geometry,
        beta: T,
        alpha: T,
    ) -> Result<(), ShapeError> {
        geo.check_inplace(c.dims)?;
        check_no_internal_overlap(&c)?;
        // An operand that shares `c`'s storage is read from a copy, so that the
        // kernel never reads what it writes.
        if same_storage(c.storage, a.storage) {
            let copy = fresh(exec::map1(a, Narrow, |x| x)?);
            return Self::fused_(c, copy.layout(), b, geo, beta, alpha);
        }
        if same_storage(c.storage, b.storage) {
            let copy = fresh(exec::map1(b, Narrow, |x| x)?);
            return Self::fused_(c, a, copy.layout(), geo, beta, alpha);
        }
        accumulate(c, a, b, geo, beta, alpha)
    }
}
