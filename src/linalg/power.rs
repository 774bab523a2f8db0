//! `matrix_power` (integer powers, negative through the inverse) and
//! `matrix_exp` (scaling and squaring with a degree-13 Padé approximant).

use faer::Mat;
use faer::linalg::solvers::Solve;

use super::batch::{Operand, check_square, matmul, par_batches, stack, tensor};
use super::{LinalgFloat, SquareMatrices, expect, plu};
use crate::ops::exec::Layout;
use crate::{ShapeError, Tensor};

/// `Aⁿ` for each matrix of `a` `(..., n, n)`, as PyTorch's
/// `linalg.matrix_power`: the identity for `n = 0`, repeated squaring for
/// `n > 0`, and powers of the inverse for `n < 0`. The shape is kept, so a
/// static `(.., n, n)` stays static.
///
/// # Errors
/// A non-square or rank < 2 shape; for `n < 0`, a singular matrix (the
/// message of [`try_inv`](super::try_inv)).
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[2, 3]).unwrap();
/// assert_eq!(linalg::try_matrix_power(&a, 2).unwrap_err().to_string(),
///     "linalg.matrix_power: A must be batches of square matrices, but they are 2 by 3 matrices");
/// let s = Tensor::<f64, DynRank>::try_zeros(&[2, 2]).unwrap();
/// assert_eq!(linalg::try_matrix_power(&s, -1).unwrap_err().to_string(),
///     "linalg.inv: The diagonal element 1 is zero, the inversion could not be completed because the input matrix is singular.");
/// ```
pub fn try_matrix_power<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
    n: i64,
) -> Result<Tensor<T, S>, ShapeError>
where
    S::N: crate::Dim,
{
    let a = if n < 0 { super::try_inv(a)? } else { a.clone() };
    let (data, dims) = map_square(a.layout(), "linalg.matrix_power", |m| {
        Ok(power(&m, n.unsigned_abs()))
    })?;
    tensor(data, &dims)
}

/// `Aⁿ` of each matrix; panics where [`try_matrix_power`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2, 2]>::from_vec(vec![1., 1., 0., 1., 2., 0., 0., 0.5]);
/// let p: Tensor<f64, Shape![2, 2, 2]> = linalg::matrix_power(&a, 3);
/// assert_eq!(p.to_vec(), vec![1., 3., 0., 1., 8., 0., 0., 0.125]);
/// assert_eq!(linalg::matrix_power(&a, -2).to_vec(), vec![1., -2., 0., 1., 0.25, 0., 0., 4.]);
/// ```
#[track_caller]
pub fn matrix_power<T: LinalgFloat, S: SquareMatrices>(a: &Tensor<T, S>, n: i64) -> Tensor<T, S>
where
    S::N: crate::Dim,
{
    expect(try_matrix_power(a, n))
}

/// `mᵏ` by repeated squaring.
pub(crate) fn power<T: LinalgFloat>(m: &Mat<T>, mut k: u64) -> Mat<T> {
    let mut acc = Mat::<T>::identity(m.nrows(), m.ncols());
    let mut base = m.clone();
    while k > 0 {
        if k & 1 == 1 {
            acc = matmul(acc.as_ref(), base.as_ref());
        }
        k >>= 1;
        if k > 0 {
            base = matmul(base.as_ref(), base.as_ref());
        }
    }
    acc
}

/// The matrix exponential `exp(A) = Σ Aᵏ / k!` of each matrix of `a`
/// `(..., n, n)`, as PyTorch's `linalg.matrix_exp`: scaling and squaring
/// with the degree-13 Padé approximant (Higham 2005, as SciPy's `expm`).
///
/// # Errors
/// A non-square or rank < 2 shape.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[3]).unwrap();
/// assert_eq!(linalg::try_matrix_exp(&a).unwrap_err().to_string(),
///     "linalg.matrix_exp: The input tensor A must have at least 2 dimensions.");
/// ```
pub fn try_matrix_exp<T: LinalgFloat, S: SquareMatrices>(
    a: &Tensor<T, S>,
) -> Result<Tensor<T, S>, ShapeError>
where
    S::N: crate::Dim,
{
    let (data, dims) = map_square(a.layout(), "linalg.matrix_exp", |m| Ok(expm(&m)))?;
    tensor(data, &dims)
}

