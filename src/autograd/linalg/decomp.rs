//! Gradients of `vector_norm` over all elements, `svdvals`, `matrix_norm`,
//! `norm`, `cond`, `multi_dot`, `lstsq`, `householder_product`, `lu` and
//! `eig` / `eigvals`. Where PyTorch's function is a composition of
//! differentiable operations (the norms, `cond`, `multi_dot`) the
//! composition is recorded; `svdvals`'s gradient `U diag(g) Vh` is composed
//! from the SVD on the input's device; the others run PyTorch's formulas
//! (`FunctionsManual.cpp`) written over the device (`linalg/vjp.rs`),
//! except `eig`'s, a CPU kernel run on the host
//! (`backend/cpu/linalg/eig.rs`). The tests check them against finite
//! differences and PyTorch, and `lu`'s and `householder_product`'s against
//! the per-matrix faer oracles of `tests/common/linalg_oracle.rs`. A
//! function with several outputs records one node whose value packs them
//! (one `cat` on the device), each output a view of it, so a loss may use
//! any of them.
//!
//! ```
//! use shaped::autograd::{linalg, Var};
//! use shaped::{Shape, Tensor};
//! let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![3., 0., 0., 1.]));
//! let c = linalg::cond(&a, None); // σ_max / σ_min = 3
//! let g = c.backward().wrt(&a).unwrap().to_vec();
//! let want = [1., 0., 0., -3.]; // ∂(σ₁/σ₂) = u₁v₁ᵀ/σ₂ - σ₁ u₂v₂ᵀ/σ₂²
//! assert!(g.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-12));
//! ```

use crate::tensor::host;
use crate::tensor::indexing;
use crate::tensor::pointwise;
use smallvec::smallvec;

use super::{nan_on_error, sum_to_like, when};
use crate::autograd::device::zeros_like;
use crate::autograd::graph::DynTensor;
use crate::autograd::{GradDevice, Var};
use crate::backend::op::table::{self, Fill};
use crate::backend::{Backend, Linalg};
use crate::linalg::compose::view;
use crate::linalg::{
    self as la, BatchOf, EigvalsOf, LinalgDevice, LinalgFloat, LstsqShape, LstsqVecShape, Matrices,
    MatrixNorm, NormOrd, SquareMatrices, SvalsOf, WithTail,
};
use crate::shape::{Dyn as DynDim, DynRank, OrPanic, Shape};

fn isize_dims(d: &[usize]) -> Vec<isize> {
    d.iter().map(|&x| x as isize).collect()
}

/// `x` with its shape type erased, in the graph.
fn dynamic<T: LinalgFloat, S: Shape, D: GradDevice<T>>(
    x: &Var<T, S, D>,
) -> Result<Var<T, DynRank, D>, D::Error> {
    x.try_reshape::<DynRank>(&isize_dims(x.dims()))
}

/// `value` for an input `a` with no elements: its gradient is empty.
fn of_empty<T: LinalgFloat, S: Shape, S2: Shape, D: GradDevice<T>>(
    a: &Var<T, S, D>,
    value: crate::Tensor<T, S2, D>,
) -> Var<T, S2, D> {
    let av = a.erased();
    Var::from_op(value, &[Some(&a.node)], move || {
        Box::new(move |_: &DynTensor<T, D>, _: &[bool]| Ok(smallvec![Some(zeros_like(&av)?)]))
    })
}
/// The `ord` vector norm of all elements of `x`, as
/// [`linalg::try_vector_norm`](crate::linalg::try_vector_norm), with
/// PyTorch's gradient (that of [`try_vector_norm_dims`](super::try_vector_norm_dims)
/// over every dimension).
///
/// # Errors
/// As [`linalg::try_vector_norm`](crate::linalg::try_vector_norm).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let x = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![3., 0., 0., -4.]));
/// let n = linalg::try_vector_norm(&x, 2.).unwrap();
/// assert_eq!(n.value().item(), 5.);
/// assert_eq!(n.backward().wrt(&x).unwrap().to_vec(), vec![0.6, 0., 0., -0.8]);
/// ```
pub fn try_vector_norm<T: LinalgFloat, S: Shape, D: GradDevice<T>>(
    x: &Var<T, S, D>,
    ord: f64,
) -> Result<Var<T, (), D>, D::Error> {
    // PyTorch's check, then the `Statistic::Norm` reduction over every
    // dimension recorded with its device-generic `norm_backward`.
    crate::linalg::vector::check_norm_all(x.value.numel(), ord)?;
    x.try_norm_dims(&[], false, ord)?.try_reshape(&[])
}

/// [`try_vector_norm`], panicking on error.
///
/// # Panics
/// Where [`try_vector_norm`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let x = Var::param(Tensor::<f64, Shape![3]>::from_vec(vec![1., -2., 0.]));
/// let g = linalg::vector_norm(&x, 1.).backward().wrt(&x).unwrap();
/// assert_eq!(g.to_vec(), vec![1., -1., 0.]);
/// ```
#[track_caller]
pub fn vector_norm<T: LinalgFloat, S: Shape, D: GradDevice<T>>(
    x: &Var<T, S, D>,
    ord: f64,
) -> Var<T, (), D> {
    try_vector_norm(x, ord).or_panic()
}

