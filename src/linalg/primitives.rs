//! The typed front of a device's factorization primitives ([`Linalg`]):
//! each function passes its [`DynRank`] tensors' layouts down (no shape
//! type reaches the backend) and checks the sizes of the storages that come
//! back as it makes them tensors again. The public linear algebra
//! (`linalg::inv`, `linalg::cholesky`, ...) calls these.

use crate::Tensor;
use crate::backend::{Backend, Linalg, Output};
use crate::device::Device;
use crate::element::Element;
use crate::linalg::{LinalgFloat, Triangle};
use crate::shape::DynRank;

/// A tensor of any rank on the device `D`.
type DynTensor<T, D> = Tensor<T, DynRank, D>;

/// A result on `D`.
type Res<X, D> = Result<X, <D as Device>::Error>;

/// Two tensors on `D` (`Q` and `R`).
type Pair<T, D> = (DynTensor<T, D>, DynTensor<T, D>);

/// `(sign, log|det|, det)` of each matrix, each `(...)`.
pub(crate) type Dets<T, D> = (DynTensor<T, D>, DynTensor<T, D>, DynTensor<T, D>);

/// A primitive's new storage as a tensor (its sizes checked).
fn up<T: Element, D: Backend<T>>(o: Output<D::Storage<T>>) -> Res<DynTensor<T, D>, D> {
    Ok(Tensor::from_output(o)?)
}

/// An optional new storage as a tensor.
fn up_opt<T: Element, D: Backend<T>>(
    o: Option<Output<D::Storage<T>>>,
) -> Res<Option<DynTensor<T, D>>, D> {
    o.map(up::<T, D>).transpose()
}

/// [`Linalg::lu_factor`]: the packed factors, the pivots and `info`.
#[allow(clippy::type_complexity)]
pub(crate) fn lu_factor<T: LinalgFloat, D: Linalg<T>>(
    a: &DynTensor<T, D>,
) -> Res<(DynTensor<T, D>, DynTensor<i32, D>, Vec<i32>), D> {
    let (lu, piv, info) = D::lu_factor(a.layout())?;
    Ok((up::<T, D>(lu)?, up::<i32, D>(piv)?, info))
}

/// [`Linalg::inv`]: the inverses and `info`.
pub(crate) fn inv<T: LinalgFloat, D: Linalg<T>>(
    a: &DynTensor<T, D>,
) -> Res<(DynTensor<T, D>, Vec<i32>), D> {
    let (x, info) = D::inv(a.layout())?;
    Ok((up::<T, D>(x)?, info))
}

/// [`Linalg::cholesky`]: the lower factors and `info`.
pub(crate) fn cholesky<T: LinalgFloat, D: Linalg<T>>(
    a: &DynTensor<T, D>,
) -> Res<(DynTensor<T, D>, Vec<i32>), D> {
    let (l, info) = D::cholesky(a.layout())?;
    Ok((up::<T, D>(l)?, info))
}

/// [`Linalg::solve`]: `X` with `A X = B` and `info`.
pub(crate) fn solve<T: LinalgFloat, D: Linalg<T>>(
    a: &DynTensor<T, D>,
    b: &DynTensor<T, D>,
    vec: bool,
) -> Res<(DynTensor<T, D>, Vec<i32>), D> {
    let (x, info) = D::solve(a.layout(), b.layout(), vec)?;
    Ok((up::<T, D>(x)?, info))
}

/// [`Linalg::cholesky_solve`]: `X` with `L Lᵀ X = B`.
pub(crate) fn cholesky_solve<T: LinalgFloat, D: Linalg<T>>(
    b: &DynTensor<T, D>,
    l: &DynTensor<T, D>,
) -> Res<DynTensor<T, D>, D> {
    up::<T, D>(D::cholesky_solve(b.layout(), l.layout())?)
}

/// [`Linalg::solve_triangular`]: `X` with `A X = B` (`left`) or `X A = B`.
pub(crate) fn solve_triangular<T: LinalgFloat, D: Linalg<T>>(
    a: &DynTensor<T, D>,
    b: &DynTensor<T, D>,
    tri: Triangle,
    left: bool,
) -> Res<DynTensor<T, D>, D> {
    up::<T, D>(D::solve_triangular(a.layout(), b.layout(), tri, left)?)
}

/// [`Linalg::eigh`]: the eigenvalues, the eigenvectors when asked for, and
/// `info`.
#[allow(clippy::type_complexity)]
pub(crate) fn eigh<T: LinalgFloat, D: Linalg<T>>(
    a: &DynTensor<T, D>,
    vectors: bool,
) -> Res<(DynTensor<T, D>, Option<DynTensor<T, D>>, Vec<i32>), D> {
    let (w, v, info) = D::eigh(a.layout(), vectors)?;
    Ok((up::<T, D>(w)?, up_opt::<T, D>(v)?, info))
}

/// [`Linalg::svd`]: `U`, `S`, `Vh` (`U` and `Vh` when asked for) and
/// `info`.
#[allow(clippy::type_complexity)]
pub(crate) fn svd<T: LinalgFloat, D: Linalg<T>>(
    a: &DynTensor<T, D>,
    vectors: bool,
    full: bool,
) -> Res<
    (
        Option<DynTensor<T, D>>,
        DynTensor<T, D>,
        Option<DynTensor<T, D>>,
        Vec<i32>,
    ),
    D,
> {
    let (u, s, vh, info) = D::svd(a.layout(), vectors, full)?;
    Ok((
        up_opt::<T, D>(u)?,
        up::<T, D>(s)?,
        up_opt::<T, D>(vh)?,
        info,
    ))
}

/// [`Linalg::slogdet`]: the sign, `log|det|` and the determinant.
pub(crate) fn slogdet<T: LinalgFloat, D: Linalg<T>>(a: &DynTensor<T, D>) -> Res<Dets<T, D>, D> {
    let (sign, logabs, det) = D::slogdet(a.layout())?;
    Ok((up::<T, D>(sign)?, up::<T, D>(logabs)?, up::<T, D>(det)?))
}

/// [`Linalg::qr`]: `Q` and `R`.
pub(crate) fn qr<T: LinalgFloat, D: Linalg<T>>(
    a: &DynTensor<T, D>,
    complete: bool,
) -> Res<Pair<T, D>, D> {
    let (q, r) = D::qr(a.layout(), complete)?;
    Ok((up::<T, D>(q)?, up::<T, D>(r)?))
}

/// [`Linalg::lu_solve`]: `X` with `A X = B` from `A`'s LU factors.
pub(crate) fn lu_solve<T: LinalgFloat, D: Linalg<T>>(
    lu: &DynTensor<T, D>,
    piv: &DynTensor<i32, D>,
    piv_host: &[i32],
    b: &DynTensor<T, D>,
) -> Res<DynTensor<T, D>, D> {
    up::<T, D>(D::lu_solve(
        lu.layout(),
        piv.layout(),
        piv_host,
        b.layout(),
    )?)
}

/// [`Linalg::info_tensor`]: `info` as a tensor of sizes `dims` on `like`'s
/// device.
pub(crate) fn info_tensor<T: LinalgFloat, D: Linalg<T>>(
    like: &DynTensor<T, D>,
    info: Vec<i32>,
    dims: &[usize],
) -> Res<DynTensor<i32, D>, D> {
    up::<i32, D>(D::info_tensor(like.layout(), info, dims)?)
}
