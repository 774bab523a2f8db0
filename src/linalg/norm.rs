//! `matrix_norm`.

use super::compose::{DynTensor, LinalgDevice, norm_last};
use super::generic::check_matrices;
use super::{BatchOf, LinalgFloat, Matrices, expect};
use crate::backend::op::Statistic;
use crate::shape::Shape;
use crate::tensor::reduction;
use crate::{ShapeError, Tensor};

/// Which matrix norm [`matrix_norm`] computes (PyTorch's and NumPy's `ord`).
///
/// ```
/// use shaped::linalg::MatrixNorm;
/// assert_ne!(MatrixNorm::Fro, MatrixNorm::Nuc);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatrixNorm {
    /// Frobenius: the square root of the sum of squares (`'fro'`).
    Fro,
    /// Nuclear: the sum of the singular values (`'nuc'`).
    Nuc,
    /// The largest absolute column sum (`1`).
    One,
    /// The smallest absolute column sum (`-1`).
    NegOne,
    /// The largest absolute row sum (`inf`).
    Inf,
    /// The smallest absolute row sum (`-inf`).
    NegInf,
    /// The largest singular value (`2`).
    Two,
    /// The smallest singular value (`-2`).
    NegTwo,
}

/// The norm `ord` of each matrix of `a` `(..., m, n)`, shape `(...)`.
///
/// An empty matrix has norm 0 for `Fro`, `Nuc`, `One`, `Inf` and `Two`
/// (the largest of no values), as PyTorch.
///
/// Composed on every device from `Statistic::Norm` reductions: `Fro` one
/// reduction; `±One` / `±Inf` the absolute column / row sums, then their
/// largest or smallest (a second, small reduction: one more pass than the
/// CPU's former per-matrix loop); `Nuc` / `±Two` the singular values
/// ([`Linalg::svd`](crate::backend::Linalg::svd) without vectors: on CUDA
/// `gesvdjBatched`, or one `gesvdj` per matrix above 32), then one
/// reduction over them.
///
/// # Errors
/// A shape of rank < 2; no convergence of the SVD (for `Nuc`, `Two`,
/// `NegTwo`); the smallest of no values (`NegOne` with no columns, `NegInf`
/// with no rows, `NegTwo` on an empty matrix), with PyTorch's message.
///
/// ```
/// use shaped::{linalg::{self, MatrixNorm}, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[3]).unwrap();
/// assert_eq!(linalg::try_matrix_norm(&a, MatrixNorm::Fro).unwrap_err().to_string(),
///     "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
/// let e = Tensor::<f64, DynRank>::try_zeros(&[0, 3]).unwrap();
/// assert_eq!(linalg::try_matrix_norm(&e, MatrixNorm::Two).unwrap().to_vec(), vec![0.]);
/// assert_eq!(linalg::try_matrix_norm(&e, MatrixNorm::NegInf).unwrap_err().to_string(),
///     "amin(): Expected reduction dim 0 to have non-zero size.");
/// ```
pub fn try_matrix_norm<T: LinalgFloat, S: Matrices, D: LinalgDevice<T>>(
    a: &Tensor<T, S, D>,
    ord: MatrixNorm,
) -> Result<Tensor<T, BatchOf<S>, D>, D::Error> {
    Ok(matrix_norm_on(a, ord)?.try_into_shape()?)
}

/// The norm `ord` of each matrix; panics where [`try_matrix_norm`] errs.
///
/// ```
/// use shaped::{linalg::{self, MatrixNorm}, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., -2., 3., 4.]);
/// assert_eq!(linalg::matrix_norm(&a, MatrixNorm::One).item(), 6.);
/// assert_eq!(linalg::matrix_norm(&a, MatrixNorm::Inf).item(), 7.);
/// assert_eq!(linalg::matrix_norm(&a, MatrixNorm::Fro).item(), 30f64.sqrt());
/// ```
#[track_caller]
pub fn matrix_norm<T: LinalgFloat, S: Matrices, D: LinalgDevice<T>>(
    a: &Tensor<T, S, D>,
    ord: MatrixNorm,
) -> Tensor<T, BatchOf<S>, D> {
    expect(try_matrix_norm(a, ord))
}