/// The singular values `(..., min(m, n))` of each matrix of `a`, as
/// [`linalg::try_svdvals`](crate::linalg::try_svdvals), with gradient
/// `U diag(g) Vᵀ` (PyTorch's `svdvals` backward).
///
/// # Errors
/// As [`linalg::try_svdvals`](crate::linalg::try_svdvals).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![1, 2]>::from_vec(vec![3., 4.]));
/// let s = linalg::try_svdvals(&a).unwrap();
/// assert!((s.value().to_vec()[0] - 5.).abs() < 1e-12);
/// let g = s.sum().backward().wrt(&a).unwrap().to_vec();
/// assert!((g[0] - 0.6).abs() < 1e-12 && (g[1] - 0.8).abs() < 1e-12);
/// ```
pub fn try_svdvals<T: LinalgFloat, S: Matrices, D: GradDevice<T> + LinalgDevice<T>>(
    a: &Var<T, S, D>,
) -> Result<Var<T, SvalsOf<S>, D>, D::Error> {
    let value = la::try_svdvals(&a.value)?;
    let av = a.erased();
    Ok(Var::from_op(value, &[Some(&a.node)], move || {
        Box::new(move |g: &DynTensor<T, D>, _: &[bool]| Ok(smallvec![Some(svdvals_grad(&av, g)?)]))
    }))
}

/// `U diag(g) Vh` from the reduced SVD of `a` `(..., m, n)` and `g`
/// `(..., k)` on their device: `U`'s columns scaled by `g` (a broadcast
/// view of it as a row), times `Vh`; zeros when `k = 0`.
fn svdvals_grad<T: LinalgFloat, D: GradDevice<T> + LinalgDevice<T>>(
    a: &DynTensor<T, D>,
    g: &DynTensor<T, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    let r = a.rank();
    let k = a.dims()[r - 2].min(a.dims()[r - 1]);
    if k == 0 {
        return zeros_like(a);
    }
    let (u, _, vh) = la::try_svd(a)?;
    let (u, vh) = (u.into_dyn(), vh.into_dyn());
    let gs = g.strides();
    let row_dims = [&g.dims()[..r - 2], &[1, k]].concat();
    let row = view(g, &row_dims, &[&gs[..r - 2], &[0, gs[r - 2]]].concat(), 0);
    let scaled: DynTensor<T, D> = pointwise::binary(table::Mul, &u, &row)?;
    scaled.try_matmul(&vh)
}

/// [`try_svdvals`], panicking on error.
///
/// # Panics
/// Where [`try_svdvals`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 0., 1.]));
/// assert_eq!(linalg::svdvals(&a).value().to_vec(), vec![2., 1.]);
/// ```
#[track_caller]
pub fn svdvals<T: LinalgFloat, S: Matrices, D: GradDevice<T> + LinalgDevice<T>>(
    a: &Var<T, S, D>,
) -> Var<T, SvalsOf<S>, D> {
    try_svdvals(a).or_panic()
}

/// The norm `ord` of each matrix of `a`, as
/// [`linalg::try_matrix_norm`](crate::linalg::try_matrix_norm), recorded as
/// PyTorch computes it: `Fro` a vector 2-norm over the last two dimensions,
/// `±1` / `±inf` the largest (smallest) absolute column (row) sum, `±2` the
/// largest (smallest) singular value, `Nuc` their sum; ties share the
/// gradient of a largest or smallest value evenly, as PyTorch's `amax`.
///
/// # Errors
/// As [`linalg::try_matrix_norm`](crate::linalg::try_matrix_norm).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::linalg::MatrixNorm;
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., -2., 3., 0.]));
/// let n = linalg::try_matrix_norm(&a, MatrixNorm::One).unwrap(); // column sums 4, 2
/// assert_eq!(n.value().item(), 4.);
/// assert_eq!(n.backward().wrt(&a).unwrap().to_vec(), vec![1., 0., 1., 0.]);
/// ```
pub fn try_matrix_norm<T: LinalgFloat, S: Matrices, D: GradDevice<T> + LinalgDevice<T>>(
    a: &Var<T, S, D>,
    ord: MatrixNorm,
) -> Result<Var<T, BatchOf<S>, D>, D::Error> {
    let value = la::try_matrix_norm(&a.value, ord)?;
    if a.value.numel() == 0 {
        return Ok(of_empty(a, value));
    }
    let batch = isize_dims(value.dims());
    matrix_norm_dyn(&dynamic(a)?, ord)?.try_reshape(&batch)
}

fn matrix_norm_dyn<T: LinalgFloat, D: GradDevice<T> + LinalgDevice<T>>(
    d: &Var<T, DynRank, D>,
    ord: MatrixNorm,
) -> Result<Var<T, DynRank, D>, D::Error> {
    let sums = |axis: isize| d.abs().try_sum_dims(&[axis], false);
    match ord {
        MatrixNorm::Fro => super::try_vector_norm_dims(d, 2., &[-2, -1], false),
        MatrixNorm::Nuc => try_svdvals(d)?.try_sum_dims(&[-1], false),
        MatrixNorm::Two => try_svdvals(d)?.try_max_dims(&[-1], false),
        MatrixNorm::NegTwo => try_svdvals(d)?.try_min_dims(&[-1], false),
        MatrixNorm::One => sums(-2)?.try_max_dims(&[-1], false),
        MatrixNorm::NegOne => sums(-2)?.try_min_dims(&[-1], false),
        MatrixNorm::Inf => sums(-1)?.try_max_dims(&[-1], false),
        MatrixNorm::NegInf => sums(-1)?.try_min_dims(&[-1], false),
    }
}

