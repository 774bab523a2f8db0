//! [`Backend`] for the CPU: each primitive hands the op's Rust function to
//! the loops of `exec.rs`, where it is monomorphised as a closure would be
//! (so a table op costs what the closure it replaced cost).

use std::sync::Arc;

use super::compiled;
use super::exec;
use super::exec::{Fresh, Layout};
use super::index::{self, CatPart, Strided};
use super::index_run::{gather_nonempty, scatter_nonempty};
use super::isa::{Narrow, Wide};
use super::reducers::{ArgExtreme, MaxAndSum, Truth};
use super::storage::Storage;
use super::table_f32;
use crate::backend::op::index::{IndexElement, ScatterReduce};
use crate::backend::op::scalar;
use crate::backend::op::{Map1, Map2, Map3, Reduction, Statistic};
use crate::backend::primitives::reduced_dims;
use crate::backend::{Backend, Output};
use crate::device::Cpu;
use crate::element::{CastFrom, Element, Float, Numeric};
use crate::iter::{broadcast_strides, contiguous_strides};
use crate::shape::{DimVec, ShapeError, check_expand, check_inplace};

/// `$compiled`, with `$k` the op's `f32` loops compiled in shaped, when the
/// constant `$loops` (a lookup of `table_f32.rs`) holds them, else the
/// generic loop `$generic`. The test is a `bool` constant, so rustc does
/// not instantiate the branch not taken (`compiled.rs` says why a `match`
/// on the `Option` did). The loops are taken in a constant too: the lookup
/// called at run time walked the table's descriptions on every call (+70
/// instructions for `(8,8) + (8,)` under callgrind).
macro_rules! compiled_or {
    ($loops:expr, |$k:ident| $compiled:expr, $generic:expr $(,)?) => {
        if const { $loops.is_some() } {
            let Some($k) = (const { $loops }) else {
                unreachable!()
            };
            table_f32::check::<T, Op>($k.op);
            $compiled
        } else {
            $generic
        }
    };
}

// The allocating pointwise primitives are `inline(always)`: each is a
// dispatch around its loop plus the `Arc` of its new buffer, and called
// out of line they cost a small op ~40 instructions more (callgrind,
// `(8,8) + (8,)`: 1,200 per call outlined, 1,162 inlined).
impl<T: Element> Backend<T> for Cpu {
    #[inline(always)]
    fn unary<Op: Map1<T>>(op: Op, a: Layout<'_, T>) -> Result<Output<Storage<T>>, ShapeError> {
        let f = compiled_or!(
            table_f32::unary::<T, Op>(),
            |k| (k.map)(op.scalar(), a)?,
            compiled::map1(op, a)?
        );
        Ok(output(f))
    }

    #[inline(always)]
    fn copy(a: Layout<'_, T>) -> Result<Output<Storage<T>>, ShapeError> {
        Ok(output(exec::map1(a, Narrow, |x| x)?))
    }

    #[inline(always)]
    fn cast_from<F: Element>(a: Layout<'_, F>) -> Result<Output<Storage<T>>, ShapeError> {
        Ok(output(exec::map1(a, Narrow, |x| T::cast_from(x))?))
    }

    #[inline(always)]
    fn binary<Op: Map2<T, Out = T>>(
        op: Op,
        a: Layout<'_, T>,
        b: Layout<'_, T>,
    ) -> Result<Output<Storage<T>>, ShapeError> {
        let f = compiled_or!(
            table_f32::binary::<T, Op>(),
            |k| (k.map)(op.scalar(), a, b)?,
            compiled::map2(op, a, b)?
        );
        Ok(output(f))
    }

    #[inline(always)]
    fn compare<Op: Map2<T, Out = bool>>(
        op: Op,
        a: Layout<'_, T>,
        b: Layout<'_, T>,
    ) -> Result<Output<Storage<bool>>, ShapeError> {
        let f = compiled_or!(
            table_f32::compare::<T, Op>(),
            |k| (k.map)(op.scalar(), a, b)?,
            compiled::map2(op, a, b)?
        );
        Ok(output(f))
    }

    fn binary_into<Op: Map2<T, Out = T>>(
        op: Op,
        a: Layout<'_, T>,
        b: Layout<'_, T>,
        out: Layout<'_, T>,
    ) -> Result<(), ShapeError> {
        compiled_or!(
            table_f32::into::<T, Op>(),
            |k| k.into.expect("looked up with an `out=` form")(op.scalar(), a, b, out),
            compiled::map2_into(op, a, b, out)
        )
    }

    #[inline(always)]
    fn ternary<Op: Map3<T, T>>(
        op: Op,
        a: Layout<'_, T>,
        b: Layout<'_, T>,
        c: Layout<'_, T>,
    ) -> Result<Output<Storage<T>>, ShapeError> {
        let f = compiled_or!(
            table_f32::ternary::<T, Op>(),
            |k| (k.map)(op.scalar(), a, b, c)?,
            compiled::map3(op, a, b, c)?
        );
        Ok(output(f))
    }

