//! [`Backend`] for the CPU: each primitive hands the op's Rust function to
//! the loops of `exec.rs`, where it is monomorphised as a closure would be
//! (so a table op costs what the closure it replaced cost).

use super::compiled;
use super::exec;
use super::exec::{Fresh, Layout};
use super::index::{self, CatPart, Strided};
use super::index_run::{gather_nonempty, scatter_nonempty};
use super::isa::{Narrow, Wide};
use super::reducers::{ArgExtreme, MaxAndSum, Truth};
use super::storage::Storage;
use crate::Tensor;
use crate::backend::op::index::{IndexElement, ScatterReduce};
use crate::backend::op::scalar;
use crate::backend::op::{Map1, Map2, Map3, Reduction, Statistic};
use crate::backend::primitives::reduced_dims;
use crate::backend::{Backend, Output};
use crate::device::Cpu;
use crate::element::{CastFrom, Element, Float, Numeric};
use crate::shape::{Dyn, DynRank, Shape, ShapeError, check_inplace};

impl<T: Element> Backend<T> for Cpu {
    fn unary<Op: Map1<T>>(op: Op, a: Layout<'_, T>) -> Result<Output<Storage<T>>, ShapeError> {
        let f = match const { Op::CPU } {
            Some(k) => {
                compiled::check_f32::<T>();
                (k.map)(op.scalar(), a)?
            }
            None => compiled::map1(op, a)?,
        };
        Ok(output(f))
    }

    fn copy(a: Layout<'_, T>) -> Result<Output<Storage<T>>, ShapeError> {
        Ok(output(exec::map1(a, Narrow, |x| x)?))
    }

    fn cast_from<F: Element>(a: Layout<'_, F>) -> Result<Output<Storage<T>>, ShapeError> {
        Ok(output(exec::map1(a, Narrow, |x| T::cast_from(x))?))
    }

    fn binary<Op: Map2<T, Out = T>>(
        op: Op,
        a: Layout<'_, T>,
        b: Layout<'_, T>,
    ) -> Result<Output<Storage<T>>, ShapeError> {
        let f = match const { Op::CPU } {
            Some(k) => {
                compiled::check_f32::<T>();
                (k.map)(op.scalar(), a, b)?
            }
            None => compiled::map2(op, a, b)?,
        };
        Ok(output(f))
    }

    fn compare<Op: Map2<T, Out = bool>>(
        op: Op,
        a: Layout<'_, T>,
        b: Layout<'_, T>,
    ) -> Result<Output<Storage<bool>>, ShapeError> {
        let f = match const { Op::CPU } {
            Some(k) => {
                compiled::check_f32::<T>();
                (k.map)(op.scalar(), a, b)?
            }
            None => compiled::map2(op, a, b)?,
        };
        Ok(output(f))
    }

    fn binary_into<Op: Map2<T, Out = T>>(
        op: Op,
        a: Layout<'_, T>,
        b: Layout<'_, T>,
        out: Layout<'_, T>,
    ) -> Result<(), ShapeError> {
        match const { compiled::into_of::<T, Op>() } {
            Some(k) => {
                compiled::check_f32::<T>();
                k(op.scalar(), a, b, out)
            }
            None => compiled::map2_into(op, a, b, out),
        }
    }

    fn ternary<Op: Map3<T, T>>(
        op: Op,
        a: Layout<'_, T>,
        b: Layout<'_, T>,
        c: Layout<'_, T>,
    ) -> Result<Output<Storage<T>>, ShapeError> {
        let f = match const { Op::CPU } {
            Some(k) => {
                compiled::check_f32::<T>();
                (k.map)(op.scalar(), a, b, c)?
            }
            None => compiled::map3(op, a, b, c)?,
        };
        Ok(output(f))
    }

    fn select<Op: Map3<bool, T>>(
        op: Op,
        cond: Layout<'_, bool>,
        b: Layout<'_, T>,
        c: Layout<'_, T>,
    ) -> Result<Output<Storage<T>>, ShapeError> {
        let f = match const { Op::CPU } {
            Some(k) => {
                compiled::check_f32::<T>();
                (k.map)(op.scalar(), cond, b, c)?
            }
            None => compiled::map3(op, cond, b, c)?,
        };
        Ok(output(f))
    }

    fn unary_<Op: Map1<T>>(op: Op, a: Layout<'_, T>) -> Result<(), ShapeError> {
        match const { Op::CPU } {
            Some(k) => {
                compiled::check_f32::<T>();
                (k.update)(op.scalar(), a)
            }
            None => compiled::update1(op, a),
        }
    }