/// [`try_matrix_norm`], panicking on error.
///
/// # Panics
/// Where [`try_matrix_norm`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::linalg::MatrixNorm;
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 0., 1.]));
/// let g = linalg::matrix_norm(&a, MatrixNorm::Nuc).backward().wrt(&a).unwrap();
/// assert_eq!(g.to_vec(), vec![1., 0., 0., 1.]);
/// ```
#[track_caller]
pub fn matrix_norm<T: LinalgFloat, S: Matrices, D: GradDevice<T> + LinalgDevice<T>>(
    a: &Var<T, S, D>,
    ord: MatrixNorm,
) -> Var<T, BatchOf<S>, D> {
    try_matrix_norm(a, ord).or_panic()
}

/// PyTorch's `linalg.norm(x, ord)` without `dim`, as
/// [`linalg::try_norm`](crate::linalg::try_norm): a vector norm
/// ([`try_vector_norm`]) or a matrix norm ([`try_matrix_norm`]), with its
/// gradient.
///
/// # Errors
/// As [`linalg::try_norm`](crate::linalg::try_norm).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::linalg::NormOrd;
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![3., 0., 0., 4.]));
/// let n = linalg::try_norm(&a, Some(NormOrd::Num(2.))).unwrap(); // σ_max
/// assert!((n.value().item() - 4.).abs() < 1e-12);
/// let g = n.backward().wrt(&a).unwrap().to_vec();
/// assert!(g.iter().zip([0., 0., 0., 1.]).all(|(x, y)| (x - y).abs() < 1e-12));
/// ```
pub fn try_norm<T: LinalgFloat, S: Shape, D: GradDevice<T> + LinalgDevice<T>>(
    x: &Var<T, S, D>,
    ord: Option<NormOrd>,
) -> Result<Var<T, (), D>, D::Error> {
    // The forward function checks the rank and the order.
    la::try_norm(&x.value, ord)?;
    match (ord, x.dims().len()) {
        (None, _) => try_vector_norm(x, 2.0),
        (Some(NormOrd::Num(p)), 1) => try_vector_norm(x, p),
        (Some(o), _) => {
            let m = la::matrix_ord(o)?;
            let d = dynamic(x)?;
            if x.value.numel() == 0 {
                return Ok(of_empty(x, la::try_norm(&x.value, ord)?));
            }
            matrix_norm_dyn(&d, m)?.try_reshape(&[])
        }
    }
}

/// [`try_norm`], panicking on error.
///
/// # Panics
/// Where [`try_norm`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let x = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![3., 4.]));
/// assert_eq!(linalg::norm(&x, None).backward().wrt(&x).unwrap().to_vec(), vec![0.6, 0.8]);
/// ```
#[track_caller]
pub fn norm<T: LinalgFloat, S: Shape, D: GradDevice<T> + LinalgDevice<T>>(
    x: &Var<T, S, D>,
    ord: Option<NormOrd>,
) -> Var<T, (), D> {
    try_norm(x, ord).or_panic()
}

/// The condition number of each matrix of `a`, as
/// [`linalg::try_cond`](crate::linalg::try_cond), recorded as PyTorch
/// computes it: `σ_max / σ_min` (`None`, `Two`) or its inverse (`NegTwo`)
/// from [`try_svdvals`], otherwise `‖A‖ ‖A⁻¹‖` from [`try_matrix_norm`] and
/// [`try_inv`](super::try_inv). Where `A` is singular (the value is `inf`
/// for those norms), the gradient is NaN.
///
/// # Errors
/// As [`linalg::try_cond`](crate::linalg::try_cond).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::linalg::MatrixNorm;
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 0., 1.]));
/// let c = linalg::try_cond(&a, Some(MatrixNorm::Inf)).unwrap(); // 2 · 1
/// assert_eq!(c.value().item(), 2.);
/// let g = c.backward().wrt(&a).unwrap().to_vec();
/// // ‖A⁻¹‖ ∂‖A‖ + ‖A‖ ∂‖A⁻¹‖ = [[1, 0], [0, 0]] + 2 [[0, 0], [0, -1]].
/// assert!(g.iter().zip([1., 0., 0., -2.]).all(|(x, y)| (x - y).abs() < 1e-12));
/// ```
pub fn try_cond<T: LinalgFloat, S: Matrices, D: GradDevice<T> + LinalgDevice<T>>(
    a: &Var<T, S, D>,
    p: Option<MatrixNorm>,
) -> Result<Var<T, BatchOf<S>, D>, D::Error> {
    let value = la::try_cond(&a.value, p)?;
    if a.value.numel() == 0 {
        return Ok(of_empty(a, value));
    }
    let batch = isize_dims(value.dims());
    let d = dynamic(a)?;
    let r = match p.unwrap_or(MatrixNorm::Two) {
        MatrixNorm::Two => {
            let s = try_svdvals(&d)?;
            s.try_max_dims(&[-1], false)?
                .try_div(&s.try_min_dims(&[-1], false)?)?
        }
        MatrixNorm::NegTwo => {
            let s = try_svdvals(&d)?;
            s.try_min_dims(&[-1], false)?
                .try_div(&s.try_max_dims(&[-1], false)?)?
        }
        ord => match super::try_inv(&d) {
            Ok(inv) => matrix_norm_dyn(&d, ord)?.try_mul(&matrix_norm_dyn(&inv, ord)?)?,
            // A singular matrix: PyTorch's value (inf), a NaN gradient.
            Err(_) => {
                let av = a.erased();
                return Ok(Var::from_op(value, &[Some(&a.node)], move || {
                    Box::new(move |_: &DynTensor<T, D>, _: &[bool]| {
                        let nan: DynTensor<T, D> = host::from_host(&av, vec![T::nan()], &[])?;
                        Ok(smallvec![Some(nan.try_broadcast_to(av.dims())?)])
                    })
                }));
            }
        },
    };
    r.try_reshape(&batch)
}

