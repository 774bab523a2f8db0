//! What a device needs for autograd ([`GradDevice`]), and the device-generic
//! tensor steps that backward rules share: scalars and zeros made on the
//! gradient's own device, `reshape` and `sum_to`. Each is a composition of
//! [`Backend`] primitives and stride views, so a rule written with them runs
//! wherever its forward ran.

use super::graph::DynTensor;
use crate::Tensor;
use crate::backend::fused::Fused;
use crate::backend::op::table::{self, Fill};
use crate::backend::op::{Map2, Map3, Reduction};
use crate::backend::{Backend, Gemm, Windows};
use crate::element::Float;
use crate::ops::reduce::sum_to_dims;
use crate::shape::{DimVec, DynRank, Shape};
use crate::tensor::pointwise;
use crate::tensor::reduction;

/// The devices [`Var`](super::Var) records and back-propagates on for
/// elements `T`: the op table's pointwise ops on `T` (and on the `bool`
/// masks of comparisons), the reductions every device runs, and matrix
/// products, fused pointwise passes (the optimizers' updates), and the
/// windows of convolutions ([`Windows`]: direct kernels where the device
/// has them).
/// [`Cpu`](crate::device::Cpu) is one for every float type,
/// [`Cuda`](crate::device::Cuda) (feature `cuda`) for `f32` and `f64`.
///
/// ```
/// use shaped::autograd::GradDevice;
/// use shaped::device::Cpu;
/// fn differentiates<D: GradDevice<f32>>() {}
/// differentiates::<Cpu>();
/// ```
pub trait GradDevice<T: Float>:
    Backend<T> + Backend<bool> + Gemm<T> + Fused<T> + Windows<T>
{
}

impl<T: Float, D: Backend<T> + Backend<bool> + Gemm<T> + Fused<T> + Windows<T>> GradDevice<T>
    for D
{
}

/// A 0-d tensor holding `v`, on the device of `like`, which must have
/// elements (the scalar is written through a view of its first one).
pub(crate) fn scalar_like<T: Float, D: Backend<T>>(
    like: &DynTensor<T, D>,
    v: T,
) -> Result<DynTensor<T, D>, D::Error> {
    debug_assert!(like.numel() > 0, "a scalar is made from an element");
    let first: DynTensor<T, D> = like.view_as(DimVec::new(), &[], like.offset);
    pointwise::unary(Fill(v), &first)
}

/// Zeros of `like`'s sizes on its device: one element expanded (stride 0,
/// no memory), or an empty tensor when `like` has no elements.
pub(crate) fn zeros_like<T: Float, D: Backend<T>>(
    like: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    if like.numel() == 0 {
        return pointwise::unary(Fill(T::zero()), like);
    }
    Ok(scalar_like(like, T::zero())?.try_broadcast_to(like.dims())?)
}

/// `g` with sizes `dims` (same element count): a view when the strides
/// allow, as PyTorch's `reshape`, else a contiguous copy on the device.
pub(crate) fn reshape_to<T: Float, D: Backend<T>, S2: Shape>(
    g: &DynTensor<T, D>,
    dims: &[usize],
) -> Result<Tensor<T, S2, D>, D::Error> {
    let sizes: Vec<isize> = dims.iter().map(|&d| d as isize).collect();
    g.try_reshape(&sizes)
}

/// `g` summed to sizes `like`, which broadcast to `g`'s (PyTorch's
/// `sum_to_size`): leading dims `like` lacks and dims where it has 1 are
/// summed. A view when nothing is summed.
///
/// # Errors
/// PyTorch's error when `like` does not broadcast to `g`'s sizes; an
/// allocation or driver error.
pub(crate) fn sum_to_like<T: Float, D: Backend<T>, S2: Shape>(
    g: DynTensor<T, D>,
    like: &[usize],
) -> Result<Tensor<T, S2, D>, D::Error> {
    sum_to_dims(&g, like)
}

/// `g` summed over the dims in `mask`, kept with size 1.
pub(crate) fn sum_keepdim<T: Float, D: Backend<T>>(
    g: &DynTensor<T, D>,
    mask: &[bool],
) -> Result<DynTensor<T, D>, D::Error> {
    reduction::reduce(Reduction::Sum, g, mask, true)
}

/// The op-table operation `op` on `g` and `x` broadcast together.
pub(crate) fn map2<T: Float, D: Backend<T>, Op: Map2<T, Out = T>>(
    op: Op,
    g: &DynTensor<T, D>,
    x: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    pointwise::binary(op, g, x)
}

/// The op-table operation `op` on `g`, `x` and `y` broadcast together.
pub(crate) fn map3<T: Float, D: Backend<T>, Op: Map3<T, T>>(
    op: Op,
    g: &DynTensor<T, D>,
    x: &DynTensor<T, D>,
    y: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    pointwise::ternary(op, g, x, y)
}

/// A `bool` mask: the comparison `op` of `x` and `y` broadcast together.
pub(crate) fn compare<T: Float, D: Backend<T>, Op: Map2<T, Out = bool>>(
    op: Op,
    x: &DynTensor<T, D>,
    y: &DynTensor<T, D>,
) -> Result<Tensor<bool, DynRank, D>, D::Error> {
    pointwise::compare(op, x, y)
}

/// The logical `op` (`and`, `or`) of two masks.
pub(crate) fn combine<D: Backend<bool>, Op: Map2<bool, Out = bool>>(
    op: Op,
    x: &Tensor<bool, DynRank, D>,
    y: &Tensor<bool, DynRank, D>,
) -> Result<Tensor<bool, DynRank, D>, D::Error> {
    pointwise::compare(op, x, y)
}

/// `g` where `cond == keep`, else 0 (the op table's `where`), at the
/// broadcast of the two, which is `g`'s sizes here.
pub(crate) fn masked<T: Float, D: GradDevice<T>>(
    g: &DynTensor<T, D>,
    cond: &Tensor<bool, DynRank, D>,
    keep: bool,
) -> Result<DynTensor<T, D>, D::Error> {
    if g.numel() == 0 {
        return Ok(g.share());
    }
    let zero = scalar_like(g, T::zero())?;
    let (x, y) = if keep { (g, &zero) } else { (&zero, g) };
    select(cond, x, y)
}

/// `x` where `cond` holds, else `y` (the op table's `where`), all three
/// broadcast together.
pub(crate) fn select<T: Float, D: Backend<T>>(
    cond: &Tensor<bool, DynRank, D>,
    x: &DynTensor<T, D>,
    y: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    pointwise::select(table::Where, cond, x, y)
}
