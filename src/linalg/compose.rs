//! The device-generic building blocks of the linear algebra that is
//! composed from tensor operations and [`Linalg`] primitives (`pinv`,
//! `matrix_rank`, `cond`, the norms, `cross`, `multi_dot`, the `*_ex`
//! forms, `lstsq`, `householder_product`, `matrix_power`, `matrix_exp`,
//! `eig`): the bound such a function needs, views and reductions over the
//! matrix dimensions of [`DynRank`] tensors, op-table pointwise steps,
//! matrix products, and small uploads, each on the operands' own device.

use crate::Tensor;
use crate::backend::op::table::{self, Add, AddAlpha, Fill, Mul, Sub};
use crate::backend::op::{Map1, Map2, Statistic};
use crate::backend::{Backend, Gemm, Linalg};
use crate::element::{Element, Numeric};
use crate::linalg::LinalgFloat;
use crate::shape::{DimVec, DynRank, Shape};
use crate::tensor::host;
use crate::tensor::pointwise;
use crate::tensor::reduction;

/// A tensor of any rank on the device `D`.
pub(crate) type DynTensor<T, D> = Tensor<T, DynRank, D>;

/// A device that runs the composed linear algebra on `T`: its [`Linalg`]
/// factorizations, matrix products ([`Gemm`]), and the pointwise,
/// comparison and selection operations on `T`, `bool` and `i64` (the
/// counts of `matrix_rank`). [`Cpu`](crate::device::Cpu) and, with the
/// feature `cuda`, [`Cuda`](crate::device::Cuda) are such devices.
///
/// ```
/// use shaped::linalg::{self, LinalgDevice, RankTol};
/// use shaped::{DynRank, Tensor};
/// fn rank<D: LinalgDevice<f64>>(a: &Tensor<f64, DynRank, D>) -> Tensor<i64, DynRank, D> {
///     linalg::matrix_rank(a, RankTol::default())
/// }
/// let a = Tensor::<f64, DynRank>::try_from_vec(vec![1., 2., 2., 4.], &[2, 2]).unwrap();
/// assert_eq!(rank(&a).to_vec(), vec![1]);
/// ```
pub trait LinalgDevice<T: LinalgFloat>: Linalg<T> + Backend<bool> + Backend<i64> + Gemm<T> {}

impl<T: LinalgFloat, D: Linalg<T> + Backend<bool> + Backend<i64> + Gemm<T>> LinalgDevice<T> for D {}

/// The `p` vector norm of `x` over its last `k` dimensions (a
/// [`Statistic::Norm`] reduction, one pass), kept as size 1 with `keepdim`.
/// No elements give 0 (`inf` for `p = -inf`).
pub(crate) fn norm_last<T: LinalgFloat, S: Shape, D: Backend<T>>(
    x: &Tensor<T, S, D>,
    p: f64,
    k: usize,
    keepdim: bool,
) -> Result<DynTensor<T, D>, D::Error> {
    let r = x.rank();
    let mask: Vec<bool> = (0..r).map(|d| d + k >= r).collect();
    reduction::statistic(Statistic::Norm(p), x, &mask, keepdim)
}

/// A 0-d tensor holding `v` on `like`'s device.
pub(crate) fn scalar<V: Element, U: Element, D: Backend<V>>(
    like: &Tensor<U, impl Shape, D>,
    v: V,
) -> Result<DynTensor<V, D>, D::Error> {
    host::from_host(like, vec![v], &[])
}

/// `op` of `a` and `b`, broadcast together (an op-table operation).
pub(crate) fn bin<T: LinalgFloat, D: Backend<T>, Op: Map2<T, Out = T>>(
    op: Op,
    a: &DynTensor<T, D>,
    b: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    pointwise::binary(op, a, b)
}

/// `op` on every element of `a` (an op-table operation).
pub(crate) fn un<T: LinalgFloat, D: Backend<T>, Op: Map1<T>>(
    op: Op,
    a: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    pointwise::unary(op, a)
}

