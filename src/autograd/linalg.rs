//! Gradients of `inv`, `det`, `solve`, `cholesky`, `solve_triangular`,
//! `matrix_power` and `matrix_exp`, each PyTorch's formula written over the
//! device, and of `cross` and `vector_norm_dims`; those of
//! `vector_norm`, `svdvals`, `matrix_norm`, `norm`, `cond`, `multi_dot`,
//! `lstsq`, `householder_product`, `lu` and `eig` / `eigvals` are in the
//! submodule `linalg/decomp.rs`, re-exported here. No rule panics. Where a
//! formula's factorization fails on non-finite values (an SVD that cannot
//! converge) the gradient is NaN, as PyTorch's is for such inputs (`det`,
//! `inv` and `matrix_exp` of `[[nan, 1], [1, 1]]` give NaN gradients there,
//! not an error). Batch dimensions that broadcast in
//! `solve` are summed back to each input's sizes (`sum_to`), as for
//! elementwise operations.
//!
//! **Devices.** Every function here takes `Var`s on any [`GradDevice`]
//! that is also a [`LinalgDevice`](crate::linalg::LinalgDevice) (the CPU,
//! and CUDA): the forward functions are device-generic and the backward
//! rules are compositions of device operations (matrix products, batched
//! inverses and triangular solves, the SVD, views, `cat`, `where` with a
//! small uploaded mask, the norm reductions' `norm_backward`), so a CUDA
//! `Var` back-propagates on the GPU. Their per-matrix faer forms are the
//! tests' oracles (`tests/common/linalg_oracle.rs`). Two
//! rules read a little back to the host: `det`'s (the inverse's `info`, to
//! take the SVD's adjugate only where a matrix is singular) and
//! `eig` / `eigvals`' (computed on the host, as their forward pass is, and
//! copied back).
//!
//! ```
//! use shaped::autograd::{linalg, Var};
//! use shaped::{Shape, Tensor};
//! let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 0., 4.]));
//! let g = linalg::det(&a).backward().wrt(&a).unwrap();
//! assert_eq!(g.to_vec(), vec![4., 0., 0., 2.]);
//! ```

use crate::shape::OrPanic;
use crate::tensor::pointwise;
use smallvec::smallvec;

use super::graph::DynTensor;
use super::pointwise::{sum_to_like, when};
use super::{GradDevice, Var};
use crate::backend::Linalg;
use crate::linalg::{self as la, BatchOf, LinalgFloat, SolveShape, SquareMatrices};
use crate::shape::{DynRank, Shape, ShapeError};

/// The inverse of each matrix of `a` `(..., n, n)`, as
/// [`linalg::try_inv`](crate::linalg::try_inv), with gradient
/// `-Yᵀ G Yᵀ` for `Y = A⁻¹`.
///
/// # Errors
/// As [`linalg::try_inv`](crate::linalg::try_inv).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![1, 1]>::from_vec(vec![2.]));
/// let y = linalg::try_inv(&a).unwrap();
/// assert_eq!(y.value().to_vec(), vec![0.5]);
/// assert_eq!(y.sum().backward().wrt(&a).unwrap().to_vec(), vec![-0.25]);
/// ```
pub fn try_inv<T: LinalgFloat, S: SquareMatrices, D: GradDevice<T> + la::LinalgDevice<T>>(
    a: &Var<T, S, D>,
) -> Result<Var<T, S, D>, D::Error> {
    let value = la::try_inv(&a.value)?;
    let y = value.share().into_dyn();
    Ok(Var::from_op(value, &[Some(&a.node)], move || {
        // `-Yᵀ g Yᵀ` (PyTorch's formula) with `Yᵀ` a
        // transposed view: two matrix products and a negation on the device.
        Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
            let yt = crate::linalg::compose::mat_t(&y);
            Ok(smallvec![Some(
                yt.try_matmul(g)?.try_matmul(&yt)?.try_neg()?
            )])
        })
    }))
}

/// [`try_inv`], panicking on error.
///
/// # Panics
/// Where [`try_inv`] errs (a singular matrix).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 0., 4.]));
/// assert_eq!(linalg::inv(&a).value().to_vec(), vec![0.5, 0., 0., 0.25]);
/// ```
#[track_caller]
pub fn inv<T: LinalgFloat, S: SquareMatrices, D: GradDevice<T> + la::LinalgDevice<T>>(
    a: &Var<T, S, D>,
) -> Var<T, S, D> {
    try_inv(a).or_panic()
}