/// [`try_cond`], panicking on error.
///
/// # Panics
/// Where [`try_cond`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![4., 0., 0., 2.]));
/// assert!((linalg::cond(&a, None).value().item() - 2.).abs() < 1e-12);
/// ```
#[track_caller]
pub fn cond<T: LinalgFloat, S: Matrices, D: GradDevice<T> + LinalgDevice<T>>(
    a: &Var<T, S, D>,
    p: Option<MatrixNorm>,
) -> Var<T, BatchOf<S>, D> {
    try_cond(a, p).or_panic()
}

/// The product of the matrices `vars` (a 1-d first one a row, a 1-d last
/// one a column, dropped from the result), as
/// [`linalg::try_multi_dot`](crate::linalg::try_multi_dot), recorded as
/// the chain of [`Var::matmul`]s.
///
/// # Errors
/// As [`linalg::try_multi_dot`](crate::linalg::try_multi_dot).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{DynRank, Tensor};
/// let t = |v: Vec<f64>, d: &[usize]| Var::param(Tensor::<f64, DynRank>::try_from_vec(v, d).unwrap());
/// let (x, m, y) = (t(vec![1., 2.], &[2]), t(vec![1., 0., 0., 3.], &[2, 2]), t(vec![1., 1.], &[2]));
/// let p = linalg::try_multi_dot(&[&x, &m, &y]).unwrap(); // 1 + 6
/// assert_eq!((p.dims(), p.value().to_vec()), (&[][..], vec![7.]));
/// assert_eq!(p.try_backward().unwrap().wrt(&m).unwrap().to_vec(), vec![1., 1., 2., 2.]);
/// ```
pub fn try_multi_dot<T: LinalgFloat, S: Shape, D: GradDevice<T> + LinalgDevice<T>>(
    vars: &[&Var<T, S, D>],
) -> Result<Var<T, DynRank, D>, D::Error> {
    let values: Vec<&crate::Tensor<T, S, D>> = vars.iter().map(|v| &v.value).collect();
    let out = la::try_multi_dot(&values)?;
    let k = vars.len();
    let mut acc: Option<Var<T, DynRank, D>> = None;
    for (i, v) in vars.iter().enumerate() {
        let d = v.dims();
        let m = match (d.len(), i) {
            (1, 0) => v.try_reshape::<DynRank>(&[1, d[0] as isize])?,
            (1, j) if j == k - 1 => v.try_reshape::<DynRank>(&[d[0] as isize, 1])?,
            _ => v.try_reshape::<DynRank>(&isize_dims(d))?,
        };
        acc = Some(match acc {
            None => m,
            Some(a) => a.try_matmul(&m)?,
        });
    }
    let acc = acc.expect("multi_dot checked there are at least two");
    acc.try_reshape(&isize_dims(out.dims()))
}

/// [`try_multi_dot`], panicking on error.
///
/// # Panics
/// Where [`try_multi_dot`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]));
/// let b = Var::constant(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 0., 0., 1.]));
/// assert_eq!(linalg::multi_dot(&[&a, &b, &b]).value().to_vec(), vec![1., 2., 3., 4.]);
/// ```
#[track_caller]
pub fn multi_dot<T: LinalgFloat, S: Shape, D: GradDevice<T> + LinalgDevice<T>>(
    vars: &[&Var<T, S, D>],
) -> Var<T, DynRank, D> {
    try_multi_dot(vars).or_panic()
}

/// The graph node of `lstsq`'s solution `value`, with the gradient
/// [`la::lstsq_vjp`] (PyTorch's, through `pinv(A)`) on the inputs' device,
/// summed to each input's sizes; NaN where the SVD does not converge.
fn lstsq_core<T: LinalgFloat, SA: Shape, SB: Shape, SX: Shape, D: GradDevice<T> + Linalg<T>>(
    a: &Var<T, SA, D>,
    b: &Var<T, SB, D>,
    value: crate::Tensor<T, SX, D>,
    vec: bool,
) -> Var<T, SX, D> {
    let (av, bv) = (a.erased(), b.erased());
    Var::from_op(value, &[Some(&a.node), Some(&b.node)], move || {
        Box::new(move |g: &DynTensor<T, D>, needs: &[bool]| {
            let col = |x: &DynTensor<T, D>| {
                let mut d = isize_dims(x.dims());
                d.push(1);
                x.try_reshape::<DynRank>(&d)
            };
            let (g2, b2) = if vec {
                (col(g)?, col(&bv)?)
            } else {
                (g.share(), bv.share())
            };
            let Ok((ga, gb)) = la::lstsq_vjp(&g2, &av, &b2) else {
                let nan = |x: &DynTensor<T, D>| pointwise::unary(Fill(T::nan()), x);
                return Ok(smallvec![Some(nan(&av)?), Some(nan(&bv)?)]);
            };
            let gb = if vec {
                let mut d = isize_dims(gb.dims());
                d.pop();
                gb.try_reshape::<DynRank>(&d)?
            } else {
                gb
            };
            Ok(smallvec![
                when(needs[0], || sum_to_like(ga, av.dims()))?,
                when(needs[1], || sum_to_like(gb, bv.dims()))?,
            ])
        })
    })
}