    #[inline(always)]
    fn select<Op: Map3<bool, T>>(
        op: Op,
        cond: Layout<'_, bool>,
        b: Layout<'_, T>,
        c: Layout<'_, T>,
    ) -> Result<Output<Storage<T>>, ShapeError> {
        let f = compiled_or!(
            table_f32::select::<T, Op>(),
            |k| (k.map)(op.scalar(), cond, b, c)?,
            compiled::map3(op, cond, b, c)?
        );
        Ok(output(f))
    }

    fn unary_<Op: Map1<T>>(op: Op, a: Layout<'_, T>) -> Result<(), ShapeError> {
        compiled_or!(
            table_f32::unary::<T, Op>(),
            |k| (k.update)(op.scalar(), a),
            compiled::update1(op, a)
        )
    }

    fn binary_<Op: Map2<T, Out = T>>(
        op: Op,
        a: Layout<'_, T>,
        b: Layout<'_, T>,
    ) -> Result<(), ShapeError> {
        check_inplace(a.dims, &[b.dims])?;
        compiled_or!(
            table_f32::update2::<T, Op>(),
            |k| k.update.expect("looked up with an in-place form")(op.scalar(), a, b),
            compiled::update2(op, a, b)
        )
    }

    fn ternary_<Op: Map3<T, T>>(
        op: Op,
        a: Layout<'_, T>,
        b: Layout<'_, T>,
        c: Layout<'_, T>,
    ) -> Result<(), ShapeError> {
        check_inplace(a.dims, &[b.dims, c.dims])?;
        compiled_or!(
            table_f32::update3::<T, Op>(),
            |k| k.update.expect("looked up with an in-place form")(op.scalar(), a, b, c),
            compiled::update3(op, a, b, c)
        )
    }