/// The determinant of each matrix of `a` `(..., n, n)`, as
/// [`linalg::try_det`](crate::linalg::try_det), with gradient
/// `g · adj(A)ᵀ`, the transposed adjugate, defined at singular
/// matrices too (`[[1, 2], [2, 4]]` gives `[[4, -2], [-2, 1]]`, as PyTorch),
/// on any device: `g · det · A⁻ᵀ` through one batched inverse, and the
/// adjugate through the SVD for the matrices the inverse reports singular
/// (their `info` is read back to the host).
///
/// # Errors
/// As [`linalg::try_det`](crate::linalg::try_det).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 2, 2]>::from_vec(
///     vec![2., 0., 0., 3., 1., 0., 0., 4.]));
/// let d = linalg::try_det(&a).unwrap();
/// assert_eq!(d.value().to_vec(), vec![6., 4.]);
/// let g = d.sum().backward().wrt(&a).unwrap();
/// assert_eq!(g.to_vec(), vec![3., 0., 0., 2., 4., 0., 0., 1.]);
/// ```
pub fn try_det<T: LinalgFloat, S: SquareMatrices, D: GradDevice<T> + la::LinalgDevice<T>>(
    a: &Var<T, S, D>,
) -> Result<Var<T, BatchOf<S>, D>, D::Error> {
    let value = la::try_det(&a.value)?;
    let (av, d) = (a.erased(), value.share().into_dyn());
    Ok(Var::from_op(value, &[Some(&a.node)], move || {
        Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
            Ok(smallvec![Some(nan_if_failed(
                la::vjp::det_vjp(g, &av, &d),
                &av
            )?)])
        })
    }))
}

/// [`try_det`], panicking on error.
///
/// # Panics
/// Where [`try_det`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]));
/// let g = linalg::det(&a).backward().wrt(&a).unwrap().to_vec();
/// let want = [4., -3., -2., 1.];
/// assert!(g.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-12));
/// ```
#[track_caller]
pub fn det<T: LinalgFloat, S: SquareMatrices, D: GradDevice<T> + la::LinalgDevice<T>>(
    a: &Var<T, S, D>,
) -> Var<T, BatchOf<S>, D> {
    try_det(a).or_panic()
}

/// `X` with `A X = B`, batches broadcast, as
/// [`linalg::try_solve`](crate::linalg::try_solve), with gradients
/// `∂B = A⁻ᵀ G` and `∂A = -∂B Xᵀ` summed to each input's sizes.
///
/// # Errors
/// As [`linalg::try_solve`](crate::linalg::try_solve).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![1, 1]>::from_vec(vec![2.]));
/// let b = Var::param(Tensor::<f64, Shape![3, 1, 1]>::from_vec(vec![2., 4., 6.]));
/// let x: Var<f64, Shape![3, 1, 1]> = linalg::try_solve(&a, &b).unwrap();
/// assert_eq!(x.value().to_vec(), vec![1., 2., 3.]);
/// let g = x.sum().backward();
/// assert_eq!(g.wrt(&b).unwrap().to_vec(), vec![0.5; 3]);
/// assert_eq!(g.wrt(&a).unwrap().to_vec(), vec![-3.]); // -(0.5·1 + 0.5·2 + 0.5·3)
/// ```
pub fn try_solve<T: LinalgFloat, SA, SB, D: GradDevice<T> + la::LinalgDevice<T>>(
    a: &Var<T, SA, D>,
    b: &Var<T, SB, D>,
) -> Result<Var<T, SA::Output, D>, D::Error>
where
    SA: SolveShape<SB>,
    SB: Shape,
{
    let value = la::try_solve(&a.value, &b.value)?;
    let (av, x) = (a.value.share().into_dyn(), value.share().into_dyn());
    let bdims = b.value.dims().to_vec();
    // How the forward pass read B (`linalg::try_solve`'s rule).
    let vec = SB::RANK.is_none() && la::is_vector_rhs(av.dims(), &bdims);
    Ok(Var::from_op(
        value,
        &[Some(&a.node), Some(&b.node)],
        move || {
            Box::new(move |g: &DynTensor<T, D>, needs: &[bool]| {
                // `∂B = A⁻ᵀ G` (a solve with the transposed view of A,
                // PyTorch's formula) and `∂A = -∂B Xᵀ`, on
                // the device. A batch of vectors (as the forward pass read
                // B) is a batch of one-column matrices.
                let mat = |t: &DynTensor<T, D>, vec: bool| -> Result<DynTensor<T, D>, D::Error> {
                    if !vec {
                        return Ok(t.share());
                    }
                    let mut sizes: Vec<isize> = t.dims().iter().map(|&d| d as isize).collect();
                    sizes.push(1);
                    t.try_reshape(&sizes)
                };
                let gb = la::try_solve(&crate::linalg::compose::mat_t(&av), &mat(g, vec)?)?;
                let ga = gb
                    .try_matmul(&crate::linalg::compose::mat_t(&mat(&x, vec)?))?
                    .try_neg()?;
                let gb = if vec {
                    let sizes: Vec<isize> = x.dims().iter().map(|&d| d as isize).collect();
                    gb.try_reshape(&sizes)?
                } else {
                    gb
                };
                Ok(smallvec![
                    when(needs[0], || sum_to_like(ga, av.dims()))?,
                    when(needs[1], || sum_to_like(gb, &bdims))?,
                ])
            })
        },
    ))
}