/// The least-squares solution of `A X = B`, as
/// [`linalg::try_lstsq`](crate::linalg::try_lstsq) (PyTorch's default
/// driver and rules), with PyTorch's gradient (that
/// of `pinv(A) B`), summed to each input's sizes. On any device: the
/// gradient is an SVD (`pinv`) and batched products on the inputs' device.
///
/// # Errors
/// As [`linalg::try_lstsq`](crate::linalg::try_lstsq).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// // The mean of b is the least-squares fit of a column of ones.
/// let a = Var::constant(Tensor::<f64, Shape![3, 1]>::from_vec(vec![1., 1., 1.]));
/// let b = Var::param(Tensor::<f64, Shape![3, 1]>::from_vec(vec![1., 2., 6.]));
/// let x = linalg::try_lstsq(&a, &b).unwrap();
/// assert!((x.value().to_vec()[0] - 3.).abs() < 1e-12);
/// let g = x.sum().backward().wrt(&b).unwrap().to_vec();
/// assert!(g.iter().all(|v| (v - 1. / 3.).abs() < 1e-12));
/// ```
pub fn try_lstsq<
    T: LinalgFloat,
    SA: LstsqShape<SB>,
    SB: Shape,
    D: GradDevice<T> + Linalg<T> + Backend<i64>,
>(
    a: &Var<T, SA, D>,
    b: &Var<T, SB, D>,
) -> Result<Var<T, SA::Output, D>, D::Error> {
    let value = la::try_lstsq(&a.value, &b.value)?.solution;
    let vec = SB::RANK.is_none() && la::is_vector_rhs(a.dims(), b.dims());
    Ok(lstsq_core(a, b, value, vec))
}

/// [`try_lstsq`], panicking on error.
///
/// # Panics
/// Where [`try_lstsq`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![1, 1]>::from_vec(vec![2.]));
/// let b = Var::constant(Tensor::<f64, Shape![1, 1]>::from_vec(vec![6.]));
/// let g = linalg::lstsq(&a, &b).sum().backward().wrt(&a).unwrap().to_vec();
/// assert!((g[0] + 1.5).abs() < 1e-12); // d(6/a)/da = -6/4
/// ```
#[track_caller]
pub fn lstsq<
    T: LinalgFloat,
    SA: LstsqShape<SB>,
    SB: Shape,
    D: GradDevice<T> + Linalg<T> + Backend<i64>,
>(
    a: &Var<T, SA, D>,
    b: &Var<T, SB, D>,
) -> Var<T, SA::Output, D> {
    try_lstsq(a, b).or_panic()
}

/// The least-squares solution of `A x = b` for vectors `b`, as
/// [`linalg::try_lstsq_vec`](crate::linalg::try_lstsq_vec) with the default
/// cut-off and driver, with the gradient of [`try_lstsq`].
///
/// # Errors
/// As [`linalg::try_lstsq_vec`](crate::linalg::try_lstsq_vec).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::constant(Tensor::<f64, Shape![2, 1]>::from_vec(vec![1., 1.]));
/// let b = Var::param(Tensor::<f64, Shape![2]>::from_vec(vec![1., 3.]));
/// let x = linalg::try_lstsq_vec(&a, &b).unwrap();
/// assert!((x.value().to_vec()[0] - 2.).abs() < 1e-12);
/// let g = x.sum().backward().wrt(&b).unwrap().to_vec();
/// assert!(g.iter().all(|v| (v - 0.5).abs() < 1e-12));
/// ```
pub fn try_lstsq_vec<
    T: LinalgFloat,
    SA: LstsqVecShape<SB>,
    SB: Shape,
    D: GradDevice<T> + Linalg<T> + Backend<i64>,
>(
    a: &Var<T, SA, D>,
    b: &Var<T, SB, D>,
) -> Result<Var<T, SA::Output, D>, D::Error> {
    let value = la::try_lstsq_vec(&a.value, &b.value, None, la::LstsqDriver::default())?.solution;
    Ok(lstsq_core(a, b, value, true))
}

/// [`try_lstsq_vec`], panicking on error.
///
/// # Panics
/// Where [`try_lstsq_vec`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::constant(Tensor::<f64, Shape![1, 1]>::from_vec(vec![4.]));
/// let b = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![2.]));
/// assert!((linalg::lstsq_vec(&a, &b).value().to_vec()[0] - 0.5).abs() < 1e-12);
/// ```
#[track_caller]
pub fn lstsq_vec<
    T: LinalgFloat,
    SA: LstsqVecShape<SB>,
    SB: Shape,
    D: GradDevice<T> + Linalg<T> + Backend<i64>,
>(
    a: &Var<T, SA, D>,
    b: &Var<T, SB, D>,
) -> Var<T, SA::Output, D> {
    try_lstsq_vec(a, b).or_panic()
}