    fn reduce(
        r: Reduction,
        a: Layout<'_, T>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Output<Storage<T>>, ShapeError>
    where
        T: Numeric,
    {
        let data = compiled::reduce(r, a, mask)?;
        Ok(reduced(data, a, mask, keepdim))
    }

    fn statistic(
        s: Statistic,
        a: Layout<'_, T>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Output<Storage<T>>, ShapeError>
    where
        T: Float,
    {
        let data = compiled::statistic(s, a, mask)?;
        Ok(reduced(data, a, mask, keepdim))
    }

    fn truth(
        all: bool,
        a: Layout<'_, T>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Output<Storage<bool>>, ShapeError> {
        let data = if all {
            exec::reduce_vec(a, mask, &Truth::<true>)
        } else {
            exec::reduce_vec(a, mask, &Truth::<false>)
        }?;
        Ok(reduced(data, a, mask, keepdim))
    }

    fn arg_extreme(
        max: bool,
        a: Layout<'_, T>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<(Output<Storage<T>>, Output<Storage<i64>>), ShapeError>
    where
        T: Numeric,
    {
        let pairs = if max {
            exec::reduce_vec(a, mask, &ArgExtreme::<true>)
        } else {
            exec::reduce_vec(a, mask, &ArgExtreme::<false>)
        }?;
        let (values, indices): (Vec<T>, Vec<i64>) = pairs.into_iter().unzip();
        Ok((
            reduced(values, a, mask, keepdim),
            reduced(indices, a, mask, keepdim),
        ))
    }

    fn softmax(a: Layout<'_, T>, dim: usize, log: bool) -> Result<Output<Storage<T>>, ShapeError>
    where
        T: Float,
    {
        if dim + 1 == a.dims.len()
            && let Some(r) = exec::softmax_last(a, log)
        {
            return Ok(output(r?));
        }
        let mask: Vec<bool> = (0..a.dims.len()).map(|k| k == dim).collect();
        let stats = exec::reduce_vec(a, &mask, &MaxAndSum)?;
        let dims = reduced_dims(a.dims, &mask, true);
        let strides = contiguous_strides(&dims);
        let (max, sum): (Vec<T>, Vec<T>) = stats.into_iter().unzip();
        let (max, sum) = (Storage::shared(max), Storage::shared(sum));
        let (m, s) = (
            contiguous(&max, &dims, &strides),
            contiguous(&sum, &dims, &strides),
        );
        Ok(output(if log {
            exec::map3(
                a,
                m,
                s,
                Wide,
                #[inline(always)]
                |x, m, s| x - m - scalar::log(s),
            )?
        } else {
            exec::map3(
                a,
                m,
                s,
                Wide,
                #[inline(always)]
                |x, m, s| scalar::exp(x - m) / s,
            )?
        }))
    }

    fn gather<I: IndexElement>(
        src: Layout<'_, T>,
        dim: usize,
        index: Layout<'_, I>,
    ) -> Result<Output<Storage<T>>, ShapeError> {
        let data = gather_nonempty(src, dim, index)?;
        Ok(whole(data, index.dims))
    }

    fn scatter<I: IndexElement>(
        out: Layout<'_, T>,
        dim: usize,
        index: Layout<'_, I>,
        src: Layout<'_, T>,
    ) -> Result<(), ShapeError> {
        scatter_nonempty(out, dim, index, src, |_, s| s)
    }

    fn scatter_reduce<I: IndexElement>(
        out: Layout<'_, T>,
        dim: usize,
        index: Layout<'_, I>,
        src: Layout<'_, T>,
        reduce: ScatterReduce,
    ) -> Result<(), ShapeError>
    where
        T: Numeric,
    {
        let (o, i, s) = (out, index, src);
        match reduce {
            ScatterReduce::Sum | ScatterReduce::Mean => scatter_nonempty(o, dim, i, s, T::wadd),
            ScatterReduce::Prod => scatter_nonempty(o, dim, i, s, T::wmul),
            ScatterReduce::Amax => scatter_nonempty(o, dim, i, s, scalar::maximum),
            ScatterReduce::Amin => scatter_nonempty(o, dim, i, s, scalar::minimum),
        }
    }

    fn cat(
        parts: &[Layout<'_, T>],
        dim: usize,
        out: &[usize],
    ) -> Result<Output<Storage<T>>, ShapeError> {
        let guards: Vec<_> = parts.iter().map(|p| p.storage.read()).collect();
        let cat_parts: Vec<CatPart<'_, T>> = parts
            .iter()
            .zip(&guards)
            .map(|(p, g)| CatPart {
                src: Strided {
                    data: g,
                    strides: p.strides,
                    offset: p.offset,
                },
                dims: p.dims,
            })
            .collect();
        let data = index::cat(out, dim, &cat_parts)?;
        Ok(whole(data, out))
    }

    fn masked_fill(
        a: Layout<'_, T>,
        mask: Layout<'_, bool>,
        value: T,
    ) -> Result<Output<Storage<T>>, ShapeError> {
        Ok(output(exec::map2(a, mask, Narrow, move |x, m| {
            if m { value } else { x }
        })?))
    }

    fn masked_fill_(a: Layout<'_, T>, mask: Layout<'_, bool>, value: T) -> Result<(), ShapeError> {
        check_inplace(a.dims, &[mask.dims])?;
        exec::update2(a, mask, Narrow, move |x, m| if m { value } else { x })
    }

    fn masked_select(
        a: Layout<'_, T>,
        mask: Layout<'_, bool>,
        dims: &[usize],
    ) -> Result<Output<Storage<T>>, ShapeError> {
        check_expand(a.dims, dims)?;
        check_expand(mask.dims, dims)?;
        let (sa, sm) = (
            broadcast_strides(a.dims, a.strides, dims),
            broadcast_strides(mask.dims, mask.strides, dims),
        );
        let a = Layout {
            dims,
            strides: &sa,
            ..a
        };
        let mask = Layout {
            dims,
            strides: &sm,
            ..mask
        };
        let values = exec::map1(a, Narrow, |x| x)?.into_vec();
        let keep = exec::map1(mask, Narrow, |m| m)?.into_vec();
        let picked: Vec<T> = values
            .into_iter()
            .zip(keep)
            .filter_map(|(v, m)| m.then_some(v))
            .collect();
        let n = picked.len();
        Ok(whole(picked, &[n]))
    }

    fn from_host<U: Element>(
        _like: Layout<'_, U>,
        data: Vec<T>,
        dims: &[usize],
    ) -> Result<Output<Storage<T>>, ShapeError> {
        Ok(whole(data, dims))
    }

    fn to_host(a: Layout<'_, T>) -> Result<Vec<T>, ShapeError> {
        exec::with_elements(a, <[T]>::to_vec)
    }
}

/// A kernel's row-major values of sizes `dims` as a new storage.
pub(super) fn whole<T: 'static>(data: Vec<T>, dims: &[usize]) -> Output<Storage<T>> {
    Output {
        storage: Storage::shared(data),
        dims: DimVec::from_slice(dims),
    }
}

/// A reduction's values (row-major over the kept dimensions of `a`) as a
/// new storage with the reduced sizes.
fn reduced<T, U: 'static>(
    data: Vec<U>,
    a: Layout<'_, T>,
    mask: &[bool],
    keepdim: bool,
) -> Output<Storage<U>> {
    Output {
        storage: Storage::shared(data),
        dims: reduced_dims(a.dims, mask, keepdim),
    }
}

/// The layout of a whole contiguous storage of sizes `dims`.
fn contiguous<'a, T>(
    storage: &'a Arc<Storage<T>>,
    dims: &'a [usize],
    strides: &'a [usize],
) -> Layout<'a, T> {
    crate::backend::Layout {
        storage,
        dims,
        strides,
        offset: 0,
    }
}

/// A CPU kernel's new buffer as the backends' [`Output`].
#[inline(always)]
fn output<T>(f: Fresh<T>) -> Output<Storage<T>> {
    Output {
        storage: f.storage,
        dims: f.dims,
    }
}