/// [`try_solve`], panicking on error.
///
/// # Panics
/// Where [`try_solve`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::constant(Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 0., 4.]));
/// let b = Var::param(Tensor::<f64, Shape![2, 1]>::from_vec(vec![2., 4.]));
/// let x = linalg::solve(&a, &b);
/// assert_eq!(x.sum().backward().wrt(&b).unwrap().to_vec(), vec![0.5, 0.25]);
/// ```
#[track_caller]
pub fn solve<T: LinalgFloat, SA, SB, D: GradDevice<T> + la::LinalgDevice<T>>(
    a: &Var<T, SA, D>,
    b: &Var<T, SB, D>,
) -> Var<T, SA::Output, D>
where
    SA: SolveShape<SB>,
    SB: Shape,
{
    try_solve(a, b).or_panic()
}

/// The lower Cholesky factor of each matrix of `a` `(..., n, n)`, as
/// [`linalg::try_cholesky`](crate::linalg::try_cholesky), with the
/// symmetric gradient `(S + Sᵀ) / 2`, `S = L⁻ᵀ Φ(Lᵀ G) L⁻¹` with `Φ` the
/// lower triangle, its diagonal halved (PyTorch's),
/// on any device (a matrix product and two triangular solves with `L`'s
/// transposed view).
///
/// # Errors
/// As [`linalg::try_cholesky`](crate::linalg::try_cholesky).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![1, 1]>::from_vec(vec![4.]));
/// let l = linalg::try_cholesky(&a).unwrap();
/// assert_eq!(l.value().to_vec(), vec![2.]);
/// assert_eq!(l.sum().backward().wrt(&a).unwrap().to_vec(), vec![0.25]);
/// ```
pub fn try_cholesky<T: LinalgFloat, S: SquareMatrices, D: GradDevice<T> + la::LinalgDevice<T>>(
    a: &Var<T, S, D>,
) -> Result<Var<T, S, D>, D::Error> {
    let value = la::try_cholesky(&a.value)?;
    let l = value.share().into_dyn();
    Ok(Var::from_op(value, &[Some(&a.node)], move || {
        Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
            Ok(smallvec![Some(la::vjp::cholesky_vjp(g, &l)?)])
        })
    }))
}

/// [`try_cholesky`], panicking on error.
///
/// # Panics
/// Where [`try_cholesky`] errs (a matrix that is not positive definite).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![4., 0., 0., 9.]));
/// assert_eq!(linalg::cholesky(&a).value().to_vec(), vec![2., 0., 0., 3.]);
/// ```
#[track_caller]
pub fn cholesky<T: LinalgFloat, S: SquareMatrices, D: GradDevice<T> + la::LinalgDevice<T>>(
    a: &Var<T, S, D>,
) -> Var<T, S, D> {
    try_cholesky(a).or_panic()
}

/// The gradient `r`, or NaN where its formula's factorization failed (an
/// SVD of non-finite values): PyTorch's gradient at such inputs is NaN, not
/// an error, so this rule does not use the engine's error channel for it.
fn nan_on_error<T: LinalgFloat>(
    r: Result<DynTensor<T>, ShapeError>,
    dims: &[usize],
) -> DynTensor<T> {
    r.unwrap_or_else(|_| nan_like(dims))
}

/// A NaN gradient of sizes `dims`: one element, expanded (no allocation
/// that could fail).
fn nan_like<T: LinalgFloat>(dims: &[usize]) -> DynTensor<T> {
    DynTensor::<T>::scalar(T::nan())
        .try_broadcast_to(dims)
        .expect("a scalar broadcasts to any sizes")
}