/// The first columns of a product of Householder reflectors, as
/// [`linalg::try_householder_product`](crate::linalg::try_householder_product),
/// with PyTorch's gradients for `a`
/// and `tau`, on any device: reverse mode one reflector at a time, a few
/// batched matrix products each (`O(k)` kernels for `k` reflectors).
///
/// # Errors
/// As [`linalg::try_householder_product`](crate::linalg::try_householder_product).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![5., 5., 0., 5.]));
/// let tau = Var::param(Tensor::<f64, Shape![1]>::from_vec(vec![0.5]));
/// let q = linalg::try_householder_product(&a, &tau).unwrap(); // diag(0.5, 1)
/// assert_eq!(q.value().to_vec(), vec![0.5, 0., 0., 1.]);
/// let g = q.sum().backward();
/// assert_eq!(g.wrt(&tau).unwrap().to_vec(), vec![-1.]);
/// // Σ H = 2 - τ (1 + a)² for v = (1, a): ∂/∂a = -2τ at a = 0.
/// assert_eq!(g.wrt(&a).unwrap().to_vec(), vec![0., 0., -1., 0.]);
/// ```
pub fn try_householder_product<
    T: LinalgFloat,
    S: Matrices,
    ST: Shape,
    D: GradDevice<T> + LinalgDevice<T>,
>(
    a: &Var<T, S, D>,
    tau: &Var<T, ST, D>,
) -> Result<Var<T, S, D>, D::Error> {
    let value = la::try_householder_product(&a.value, &tau.value)?;
    let (av, tv) = (a.erased(), tau.erased());
    Ok(Var::from_op(
        value,
        &[Some(&a.node), Some(&tau.node)],
        move || {
            Box::new(move |g: &DynTensor<T, D>, needs: &[bool]| {
                let (ga, gt) = la::vjp::householder_product_vjp(g, &av, &tv)?;
                Ok(smallvec![needs[0].then_some(ga), needs[1].then_some(gt)])
            })
        },
    ))
}

/// [`try_householder_product`], panicking on error.
///
/// # Panics
/// Where [`try_householder_product`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 1]>::from_vec(vec![0., 1.]));
/// let tau = Var::constant(Tensor::<f64, Shape![1]>::from_vec(vec![0.]));
/// assert_eq!(linalg::householder_product(&a, &tau).value().to_vec(), vec![1., 0.]);
/// ```
#[track_caller]
pub fn householder_product<
    T: LinalgFloat,
    S: Matrices,
    ST: Shape,
    D: GradDevice<T> + LinalgDevice<T>,
>(
    a: &Var<T, S, D>,
    tau: &Var<T, ST, D>,
) -> Var<T, S, D> {
    try_householder_product(a, tau).or_panic()
}

/// Records one node whose value is `parts` flattened one after another
/// (one `cat` on their device), with `backward` given the upstream
/// gradient of each part (views of the node's gradient); returns each part
/// as a view of the node, of the part's own sizes.
#[allow(clippy::type_complexity)]
fn packed<T: LinalgFloat, D: GradDevice<T>>(
    parents: &[Option<&std::sync::Arc<crate::autograd::graph::GraphNode<T, D>>>],
    parts: &[DynTensor<T, D>],
    backward: impl Fn(&[DynTensor<T, D>]) -> Result<Option<DynTensor<T, D>>, D::Error>
    + Send
    + Sync
    + 'static,
) -> Result<Vec<Var<T, DynRank, D>>, D::Error> {
    let dims: Vec<Vec<usize>> = parts.iter().map(|p| p.dims().to_vec()).collect();
    let lens: Vec<usize> = parts.iter().map(|p| p.numel()).collect();
    let total = lens.iter().sum();
    let flat = parts
        .iter()
        .map(|p| p.try_reshape(&[p.numel() as isize]))
        .collect::<Result<Vec<DynTensor<T, D>>, D::Error>>()?;
    let value: DynTensor<T, D> = indexing::cat(&flat, 0, &[total])?;
    let (bd, bl) = (dims.clone(), lens.clone());
    let whole = Var::from_op(value, parents, move || {
        Box::new(move |g: &DynTensor<T, D>, _: &[bool]| {
            let mut off = 0;
            let gs = bd
                .iter()
                .zip(&bl)
                .map(|(d, &n)| {
                    let part = g.narrow::<DynRank>(0, off, n)?;
                    off += n;
                    part.try_reshape(&isize_dims(d))
                })
                .collect::<Result<Vec<DynTensor<T, D>>, D::Error>>()?;
            Ok(smallvec![backward(&gs)?])
        })
    });
    let mut off = 0;
    dims.iter()
        .zip(&lens)
        .map(|(d, &n)| {
            let part = whole.narrow::<DynRank>(0, off, n)?;
            off += n;
            part.try_reshape(&isize_dims(d))
        })
        .collect()
}

/// `P` of [`try_lu`]: `(..., m, m)`.
pub type LuP<S> =
    <<S as Matrices>::Batch as WithTail>::Mat<<S as Matrices>::Rows, <S as Matrices>::Rows>;
/// `L` of [`try_lu`]: `(..., m, k)`.
pub type LuL<S> = <<S as Matrices>::Batch as WithTail>::Mat<<S as Matrices>::Rows, DynDim>;
/// `U` of [`try_lu`]: `(..., k, n)`.
pub type LuU<S> = <<S as Matrices>::Batch as WithTail>::Mat<DynDim, <S as Matrices>::Cols>;