    fn binary_<Op: Map2<T, Out = T>>(
        op: Op,
        a: Layout<'_, T>,
        b: Layout<'_, T>,
    ) -> Result<(), ShapeError> {
        check_inplace(a.dims, &[b.dims])?;
        match const { compiled::update2_of::<T, Op>() } {
            Some(k) => {
                compiled::check_f32::<T>();
                k(op.scalar(), a, b)
            }
            None => compiled::update2(op, a, b),
        }
    }

    fn ternary_<Op: Map3<T, T>>(
        op: Op,
        a: Layout<'_, T>,
        b: Layout<'_, T>,
        c: Layout<'_, T>,
    ) -> Result<(), ShapeError> {
        check_inplace(a.dims, &[b.dims, c.dims])?;
        match const { compiled::update3_of::<T, Op>() } {
            Some(k) => {
                compiled::check_f32::<T>();
                k(op.scalar(), a, b, c)
            }
            None => compiled::update3(op, a, b, c),
        }
    }

    fn reduce<S: Shape, SO: Shape>(
        r: Reduction,
        a: &Tensor<T, S>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Tensor<T, SO>, ShapeError>
    where
        T: Numeric,
    {
        let data = compiled::reduce(r, a.layout(), mask)?;
        Tensor::try_from_vec(data, &reduced_dims(a.dims(), mask, keepdim))
    }

    fn statistic<S: Shape, SO: Shape>(
        s: Statistic,
        a: &Tensor<T, S>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Tensor<T, SO>, ShapeError>
    where
        T: Float,
    {
        let data = compiled::statistic(s, a.layout(), mask)?;
        Tensor::try_from_vec(data, &reduced_dims(a.dims(), mask, keepdim))
    }

    fn truth<S: Shape, SO: Shape>(
        all: bool,
        a: &Tensor<T, S>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<Tensor<bool, SO>, ShapeError> {
        let data = if all {
            exec::reduce_vec(a.layout(), mask, &Truth::<true>)
        } else {
            exec::reduce_vec(a.layout(), mask, &Truth::<false>)
        }?;
        Tensor::try_from_vec(data, &reduced_dims(a.dims(), mask, keepdim))
    }

    fn arg_extreme<S: Shape, SO: Shape>(
        max: bool,
        a: &Tensor<T, S>,
        mask: &[bool],
        keepdim: bool,
    ) -> Result<(Tensor<T, SO>, Tensor<i64, SO>), ShapeError>
    where
        T: Numeric,
    {
        let pairs = if max {
            exec::reduce_vec(a.layout(), mask, &ArgExtreme::<true>)
        } else {
            exec::reduce_vec(a.layout(), mask, &ArgExtreme::<false>)
        }?;
        let dims = reduced_dims(a.dims(), mask, keepdim);
        let (values, indices): (Vec<T>, Vec<i64>) = pairs.into_iter().unzip();
        Ok((
            Tensor::try_from_vec(values, &dims)?,
            Tensor::try_from_vec(indices, &dims)?,
        ))
    }

    fn softmax<S: Shape>(
        a: &Tensor<T, S>,
        dim: usize,
        log: bool,
    ) -> Result<Tensor<T, S>, ShapeError>
    where
        T: Float,
    {
        if dim + 1 == a.rank()
            && let Some(r) = exec::softmax_last(a.layout(), log)
        {
            return Tensor::from_fresh(r?);
        }
        let mask: Vec<bool> = (0..a.rank()).map(|k| k == dim).collect();
        let stats = exec::reduce_vec(a.layout(), &mask, &MaxAndSum)?;
        let dims = reduced_dims(a.dims(), &mask, true);
        let (max, sum): (Vec<T>, Vec<T>) = stats.into_iter().unzip();
        let max = Tensor::<T, DynRank>::try_from_vec(max, &dims)?;
        let sum = Tensor::<T, DynRank>::try_from_vec(sum, &dims)?;
        let (l, m, s) = (a.layout(), max.layout(), sum.layout());
        Tensor::from_fresh(if log {
            exec::map3(
                l,
                m,
                s,
                Wide,
                #[inline(always)]
                |x, m, s| x - m - scalar::log(s),
            )?
        } else {
            exec::map3(
                l,
                m,
                s,
                Wide,
                #[inline(always)]
                |x, m, s| scalar::exp(x - m) / s,
            )?
        })
    }

    fn gather<I: IndexElement, S1: Shape, SI: Shape, SO: Shape>(
        src: &Tensor<T, S1>,
        dim: usize,
        index: &Tensor<I, SI>,
    ) -> Result<Tensor<T, SO>, ShapeError> {
        let data = gather_nonempty(src.layout(), dim, index.layout())?;
        Tensor::try_from_vec(data, index.dims())
    }

    fn scatter<I: IndexElement, S: Shape, SI: Shape, S2: Shape>(
        out: &mut Tensor<T, S>,
        dim: usize,
        index: &Tensor<I, SI>,
        src: &Tensor<T, S2>,
    ) -> Result<(), ShapeError> {
        scatter_with(out, dim, index, src, |_, s| s)
    }

    fn scatter_add<I: IndexElement, S: Shape, SI: Shape, S2: Shape>(
        out: &mut Tensor<T, S>,
        dim: usize,
        index: &Tensor<I, SI>,
        src: &Tensor<T, S2>,
    ) -> Result<(), ShapeError>
    where
        T: Numeric,
    {
        scatter_with(out, dim, index, src, |a, b| a.wadd(b))
    }

    fn scatter_reduce<I: IndexElement, S: Shape, SI: Shape, S2: Shape>(
        out: &mut Tensor<T, S>,
        dim: usize,
        index: &Tensor<I, SI>,
        src: &Tensor<T, S2>,
        reduce: ScatterReduce,
    ) -> Result<(), ShapeError>
    where
        T: Numeric,
    {
        match reduce {
            ScatterReduce::Sum | ScatterReduce::Mean => scatter_with(out, dim, index, src, T::wadd),
            ScatterReduce::Prod => scatter_with(out, dim, index, src, T::wmul),
            ScatterReduce::Amax => scatter_with(out, dim, index, src, scalar::maximum),
            ScatterReduce::Amin => scatter_with(out, dim, index, src, scalar::minimum),
        }
    }

    fn cat<SO: Shape>(
        parts: &[Tensor<T, DynRank>],
        dim: usize,
        out: &[usize],
    ) -> Result<Tensor<T, SO>, ShapeError> {
        let guards: Vec<_> = parts.iter().map(|p| p.storage.read()).collect();
        let cat_parts: Vec<CatPart<'_, T>> = parts
            .iter()
            .zip(&guards)
            .map(|(p, g)| CatPart {
                src: Strided {
                    data: g,
                    strides: p.strides(),
                    offset: p.offset,
                },
                dims: p.dims(),
            })
            .collect();
        let data = index::cat(out, dim, &cat_parts)?;
        Tensor::try_from_vec(data, out)
    }

    fn masked_fill<S: Shape, SM: Shape, SO: Shape>(
        a: &Tensor<T, S>,
        mask: &Tensor<bool, SM>,
        value: T,
    ) -> Result<Tensor<T, SO>, ShapeError> {
        Tensor::from_fresh(exec::map2(
            a.layout(),
            mask.layout(),
            Narrow,
            move |x, m| {
                if m { value } else { x }
            },
        )?)
    }

    fn masked_fill_<S: Shape, SM: Shape>(
        a: &mut Tensor<T, S>,
        mask: &Tensor<bool, SM>,
        value: T,
    ) -> Result<(), ShapeError> {
        check_inplace(a.dims(), &[mask.dims()])?;
        exec::update2(
            a.layout(),
            mask.layout(),
            Narrow,
            move |x, m| {
                if m { value } else { x }
            },
        )
    }

    fn masked_select<S: Shape, SM: Shape>(
        a: &Tensor<T, S>,
        mask: &Tensor<bool, SM>,
        dims: &[usize],
    ) -> Result<Tensor<T, (Dyn,)>, ShapeError> {
        let values = a.try_broadcast_to::<DynRank>(dims)?.try_to_vec()?;
        let keep = mask.try_broadcast_to::<DynRank>(dims)?.try_to_vec()?;
        let picked: Vec<T> = values
            .into_iter()
            .zip(keep)
            .filter_map(|(v, m)| m.then_some(v))
            .collect();
        let n = picked.len();
        Tensor::try_from_vec(picked, &[n])
    }

    fn from_host<S: Shape, U: Element>(
        _like: &Tensor<U, impl Shape>,
        data: Vec<T>,
        dims: &[usize],
    ) -> Result<Tensor<T, S>, ShapeError> {
        Tensor::try_from_vec(data, dims)
    }

    fn to_host<S: Shape>(a: &Tensor<T, S>) -> Result<Vec<T>, ShapeError> {
        Ok(a.to_vec())
    }
}

/// `out[i with dim replaced by index[i]] = f(that, src[i])` over the index's
/// sizes, 0-d operands seen as 1-d.
fn scatter_with<T: Element, I: IndexElement, S: Shape, SI: Shape, S2: Shape>(
    out: &mut Tensor<T, S>,
    dim: usize,
    index: &Tensor<I, SI>,
    src: &Tensor<T, S2>,
    f: impl Fn(T, T) -> T + Sync,
) -> Result<(), ShapeError> {
    let (o, i, s) = (out.layout(), index.layout(), src.layout());
    scatter_nonempty(o, dim, i, s, f)
}

/// A CPU kernel's new buffer as the backends' [`Output`].
#[inline]
fn output<T>(f: Fresh<T>) -> Output<Storage<T>> {
    Output {
        storage: Storage::new(f.data),
        dims: f.dims,
    }
}