/// `X` with `A X = B` for triangular `A`, as
/// [`linalg::try_solve_triangular`](crate::linalg::try_solve_triangular),
/// with the gradients `∂B = A⁻ᵀ G` and `∂A = -∂B Xᵀ` on the triangle read
/// (PyTorch's), on any device (a triangular solve with `A`'s transposed
/// view, a matrix product, the read triangle kept with `where`), summed to
/// each input's sizes.
///
/// # Errors
/// As [`linalg::try_solve_triangular`](crate::linalg::try_solve_triangular).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::linalg::Triangle;
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 1., 0., 4.]));
/// let b = Var::param(Tensor::<f64, Shape![2, 1]>::from_vec(vec![4., 8.]));
/// let x = linalg::try_solve_triangular(&a, &b, Triangle { upper: true, unit: false }).unwrap();
/// assert_eq!(x.value().to_vec(), vec![1., 2.]);
/// let g = x.sum().backward();
/// assert_eq!(g.wrt(&b).unwrap().to_vec(), vec![0.5, 0.125]);
/// assert_eq!(g.wrt(&a).unwrap().to_vec(), vec![-0.5, -1., 0., -0.25]);
/// ```
pub fn try_solve_triangular<T: LinalgFloat, SA, SB, D: GradDevice<T> + la::LinalgDevice<T>>(
    a: &Var<T, SA, D>,
    b: &Var<T, SB, D>,
    tri: la::Triangle,
) -> Result<Var<T, SA::Output, D>, D::Error>
where
    SA: SolveShape<SB>,
    SB: Shape,
{
    let value = la::try_solve_triangular(&a.value, &b.value, tri)?;
    let (av, x) = (a.erased(), value.share().into_dyn());
    let bdims = b.value.dims().to_vec();
    Ok(Var::from_op(
        value,
        &[Some(&a.node), Some(&b.node)],
        move || {
            Box::new(move |g: &DynTensor<T, D>, needs: &[bool]| {
                let (ga, gb) = la::vjp::solve_triangular_vjp(g, &av, &x, tri)?;
                Ok(smallvec![
                    when(needs[0], || sum_to_like(ga, av.dims()))?,
                    when(needs[1], || sum_to_like(gb, &bdims))?,
                ])
            })
        },
    ))
}

/// `Aᵏ`, as [`linalg::try_matrix_power`](crate::linalg::try_matrix_power),
/// with gradient `Σ_{i<k} (Aᵀ)ⁱ G (Aᵀ)^{k-1-i}` (through the inverse for
/// `k < 0`), as PyTorch's, on any device: the rule
/// is made of batched matrix products (and `inv` for `k < 0`), so a CUDA
/// `Var` back-propagates on the GPU. Where the inverse fails the gradient
/// is NaN.
///
/// # Errors
/// As [`linalg::try_matrix_power`](crate::linalg::try_matrix_power).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![1, 1]>::from_vec(vec![2.]));
/// let y = linalg::try_matrix_power(&a, 3).unwrap();
/// assert_eq!(y.value().to_vec(), vec![8.]);
/// assert_eq!(y.sum().backward().wrt(&a).unwrap().to_vec(), vec![12.]);
/// ```
pub fn try_matrix_power<T: LinalgFloat, S: SquareMatrices, D: GradDevice<T> + Linalg<T>>(
    a: &Var<T, S, D>,
    k: i64,
) -> Result<Var<T, S, D>, D::Error>
where
    S::N: crate::Dim,
{
    let value = la::try_matrix_power(&a.value, k)?;
    let av = a.erased();
    Ok(Var::from_op(value, &[Some(&a.node)], move || {
        Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
            Ok(smallvec![Some(nan_if_failed(
                la::matrix_power_vjp(g, &av, k),
                g
            )?)])
        })
    }))
}