/// [`try_matrix_norm`] on tensors of any shape type, with PyTorch's size
/// checks.
fn matrix_norm_on<T: LinalgFloat, S: Shape, D: LinalgDevice<T>>(
    a: &Tensor<T, S, D>,
    ord: MatrixNorm,
) -> Result<DynTensor<T, D>, D::Error> {
    let name = "linalg.matrix_norm";
    check_matrices(a.dims(), name, "A")?;
    let r = a.rank();
    let (m, n) = (a.dims()[r - 2], a.dims()[r - 1]);
    // An empty matrix: the largest of no values is 0, as PyTorch has it;
    // the smallest of none is PyTorch's `amin` error, naming the dimension
    // it reduces (of the column sums, the row sums or the singular values).
    let bl = r - 2;
    let empty_min = match ord {
        MatrixNorm::NegOne if n == 0 => Some(bl.to_string()),
        MatrixNorm::NegInf if m == 0 => Some(bl.to_string()),
        MatrixNorm::NegTwo if m == 0 || n == 0 => Some("-1".to_string()),
        _ => None,
    };
    if let Some(dim) = empty_min {
        return Err(ShapeError::Invalid(format!(
            "amin(): Expected reduction dim {dim} to have non-zero size."
        ))
        .into());
    }
    norm_of(a, ord)
}

/// The norm `ord` of each matrix of `a` `(..., m, n)` (checked), `(...)`,
/// composed from [`Statistic::Norm`](crate::backend::op::Statistic)
/// reductions: `Fro` one pass; `±One` (`±Inf`) the absolute column (row)
/// sums, then their largest or smallest; `Nuc`, `±Two` the singular values
/// ([`Linalg::svd`](crate::backend::Linalg::svd) without vectors), then
/// their sum, largest or smallest. An empty matrix has norm 0 (`inf` for
/// the smallest of none).
pub(super) fn norm_of<T: LinalgFloat, S: Shape, D: LinalgDevice<T>>(
    a: &Tensor<T, S, D>,
    ord: MatrixNorm,
) -> Result<DynTensor<T, D>, D::Error> {
    let r = a.rank();
    let (m, n) = (a.dims()[r - 2], a.dims()[r - 1]);
    // The absolute sums along dimension `d` (the rows: column sums), then
    // the `p` norm (largest or smallest, the sums being >= 0) of those.
    let sums = |d: usize, p: f64| -> Result<DynTensor<T, D>, D::Error> {
        let mask: Vec<bool> = (0..r).map(|i| i == d).collect();
        let s: DynTensor<T, D> = reduction::statistic(Statistic::Norm(1.0), a, &mask, false)?;
        norm_last(&s, p, 1, false)
    };
    match ord {
        MatrixNorm::Fro => norm_last(a, 2.0, 2, false),
        MatrixNorm::One => sums(r - 2, f64::INFINITY),
        MatrixNorm::NegOne => sums(r - 2, f64::NEG_INFINITY),
        MatrixNorm::Inf => sums(r - 1, f64::INFINITY),
        MatrixNorm::NegInf => sums(r - 1, f64::NEG_INFINITY),
        // No singular values: the reduction of no elements (0).
        MatrixNorm::Nuc | MatrixNorm::Two if m == 0 || n == 0 => norm_last(a, 1.0, 2, false),
        MatrixNorm::Nuc | MatrixNorm::Two | MatrixNorm::NegTwo => {
            let s = svdvals_dyn(a)?;
            let p = match ord {
                MatrixNorm::Nuc => 1.0,
                MatrixNorm::Two => f64::INFINITY,
                _ => f64::NEG_INFINITY,
            };
            norm_last(&s, p, 1, false)
        }
    }
}

/// The singular values `(..., k)` of each matrix of `a`, on its device.
pub(super) fn svdvals_dyn<T: LinalgFloat, S: Shape, D: LinalgDevice<T>>(
    a: &Tensor<T, S, D>,
) -> Result<DynTensor<T, D>, D::Error> {
    Ok(super::try_svdvals(&a.share().into_dyn())?.into_dyn())
}

/// The `ord` of [`norm`]: a number (a vector norm of a 1-d input, or for a
/// 2-d input one of 1, -1, 2, -2, ±inf), or Frobenius / nuclear (2-d
/// inputs), as PyTorch's `linalg.norm`'s `ord`.
///
/// ```
/// use shaped::linalg::NormOrd;
/// assert_ne!(NormOrd::Num(2.), NormOrd::Fro);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormOrd {
    /// A number: `p` for vectors, or 1, -1, 2, -2, ±inf for matrices.
    Num(f64),
    /// `'fro'`.
    Fro,
    /// `'nuc'`.
    Nuc,
}