/// `exp(A)` of each matrix; panics where [`try_matrix_exp`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// // exp of [[0, t], [-t, 0]] is the rotation by t.
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![0., 1., -1., 0.]);
/// let e = linalg::matrix_exp(&a).to_vec();
/// let want = [1f64.cos(), 1f64.sin(), -1f64.sin(), 1f64.cos()];
/// assert!(e.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-14));
/// ```
#[track_caller]
pub fn matrix_exp<T: LinalgFloat, S: SquareMatrices>(a: &Tensor<T, S>) -> Tensor<T, S>
where
    S::N: crate::Dim,
{
    expect(try_matrix_exp(a))
}

/// `exp(m)`: Padé 13 with scaling and squaring.
pub(crate) fn expm<T: LinalgFloat>(m: &Mat<T>) -> Mat<T> {
    const B: [f64; 14] = [
        64764752532480000.,
        32382376266240000.,
        7771770303897600.,
        1187353796428800.,
        129060195264000.,
        10559470521600.,
        670442572800.,
        33522128640.,
        1323241920.,
        40840800.,
        960960.,
        16380.,
        182.,
        1.,
    ];
    const THETA13: f64 = 5.371920351148152;
    let n = m.nrows();
    if n == 0 {
        return m.clone();
    }
    let c = |x: f64| T::from(x).unwrap_or(T::zero());
    let norm1 = (0..n)
        .map(|j| (0..n).fold(T::zero(), |s, i| s + m[(i, j)].abs()))
        .fold(T::zero(), |a, b| if b > a { b } else { a });
    let ratio = num_traits::ToPrimitive::to_f64(&norm1).unwrap_or(f64::NAN) / THETA13;
    let s = if ratio > 1.0 {
        ratio.log2().ceil().min(1000.0) as i32
    } else {
        0
    };
    let scale = c(0.5f64.powi(s));
    let a = Mat::from_fn(n, n, |i, j| m[(i, j)] * scale);
    let a2 = matmul(a.as_ref(), a.as_ref());
    let a4 = matmul(a2.as_ref(), a2.as_ref());
    let a6 = matmul(a4.as_ref(), a2.as_ref());
    let id = Mat::<T>::identity(n, n);
    let lin = |w: [f64; 4], ms: [&Mat<T>; 4]| {
        Mat::from_fn(n, n, |i, j| {
            (0..4).fold(T::zero(), |acc, k| acc + c(w[k]) * ms[k][(i, j)])
        })
    };
    let zero = Mat::<T>::zeros(n, n);
    let u_in = lin([B[13], B[11], B[9], 0.], [&a6, &a4, &a2, &zero]);
    let u_in = matmul(a6.as_ref(), u_in.as_ref());
    let u_sum = lin([1., B[7], B[5], B[3]], [&u_in, &a6, &a4, &a2]);
    let u_sum = Mat::from_fn(n, n, |i, j| u_sum[(i, j)] + c(B[1]) * id[(i, j)]);
    let u = matmul(a.as_ref(), u_sum.as_ref());
    let v_in = lin([B[12], B[10], B[8], 0.], [&a6, &a4, &a2, &zero]);
    let v_in = matmul(a6.as_ref(), v_in.as_ref());
    let v = lin([1., B[6], B[4], B[2]], [&v_in, &a6, &a4, &a2]);
    let v = Mat::from_fn(n, n, |i, j| v[(i, j)] + c(B[0]) * id[(i, j)]);
    let p = Mat::from_fn(n, n, |i, j| v[(i, j)] + u[(i, j)]);
    let q = Mat::from_fn(n, n, |i, j| v[(i, j)] - u[(i, j)]);
    let (lu, _) = plu(&q);
    let mut r = p;
    lu.solve_in_place(&mut r);
    for _ in 0..s {
        r = matmul(r.as_ref(), r.as_ref());
    }
    r
}

/// `f` on every square matrix of `a`, its results stacked in `a`'s shape.
pub(crate) fn map_square<T: LinalgFloat>(
    a: Layout<'_, T>,
    name: &str,
    f: impl Fn(Mat<T>) -> Result<Mat<T>, String> + Sync,
) -> Result<(Vec<T>, Vec<usize>), ShapeError> {
    let a = Operand::matrices(a, name, "A")?;
    let n = check_square(&a, name, "A")?;
    let batch = a.batch().to_vec();
    let offs = a.offsets(&batch);
    let mats = par_batches(name, &batch, |i| f(a.mat(offs[i])))?;
    Ok((stack(&mats, n * n), a.dims_vec()))
}