/// `exp(A)`, as [`linalg::try_matrix_exp`](crate::linalg::try_matrix_exp),
/// with gradient the upper-right block of `exp([[Aᵀ, G], [0, Aᵀ]])`, as
/// PyTorch's, on any device (two `cat` kernels and
/// [`linalg::try_matrix_exp`](crate::linalg::try_matrix_exp) of the
/// `2n x 2n` matrices, which reads their norms back to the host).
///
/// # Errors
/// As [`linalg::try_matrix_exp`](crate::linalg::try_matrix_exp).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![1, 1]>::from_vec(vec![0.]));
/// let y = linalg::try_matrix_exp(&a).unwrap();
/// assert!((y.value().to_vec()[0] - 1.).abs() < 1e-15);
/// let g = y.sum().backward().wrt(&a).unwrap().to_vec();
/// assert!((g[0] - 1.).abs() < 1e-15);
/// ```
pub fn try_matrix_exp<T: LinalgFloat, S: SquareMatrices, D: GradDevice<T> + Linalg<T>>(
    a: &Var<T, S, D>,
) -> Result<Var<T, S, D>, D::Error>
where
    S::N: crate::Dim,
{
    let value = la::try_matrix_exp(&a.value)?;
    let av = a.erased();
    Ok(Var::from_op(value, &[Some(&a.node)], move || {
        Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
            Ok(smallvec![Some(nan_if_failed(
                la::matrix_exp_vjp(g, &av),
                g
            )?)])
        })
    }))
}

/// The gradient `r`, or NaN of `g`'s sizes on its device where `r`'s
/// formula failed (a singular inverse): PyTorch's gradient there is NaN,
/// not an error.
fn nan_if_failed<T: LinalgFloat, D: GradDevice<T>>(
    r: Result<DynTensor<T, D>, D::Error>,
    g: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    match r {
        Ok(r) => Ok(r),
        Err(_) => pointwise::unary(crate::backend::op::table::Fill(T::nan()), g),
    }
}

/// The cross product along the last dimension, batches broadcast, as
/// [`linalg::try_cross`](crate::linalg::try_cross); gradients `b × g` and
/// `g × a`, summed to each input's sizes.
///
/// # Errors
/// As [`linalg::try_cross`](crate::linalg::try_cross).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![1., 0., 0.]));
/// let b = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![0., 1., 0.]));
/// let c = linalg::try_cross(&a, &b).unwrap();
/// assert_eq!(c.value().to_vec(), vec![0., 0., 1.]);
/// let g = c.sum().backward();
/// assert_eq!(g.wrt(&a).unwrap().to_vec(), vec![1., 0., -1.]); // b × (1, 1, 1)
/// ```
pub fn try_cross<T: LinalgFloat, SA, SB, D: GradDevice<T>>(
    a: &Var<T, SA, D>,
    b: &Var<T, SB, D>,
) -> Result<Var<T, SA::Output, D>, D::Error>
where
    SA: la::CrossShape<SB>,
    SB: Shape,
{
    let value = la::try_cross(&a.value, &b.value)?;
    let (av, bv) = (a.erased(), b.erased());
    Ok(Var::from_op(
        value,
        &[Some(&a.node), Some(&b.node)],
        move || {
            Box::new(move |g: &DynTensor<T, D>, needs: &[bool]| {
                let cross = |x: &DynTensor<T, D>, y: &DynTensor<T, D>, like: &[usize]| {
                    sum_to_like(crate::linalg::cross_dyn(x, y)?, like)
                };
                Ok(smallvec![
                    when(needs[0], || cross(&bv, g, av.dims()))?,
                    when(needs[1], || cross(g, &av, bv.dims()))?,
                ])
            })
        },
    ))
}

/// The `ord` vector norm over `dims`, as
/// [`linalg::try_vector_norm_dims`](crate::linalg::try_vector_norm_dims),
/// with PyTorch's gradient (`g · sign(x) |x|^(p-1) / ‖x‖^(p-1)`, 0 where the
/// norm is 0; for `±inf` shared among the elements attaining it).
///
/// # Errors
/// As [`linalg::try_vector_norm_dims`](crate::linalg::try_vector_norm_dims).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let x = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![3., -4.]));
/// let n = linalg::try_vector_norm_dims(&x, 2., &[], false).unwrap();
/// assert_eq!(n.value().to_vec(), vec![5.]);
/// let g = n.try_backward().unwrap().wrt(&x).unwrap();
/// assert_eq!(g.to_vec(), vec![0.6, -0.8]);
/// ```
pub fn try_vector_norm_dims<T: LinalgFloat, S: Shape, D: GradDevice<T>>(
    x: &Var<T, S, D>,
    ord: f64,
    dims: &[isize],
    keepdim: bool,
) -> Result<Var<T, DynRank, D>, D::Error> {
    // PyTorch's checks, then the `Statistic::Norm` reduction recorded with
    // its device-generic `norm_backward` (`Var::try_norm_dims`).
    crate::linalg::vector::check_norm_dims(x.value.dims(), ord, dims)?;
    x.try_norm_dims(dims, keepdim, ord)
}