/// `(P, L, U)` of [`try_lu`] on the device `D`: `P` a constant tensor,
/// `L` and `U` in the graph.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::device::Cpu;
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., 2., 3., 4., 5., 6.]));
/// let (p, l, u): linalg::LuParts<f64, Shape![2, 3], Cpu> = linalg::lu(&a);
/// assert_eq!((p.dims(), l.dims(), u.dims()), (&[2, 2][..], &[2, 2][..], &[2, 3][..]));
/// ```
pub type LuParts<T, S, D> = (
    crate::Tensor<T, LuP<S>, D>,
    Var<T, LuL<S>, D>,
    Var<T, LuU<S>, D>,
);

/// `A = P L U`, as [`linalg::try_lu`](crate::linalg::try_lu), with
/// PyTorch's gradient (`linalg_lu_backward`) on any device (matrix
/// products, batched triangular solves, masks and one `cat`) through `L`
/// and `U` (`P` is a
/// constant).
///
/// # Errors
/// As [`linalg::try_lu`](crate::linalg::try_lu).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 1., 4., 3.]));
/// let (p, l, u) = linalg::try_lu(&a).unwrap();
/// assert_eq!(p.to_vec(), vec![0., 1., 1., 0.]);
/// assert_eq!(l.value().to_vec(), vec![1., 0., 0.5, 1.]);
/// // L's corner is A[0][0] / A[1][0]: its gradient is (1/4, -2/16) there.
/// let g = l.sum().backward().wrt(&a).unwrap().to_vec();
/// assert!(g.iter().zip([0.25, 0., -0.125, 0.]).all(|(x, y)| (x - y).abs() < 1e-12));
/// ```
pub fn try_lu<T: LinalgFloat, S: Matrices, D: GradDevice<T> + LinalgDevice<T>>(
    a: &Var<T, S, D>,
) -> Result<LuParts<T, S, D>, D::Error> {
    let (p, l, u) = la::try_lu(&a.value)?;
    let (pk, lk, uk) = (
        p.share().into_dyn(),
        l.share().into_dyn(),
        u.share().into_dyn(),
    );
    let parts = packed(&[Some(&a.node)], &[lk.share(), uk.share()], move |g| {
        Ok(Some(la::vjp::lu_vjp(&g[0], &g[1], &pk, &lk, &uk)?))
    })?;
    let mut it = parts.into_iter();
    let (lv, uv) = (it.next().expect("L"), it.next().expect("U"));
    Ok((
        p,
        lv.try_reshape(&isize_dims(l.dims()))?,
        uv.try_reshape(&isize_dims(u.dims()))?,
    ))
}

/// [`try_lu`], panicking on error.
///
/// # Panics
/// Where [`try_lu`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![1, 1]>::from_vec(vec![3.]));
/// let (_, _, u) = linalg::lu(&a);
/// assert_eq!(u.sum().backward().wrt(&a).unwrap().to_vec(), vec![1.]);
/// ```
#[track_caller]
pub fn lu<T: LinalgFloat, S: Matrices, D: GradDevice<T> + LinalgDevice<T>>(
    a: &Var<T, S, D>,
) -> LuParts<T, S, D> {
    try_lu(a).or_panic()
}

/// A complex result as its real and imaginary parts, each in the graph.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![1, 1]>::from_vec(vec![2.]));
/// let z: linalg::ComplexVar<f64, Shape![1]> = linalg::eigvals(&a);
/// assert_eq!((z.re.value().to_vec(), z.im.value().to_vec()), (vec![2.], vec![0.]));
/// ```
pub struct ComplexVar<T: LinalgFloat, S: Shape, D: GradDevice<T> = crate::device::Cpu> {
    /// The real parts.
    pub re: Var<T, S, D>,
    /// The imaginary parts.
    pub im: Var<T, S, D>,
}

#[allow(clippy::type_complexity)]
fn eig_parts<T: LinalgFloat, S: SquareMatrices, D: GradDevice<T>>(
    a: &Var<T, S, D>,
    with_vectors: bool,
) -> Result<(ComplexVar<T, EigvalsOf<S>, D>, Option<ComplexVar<T, S, D>>), D::Error> {
    let (vals, vecs) = la::try_eig(&a.value)?;
    let d = |x: &crate::Tensor<T, EigvalsOf<S>, D>| x.share().into_dyn();
    let m = |x: &crate::Tensor<T, S, D>| x.share().into_dyn();
    let saved = [d(&vals.re), d(&vals.im), m(&vecs.re), m(&vecs.im)];
    let mut outs = vec![d(&vals.re), d(&vals.im)];
    if with_vectors {
        outs.extend([m(&vecs.re), m(&vecs.im)]);
    }
    let (ad, like) = (a.dims().to_vec(), a.erased());
    let parts = packed(&[Some(&a.node)], &outs, move |g| {
        // On the host, as the forward pass (complex per-matrix algebra);
        // the gradient is copied back to `a`'s device.
        let saved = saved
            .iter()
            .map(crate::linalg::compose::download)
            .collect::<Result<Vec<DynTensor<T>>, D::Error>>()?;
        let g = g
            .iter()
            .map(crate::linalg::compose::download)
            .collect::<Result<Vec<DynTensor<T>>, D::Error>>()?;
        // An expanded zero (one element, no allocation of the full sizes).
        let zero = crate::Tensor::<T, crate::DynRank>::scalar(T::zero())
            .try_broadcast_to(saved[2].dims())
            .expect("a scalar broadcasts to any sizes");
        let (gvr, gvi) = if g.len() == 4 {
            (&g[2], &g[3])
        } else {
            (&zero, &zero)
        };
        let r = crate::backend::cpu::linalg::eig::eig_backward(
            [g[0].layout(), g[1].layout()],
            [gvr.layout(), gvi.layout()],
            [saved[0].layout(), saved[1].layout()],
            [saved[2].layout(), saved[3].layout()],
        )
        .and_then(|(data, dims)| DynTensor::<T>::try_from_vec(data, &dims));
        let r = nan_on_error(r, &ad);
        Ok(Some(host::from_host(&like, r.to_vec(), &ad)?))
    })?;
    let mut it = parts.into_iter();
    let mut next = |dims: &[usize]| -> Result<Var<T, DynRank, D>, D::Error> {
        it.next()
            .expect("one part per output")
            .try_reshape(&isize_dims(dims))
    };
    let (vd, md) = (vals.re.dims().to_vec(), vecs.re.dims().to_vec());
    let values = ComplexVar {
        re: next(&vd)?.try_reshape(&isize_dims(&vd))?,
        im: next(&vd)?.try_reshape(&isize_dims(&vd))?,
    };
    let vectors = if with_vectors {
        Some(ComplexVar {
            re: next(&md)?.try_reshape(&isize_dims(&md))?,
            im: next(&md)?.try_reshape(&isize_dims(&md))?,
        })
    } else {
        None
    };
    Ok((values, vectors))
}