/// `b` where `cond` holds, else `c`, all broadcast together.
pub(crate) fn select<T: LinalgFloat, D: Backend<T> + Backend<bool>>(
    cond: &DynTensor<bool, D>,
    b: &DynTensor<T, D>,
    c: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, <D as crate::device::Device>::Error> {
    pointwise::select(table::Where, cond, b, c)
}

/// The view of `x` `(..., m, n)` with its last two dimensions swapped
/// `(..., n, m)` (no copy).
pub(crate) fn mat_t<T: Element, D: crate::device::Device>(x: &DynTensor<T, D>) -> DynTensor<T, D> {
    let (mut dims, mut strides): (DimVec, Vec<usize>) = (x.dims().into(), x.strides().to_vec());
    let r = dims.len();
    dims.swap(r - 2, r - 1);
    strides.swap(r - 2, r - 1);
    x.view_as(dims, &strides, x.offset)
}

/// The view of `x` with the sizes `dims` and strides `strides` from
/// `offset` elements further on (no copy).
pub(crate) fn view<T: Element, S: Shape, D: crate::device::Device>(
    x: &Tensor<T, S, D>,
    dims: &[usize],
    strides: &[usize],
    offset: usize,
) -> DynTensor<T, D> {
    x.view_as(dims.into(), strides, x.offset + offset)
}

/// `a` as a dynamic-rank tensor sharing its storage.
pub(crate) fn dy<T: Element, S: Shape, D: Backend<T>>(a: &Tensor<T, S, D>) -> DynTensor<T, D> {
    a.share().into_dyn()
}

/// `data` (row-major, sizes `dims`) uploaded to the device `like` is on.
pub(crate) fn upload<T: Element, U: Element, D: Backend<T>>(
    like: &Tensor<U, impl Shape, D>,
    data: Vec<T>,
    dims: &[usize],
) -> Result<DynTensor<T, D>, D::Error> {
    host::from_host(like, data, dims)
}

/// `a`'s values copied to a CPU tensor of its sizes (for the parts that
/// run on the host: `eig` and its gradient).
pub(crate) fn download<T: Element, S: Shape, D: Backend<T>>(
    a: &Tensor<T, S, D>,
) -> Result<Tensor<T, DynRank>, D::Error> {
    Ok(Tensor::try_from_vec(host::to_host(a)?, a.dims())?)
}

/// Zeros of the sizes `dims` (a new contiguous tensor) on `like`'s device:
/// a fill over a stride-0 view of `like`, which reads nothing.
pub(crate) fn zeros_of<T: Numeric, S: Shape, D: Backend<T>>(
    like: &Tensor<T, S, D>,
    dims: &[usize],
) -> Result<DynTensor<T, D>, D::Error> {
    zeros(&view(like, dims, &vec![0; dims.len()], 0))
}

/// The `rows` by `cols` identity (ones on the main diagonal) on `like`'s
/// device.
pub(crate) fn eye<T: Numeric, U: Element, D: Backend<T>>(
    like: &Tensor<U, impl Shape, D>,
    rows: usize,
    cols: usize,
) -> Result<DynTensor<T, D>, D::Error> {
    let data = (0..rows * cols)
        .map(|i| {
            if i / cols.max(1) == i % cols.max(1) {
                T::one()
            } else {
                T::zero()
            }
        })
        .collect();
    upload(like, data, &[rows, cols])
}

/// Zeros of `a`'s sizes (a new tensor) on its device.
pub(crate) fn zeros<T: Numeric, D: Backend<T>>(
    a: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    pointwise::unary(Fill(T::zero()), a)
}

/// `a + b`, broadcast.
pub(crate) fn add<T: Numeric, D: Backend<T>>(
    a: &DynTensor<T, D>,
    b: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    pointwise::binary(Add, a, b)
}

/// `a - b`, broadcast.
pub(crate) fn sub<T: Numeric, D: Backend<T>>(
    a: &DynTensor<T, D>,
    b: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    pointwise::binary(Sub, a, b)
}

/// `a * b`, elementwise, broadcast.
pub(crate) fn mul<T: Numeric, D: Backend<T>>(
    a: &DynTensor<T, D>,
    b: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    pointwise::binary(Mul, a, b)
}

/// `a + s b`, broadcast (one kernel).
pub(crate) fn axpy<T: Numeric, D: Backend<T>>(
    a: &DynTensor<T, D>,
    s: T,
    b: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    pointwise::binary(AddAlpha(s), a, b)
}

/// The matrix product `a @ b`, batches broadcast.
pub(crate) fn matmul<T: Numeric, D: Gemm<T>>(
    a: &DynTensor<T, D>,
    b: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    a.try_matmul(b)
}
