//! The device-generic steps that `lstsq`, `householder_product`,
//! `matrix_power`, `matrix_exp` and `eig` are composed of: op-table
//! pointwise operations, matrix products, stride views and small uploads
//! and read-backs, each on the operands' own device.

use crate::Tensor;
use crate::backend::{Backend, Gemm};
use crate::element::{Element, Numeric};
use crate::ops::table::{Add, AddAlpha, Fill, Mul, Sub};
use crate::shape::{DynRank, Shape};

/// A dynamic-rank tensor on device `D`.
pub(super) type Dy<T, D> = Tensor<T, DynRank, D>;

/// `a` as a dynamic-rank tensor sharing its storage.
pub(super) fn dy<T: Element, S: Shape, D: Backend<T>>(a: &Tensor<T, S, D>) -> Dy<T, D> {
    a.share().into_dyn()
}

/// The view of `a` with its last two dimensions swapped (no copy).
pub(super) fn mt<T: Element, D: Backend<T>>(a: &Dy<T, D>) -> Result<Dy<T, D>, D::Error> {
    let r = a.rank() as isize;
    let mut perm: Vec<isize> = (0..r).collect();
    perm.swap(r as usize - 2, r as usize - 1);
    Ok(a.permute(&perm)?)
}

/// `data` (row-major, sizes `dims`) uploaded to the device `like` is on.
pub(super) fn upload<T: Element, U: Element, D: Backend<T>>(
    like: &Tensor<U, impl Shape, D>,
    data: Vec<T>,
    dims: &[usize],
) -> Result<Dy<T, D>, D::Error> {
    D::from_host(like, data, dims)
}

/// The `rows` by `cols` identity (ones on the main diagonal) on `like`'s
/// device.
pub(super) fn eye<T: Numeric, U: Element, D: Backend<T>>(
    like: &Tensor<U, impl Shape, D>,
    rows: usize,
    cols: usize,
) -> Result<Dy<T, D>, D::Error> {
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
pub(super) fn zeros<T: Numeric, D: Backend<T>>(a: &Dy<T, D>) -> Result<Dy<T, D>, D::Error> {
    D::unary(Fill(T::zero()), a)
}

/// `a + b`, broadcast.
pub(super) fn add<T: Numeric, D: Backend<T>>(
    a: &Dy<T, D>,
    b: &Dy<T, D>,
) -> Result<Dy<T, D>, D::Error> {
    D::binary(Add, a, b)
}

/// `a - b`, broadcast.
pub(super) fn sub<T: Numeric, D: Backend<T>>(
    a: &Dy<T, D>,
    b: &Dy<T, D>,
) -> Result<Dy<T, D>, D::Error> {
    D::binary(Sub, a, b)
}

/// `a * b`, elementwise, broadcast.
pub(super) fn mul<T: Numeric, D: Backend<T>>(
    a: &Dy<T, D>,
    b: &Dy<T, D>,
) -> Result<Dy<T, D>, D::Error> {
    D::binary(Mul, a, b)
}

/// `a + s b`, broadcast (one kernel).
pub(super) fn axpy<T: Numeric, D: Backend<T>>(
    a: &Dy<T, D>,
    s: T,
    b: &Dy<T, D>,
) -> Result<Dy<T, D>, D::Error> {
    D::binary(AddAlpha(s), a, b)
}

/// The matrix product `a @ b`, batches broadcast.
pub(super) fn matmul<T: Numeric, D: Gemm<T>>(
    a: &Dy<T, D>,
    b: &Dy<T, D>,
) -> Result<Dy<T, D>, D::Error> {
    a.try_matmul(b)
}