/// The eigenvalues and eigenvectors of each real matrix of `a`, as
/// [`linalg::try_eig`](crate::linalg::try_eig), with PyTorch's gradient
/// (`linalg_eig_backward`) through the real and imaginary parts of both,
/// computed on the host by a CPU kernel and copied to `a`'s device (the forward pass runs
/// on the host too, as PyTorch's CUDA `eig` does). As
/// in PyTorch, a loss that depends on the phase of the eigenvectors has no
/// well-defined gradient.
///
/// # Errors
/// As [`linalg::try_eig`](crate::linalg::try_eig).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 0., 0., 2.]));
/// let (vals, vecs) = linalg::try_eig(&a).unwrap();
/// assert_eq!(vecs.re.dims(), &[2, 2]);
/// let g = vals.re.sum().backward().wrt(&a).unwrap().to_vec(); // the trace
/// assert!(g.iter().zip([1., 0., 0., 1.]).all(|(x, y)| (x - y).abs() < 1e-12));
/// ```
#[allow(clippy::type_complexity)]
pub fn try_eig<T: LinalgFloat, S: SquareMatrices, D: GradDevice<T>>(
    a: &Var<T, S, D>,
) -> Result<(ComplexVar<T, EigvalsOf<S>, D>, ComplexVar<T, S, D>), D::Error> {
    let (vals, vecs) = eig_parts(a, true)?;
    Ok((vals, vecs.expect("asked for")))
}

/// [`try_eig`], panicking on error.
///
/// # Panics
/// Where [`try_eig`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![1, 1]>::from_vec(vec![5.]));
/// let (vals, _) = linalg::eig(&a);
/// assert_eq!(vals.re.value().to_vec(), vec![5.]);
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn eig<T: LinalgFloat, S: SquareMatrices, D: GradDevice<T>>(
    a: &Var<T, S, D>,
) -> (ComplexVar<T, EigvalsOf<S>, D>, ComplexVar<T, S, D>) {
    try_eig(a).or_panic()
}

/// The eigenvalues of each real matrix of `a`, as
/// [`linalg::try_eigvals`](crate::linalg::try_eigvals), with PyTorch's
/// gradient `Re V⁻ᴴ diag(gL) Vᴴ`, computed on the host as [`try_eig`]'s.
///
/// # Errors
/// As [`linalg::try_eigvals`](crate::linalg::try_eigvals).
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// // A rotation by 90 degrees has eigenvalues ±i; Σ Im(λ)² = 2 does not move
/// // along the skew direction only.
/// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![0., -1., 1., 0.]));
/// let z = linalg::try_eigvals(&a).unwrap();
/// let g = z.im.square().sum().backward().wrt(&a).unwrap().to_vec();
/// assert!((g[1] - g[2] + 4.).abs() < 1e-9 || (g[2] - g[1] + 4.).abs() < 1e-9);
/// ```
pub fn try_eigvals<T: LinalgFloat, S: SquareMatrices, D: GradDevice<T>>(
    a: &Var<T, S, D>,
) -> Result<ComplexVar<T, EigvalsOf<S>, D>, D::Error> {
    Ok(eig_parts(a, false)?.0)
}

/// [`try_eigvals`], panicking on error.
///
/// # Panics
/// Where [`try_eigvals`] errs.
///
/// ```
/// use shaped::autograd::{linalg, Var};
/// use shaped::{Shape, Tensor};
/// let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 0., 3.]));
/// let mut re = linalg::eigvals(&a).re.value().to_vec();
/// re.sort_by(f64::total_cmp);
/// assert_eq!(re, vec![2., 3.]);
/// ```
#[track_caller]
pub fn eigvals<T: LinalgFloat, S: SquareMatrices, D: GradDevice<T>>(
    a: &Var<T, S, D>,
) -> ComplexVar<T, EigvalsOf<S>, D> {
    try_eigvals(a).or_panic()
}