/// [`try_solve_triangular`], panicking on error.
///
/// # Panics
/// Where [`try_solve_triangular`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::linalg::Triangle;
/// use shaped::{Shape, Tensor};
/// let a = Var::constant(Tensor::<f64, Shape![1, 1]>::from_vec(vec![2.]));
/// let b = Var::param(Tensor::<f64, Shape![1, 1]>::from_vec(vec![4.]));
/// let x = linalg::solve_triangular(&a, &b, Triangle { upper: false, unit: false });
/// assert_eq!(x.sum().backward().wrt(&b).unwrap().to_vec(), vec![0.5]);
/// ```
#[track_caller]
pub fn solve_triangular<T: LinalgFloat, SA, SB, D: GradDevice<T> + la::LinalgDevice<T>>(
    a: &Var<T, SA, D>,
    b: &Var<T, SB, D>,
    tri: la::Triangle,
) -> Var<T, SA::Output, D>
where
    SA: SolveShape<SB>,
    SB: Shape,
{
    try_solve_triangular(a, b, tri).or_panic()
}

/// [`try_matrix_power`], panicking on error.
///
/// # Panics
/// Where [`try_matrix_power`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![1, 1]>::from_vec(vec![2.]));
/// let g = linalg::matrix_power(&a, -1).sum().backward().wrt(&a).unwrap();
/// assert_eq!(g.to_vec(), vec![-0.25]);
/// ```
#[track_caller]
pub fn matrix_power<T: LinalgFloat, S: SquareMatrices, D: GradDevice<T> + Linalg<T>>(
    a: &Var<T, S, D>,
    k: i64,
) -> Var<T, S, D>
where
    S::N: crate::Dim,
{
    try_matrix_power(a, k).or_panic()
}

/// [`try_matrix_exp`], panicking on error.
///
/// # Panics
/// Where [`try_matrix_exp`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![1, 1]>::from_vec(vec![1.]));
/// let g = linalg::matrix_exp(&a).sum().backward().wrt(&a).unwrap();
/// assert!((g.to_vec()[0] - 1f64.exp()).abs() < 1e-14);
/// ```
#[track_caller]
pub fn matrix_exp<T: LinalgFloat, S: SquareMatrices, D: GradDevice<T> + Linalg<T>>(
    a: &Var<T, S, D>,
) -> Var<T, S, D>
where
    S::N: crate::Dim,
{
    try_matrix_exp(a).or_panic()
}

/// [`try_cross`], panicking on error.
///
/// # Panics
/// Where [`try_cross`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![0., 0., 1.]));
/// let b = Var::constant(Tensor::<f64, Shape![3]>::from_vec(vec![1., 0., 0.]));
/// assert_eq!(linalg::cross(&a, &b).value().to_vec(), vec![0., 1., 0.]);
/// ```
#[track_caller]
pub fn cross<T: LinalgFloat, SA, SB, D: GradDevice<T>>(
    a: &Var<T, SA, D>,
    b: &Var<T, SB, D>,
) -> Var<T, SA::Output, D>
where
    SA: la::CrossShape<SB>,
    SB: Shape,
{
    try_cross(a, b).or_panic()
}

/// [`try_vector_norm_dims`], panicking on error.
///
/// # Panics
/// Where [`try_vector_norm_dims`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let x = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., -1., 2., 0.]));
/// let n = linalg::vector_norm_dims(&x, 1., &[1], false);
/// assert_eq!(n.value().to_vec(), vec![2., 2.]);
/// ```
#[track_caller]
pub fn vector_norm_dims<T: LinalgFloat, S: Shape, D: GradDevice<T>>(
    x: &Var<T, S, D>,
    ord: f64,
    dims: &[isize],
    keepdim: bool,
) -> Var<T, DynRank, D> {
    try_vector_norm_dims(x, ord, dims, keepdim).or_panic()
}

mod decomp;
pub use decomp::{
    ComplexVar, LuL, LuP, LuParts, LuU, cond, eig, eigvals, householder_product, lstsq, lstsq_vec,
    lu, matrix_norm, multi_dot, norm, svdvals, try_cond, try_eig, try_eigvals,
    try_householder_product, try_lstsq, try_lstsq_vec, try_lu, try_matrix_norm, try_multi_dot,
    try_norm, try_svdvals, try_vector_norm, vector_norm,
};
