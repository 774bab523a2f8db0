//! The index primitives of a backend, run on typed tensors: the typed front
//! of [`Backend::gather`], the `scatter` family, [`Backend::cat`] and the
//! masked ops. Each function passes its operands' layouts down (the
//! backend sees no shape type) and checks a new storage's sizes against the
//! result's shape type, so the index kernels are compiled once per element
//! and index type, whatever the shapes. The index methods (`gather`,
//! `scatter_`, `index_select`, `cat`, `masked_fill` ...), autograd and
//! `linalg` call these after checking PyTorch's size rules.

use crate::Tensor;
use crate::backend::Backend;
use crate::backend::op::index::{IndexElement, ScatterReduce};
use crate::element::{Element, Numeric};
use crate::shape::{Dyn, DynRank, Shape};

/// [`Backend::gather`]: `src` read at `index` along `dim`, with the
/// index's sizes.
#[inline]
pub(crate) fn gather<
    T: Element,
    I: IndexElement,
    D: Backend<T>,
    S1: Shape,
    SI: Shape,
    SO: Shape,
>(
    src: &Tensor<T, S1, D>,
    dim: usize,
    index: &Tensor<I, SI, D>,
) -> Result<Tensor<T, SO, D>, D::Error> {
    let o = D::gather(src.layout(), dim, index.layout())?;
    Ok(Tensor::from_output(o)?)
}

/// [`Backend::scatter`]: `src` written into `out` at `index` along `dim`.
#[inline]
pub(crate) fn scatter<
    T: Element,
    I: IndexElement,
    D: Backend<T>,
    S: Shape,
    SI: Shape,
    S2: Shape,
>(
    out: &mut Tensor<T, S, D>,
    dim: usize,
    index: &Tensor<I, SI, D>,
    src: &Tensor<T, S2, D>,
) -> Result<(), D::Error> {
    D::scatter(out.layout(), dim, index.layout(), src.layout())
}

/// [`Backend::scatter_reduce`]: `src` combined into `out` at `index` along
/// `dim` with `reduce`'s operation.
#[inline]
pub(crate) fn scatter_reduce<
    T: Numeric,
    I: IndexElement,
    D: Backend<T>,
    S: Shape,
    SI: Shape,
    S2: Shape,
>(
    out: &mut Tensor<T, S, D>,
    dim: usize,
    index: &Tensor<I, SI, D>,
    src: &Tensor<T, S2, D>,
    reduce: ScatterReduce,
) -> Result<(), D::Error> {
    let (o, i, s) = (out.layout(), index.layout(), src.layout());
    D::scatter_reduce(o, dim, i, s, reduce)
}

/// [`Backend::cat`]: `parts` one after the other along `dim`, into a new
/// tensor of sizes `out`.
#[inline]
pub(crate) fn cat<T: Element, D: Backend<T>, SO: Shape>(
    parts: &[Tensor<T, DynRank, D>],
    dim: usize,
    out: &[usize],
) -> Result<Tensor<T, SO, D>, D::Error> {
    let layouts: Vec<_> = parts.iter().map(Tensor::layout).collect();
    Ok(Tensor::from_output(D::cat(&layouts, dim, out)?)?)
}

/// [`Backend::masked_fill`]: `a` with `value` where `mask` holds.
#[inline]
pub(crate) fn masked_fill<T: Element, D: Backend<T>, S: Shape, SM: Shape, SO: Shape>(
    a: &Tensor<T, S, D>,
    mask: &Tensor<bool, SM, D>,
    value: T,
) -> Result<Tensor<T, SO, D>, D::Error> {
    let o = D::masked_fill(a.layout(), mask.layout(), value)?;
    Ok(Tensor::from_output(o)?)
}

/// [`Backend::masked_fill_`]: `value` written into `a` where `mask` holds.
#[inline]
pub(crate) fn masked_fill_<T: Element, D: Backend<T>, S: Shape, SM: Shape>(
    a: &mut Tensor<T, S, D>,
    mask: &Tensor<bool, SM, D>,
    value: T,
) -> Result<(), D::Error> {
    D::masked_fill_(a.layout(), mask.layout(), value)
}

/// [`Backend::masked_select`]: the elements of `a` where `mask` holds, both
/// broadcast to `dims`, as a 1-d tensor.
#[inline]
pub(crate) fn masked_select<T: Element, D: Backend<T>, S: Shape, SM: Shape>(
    a: &Tensor<T, S, D>,
    mask: &Tensor<bool, SM, D>,
    dims: &[usize],
) -> Result<Tensor<T, (Dyn,), D>, D::Error> {
    let o = D::masked_select(a.layout(), mask.layout(), dims)?;
    Ok(Tensor::from_output(o)?)
}