/// PyTorch's `linalg.norm(x, ord)` without `dim`: for `ord = None` the
/// 2-norm of all elements (any rank); otherwise `x` must be 1-d (a
/// [`vector_norm`](super::vector_norm)) or 2-d (a [`matrix_norm`]).
///
/// Runs as [`try_vector_norm`](super::try_vector_norm) or
/// [`try_matrix_norm`] on the tensor's device.
///
/// # Errors
/// An `ord` with a rank other than 1 or 2; `Fro`/`Nuc` of a vector; a
/// number that is not a matrix norm for a matrix; PyTorch's messages. And
/// those of the norm computed.
///
/// ```
/// use shaped::{linalg::{self, NormOrd}, DynRank, Tensor};
/// let x = Tensor::<f64, DynRank>::try_zeros(&[2, 2, 2]).unwrap();
/// assert_eq!(linalg::try_norm(&x, None).unwrap().item(), 0.);
/// assert_eq!(linalg::try_norm(&x, Some(NormOrd::Fro)).unwrap_err().to_string(),
///     "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got 3D.");
/// let m = Tensor::<f64, DynRank>::try_zeros(&[2, 2]).unwrap();
/// assert_eq!(linalg::try_norm(&m, Some(NormOrd::Num(0.5))).unwrap_err().to_string(),
///     "linalg.matrix_norm: Order 0.5 not supported.");
/// ```
pub fn try_norm<T: LinalgFloat, S: Shape, D: LinalgDevice<T>>(
    x: &Tensor<T, S, D>,
    ord: Option<NormOrd>,
) -> Result<Tensor<T, (), D>, D::Error> {
    let Some(ord) = ord else {
        return super::try_vector_norm(x, 2.0);
    };
    let rank = x.dims().len();
    match rank {
        1 => match ord {
            NormOrd::Num(p) => super::try_vector_norm(x, p),
            NormOrd::Fro | NormOrd::Nuc => Err(ShapeError::Invalid(
                "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.".into(),
            )
            .into()),
        },
        2 => Ok(matrix_norm_on(x, matrix_ord(ord)?)?.try_into_shape()?),
        r => Err(ShapeError::Invalid(format!(
            "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {r}D."
        ))
        .into()),
    }
}

/// The matrix norm a [`NormOrd`] names for a 2-d input of [`norm`].
pub(crate) fn matrix_ord(ord: NormOrd) -> Result<MatrixNorm, ShapeError> {
    Ok(match ord {
        NormOrd::Fro => MatrixNorm::Fro,
        NormOrd::Nuc => MatrixNorm::Nuc,
        NormOrd::Num(1.0) => MatrixNorm::One,
        NormOrd::Num(-1.0) => MatrixNorm::NegOne,
        NormOrd::Num(2.0) => MatrixNorm::Two,
        NormOrd::Num(-2.0) => MatrixNorm::NegTwo,
        NormOrd::Num(f64::INFINITY) => MatrixNorm::Inf,
        NormOrd::Num(f64::NEG_INFINITY) => MatrixNorm::NegInf,
        NormOrd::Num(p) => {
            return Err(ShapeError::Invalid(format!(
                "linalg.matrix_norm: Order {p} not supported."
            )));
        }
    })
}

/// The norm; panics where [`try_norm`] errs.
///
/// ```
/// use shaped::{linalg::{self, NormOrd}, Shape, Tensor};
/// let m = Tensor::<f64, Shape![2, 2]>::from_vec(vec![0., 1., 2., 3.]);
/// assert_eq!(linalg::norm(&m, None).item(), 14f64.sqrt());
/// assert!((linalg::norm(&m, Some(NormOrd::Nuc)).item() - 18f64.sqrt()).abs() < 1e-12);
/// let v = Tensor::<f64, Shape![4]>::from_vec(vec![0., 1., 2., 3.]);
/// assert!((linalg::norm(&v, Some(NormOrd::Num(3.))).item() - 36f64.cbrt()).abs() < 1e-12);
/// ```
#[track_caller]
pub fn norm<T: LinalgFloat, S: Shape, D: LinalgDevice<T>>(
    x: &Tensor<T, S, D>,
    ord: Option<NormOrd>,
) -> Tensor<T, (), D> {
    expect(try_norm(x, ord))
}
