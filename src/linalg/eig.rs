//! `eig` and `eigvals`: eigenvalues and eigenvectors of general real
//! matrices, which are complex.
//!
//! **Why no complex element type.** The crate's element types are real (and
//! integer); a complex one would have to be carried by every kernel
//! (pointwise, reductions, matmul, the CUDA backend) to be more than a
//! container. `eig` returns [`ComplexTensor`]: the real and imaginary parts
//! as two real tensors of the same shape, which is what the other
//! functions of this crate can take, and which converts to
//! `(re, im)` pairs with [`ComplexTensor::to_pairs`].
//!
//! **Devices.** cuSOLVER (through cudarc 0.19) has no batched eigensolver
//! for general matrices, and PyTorch's CUDA `linalg.eig` computes on the
//! host too (MAGMA's `geev`): on CUDA the matrices are copied to the host,
//! the CPU code runs, and the results are copied back (a synchronizing
//! round trip). On the CPU that round trip is one extra copy of the input
//! and of each result.

use crate::tensor::host;

use super::generic::check_square_dims;
use super::tensor;
use super::{EigvalsOf, LinalgFloat, SquareMatrices, expect};
use crate::backend::Backend;
use crate::backend::cpu::linalg::eig as kernel;
use crate::device::{Cpu, Device};
use crate::shape::{DynRank, Shape};
use crate::{ShapeError, Tensor};

/// A complex tensor as its real and imaginary parts, both of shape `S`.
///
/// ```
/// use shaped::{linalg::ComplexTensor, Shape, Tensor};
/// let z = ComplexTensor {
///     re: Tensor::<f64, Shape![2]>::from_vec(vec![1., 2.]),
///     im: Tensor::<f64, Shape![2]>::from_vec(vec![0., -1.]),
/// };
/// assert_eq!(z.to_pairs(), vec![(1., 0.), (2., -1.)]);
/// ```
pub struct ComplexTensor<T: LinalgFloat, S: Shape, D: Device = Cpu> {
    /// The real parts.
    pub re: Tensor<T, S, D>,
    /// The imaginary parts.
    pub im: Tensor<T, S, D>,
}

// By hand, not derived: a derive would ask `D: Clone`, where what matters
// is whether the device's tensors are (a CUDA tensor is not `Clone`).
impl<T: LinalgFloat, S: Shape, D: Device> Clone for ComplexTensor<T, S, D>
where
    Tensor<T, S, D>: Clone,
{
    fn clone(&self) -> Self {
        ComplexTensor {
            re: self.re.clone(),
            im: self.im.clone(),
        }
    }
}

impl<T: LinalgFloat, S: Shape, D: Device> core::fmt::Debug for ComplexTensor<T, S, D>
where
    Tensor<T, S, D>: core::fmt::Debug,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ComplexTensor")
            .field("re", &self.re)
            .field("im", &self.im)
            .finish()
    }
}

impl<T: LinalgFloat, S: Shape> ComplexTensor<T, S> {
    /// The elements as `(re, im)` pairs, row-major.
    ///
    /// ```
    /// use shaped::{linalg, Shape, Tensor};
    /// let a = Tensor::<f64, Shape![1, 1]>::from_vec(vec![3.]);
    /// assert_eq!(linalg::eigvals(&a).to_pairs(), vec![(3., 0.)]);
    /// ```
    pub fn to_pairs(&self) -> Vec<(T, T)> {
        self.re.to_vec().into_iter().zip(self.im.to_vec()).collect()
    }
}

/// The eigenvalues `(..., n)` and eigenvectors `(..., n, n)` (column `j`
/// belongs to eigenvalue `j`) of each real matrix of `a` `(..., n, n)`, as
/// PyTorch's `linalg.eig`: complex, as [`ComplexTensor`]s. Each eigenvector
/// has unit norm and its largest component real, as LAPACK's `geev` gives
/// them; the order of the eigenvalues is not specified (as in PyTorch).
///
/// On CUDA (as PyTorch's, which runs MAGMA's `geev` on the host): the
/// matrices are copied to the host, the CPU's faer eigensolver runs there,
/// and the four results are copied back; see the module's notes.
///
/// # Errors
/// A non-square or rank < 2 shape; a NaN or infinity in `a`; no convergence.
/// PyTorch's messages.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[2, 3]).unwrap();
/// assert_eq!(linalg::try_eig(&a).unwrap_err().to_string(),
///     "linalg.eig: A must be batches of square matrices, but they are 2 by 3 matrices");
/// ```
#[allow(clippy::type_complexity)]
pub fn try_eig<T: LinalgFloat, S: SquareMatrices, D: Backend<T>>(
    a: &Tensor<T, S, D>,
) -> Result<(ComplexTensor<T, EigvalsOf<S>, D>, ComplexTensor<T, S, D>), D::Error>
where
    S::N: crate::Dim,
{
    let host = on_host(a, "linalg.eig")?;
    let (vals, vecs) = eig_cpu(&host)?;
    Ok((back(a, &vals)?, back(a, &vecs)?))
}

/// `(eigenvalues, eigenvectors)` of the CPU matrices `a`: the CPU kernel
/// on `a`'s layout, the results made tensors.
#[allow(clippy::type_complexity)]
fn eig_cpu<T: LinalgFloat>(
    a: &Tensor<T, DynRank>,
) -> Result<(ComplexTensor<T, DynRank>, ComplexTensor<T, DynRank>), ShapeError> {
    finite(a)?;
    let e = kernel::eig(a.layout(), true)?;
    let [vre, vim] = e.vecs.expect("eigenvectors asked for");
    let [lre, lim] = e.vals;
    Ok((
        ComplexTensor {
            re: tensor(lre, &e.vals_dims)?,
            im: tensor(lim, &e.vals_dims)?,
        },
        ComplexTensor {
            re: tensor(vre, &e.vecs_dims)?,
            im: tensor(vim, &e.vecs_dims)?,
        },
    ))
}

/// `(eigenvalues, eigenvectors)`; panics where [`try_eig`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// // A rotation by 90 degrees: eigenvalues ±i.
/// let a = Tensor::<f64, Shape![2, 2]>::from_vec(vec![0., -1., 1., 0.]);
/// let (vals, vecs) = linalg::eig(&a);
/// let mut im = vals.im.to_vec();
/// im.sort_by(f64::total_cmp);
/// assert!((im[0] + 1.).abs() < 1e-12 && (im[1] - 1.).abs() < 1e-12);
/// assert!(vals.re.to_vec().iter().all(|r| r.abs() < 1e-12));
/// assert_eq!(vecs.re.dims(), &[2, 2]);
/// ```
#[track_caller]
#[allow(clippy::type_complexity)]
pub fn eig<T: LinalgFloat, S: SquareMatrices, D: Backend<T>>(
    a: &Tensor<T, S, D>,
) -> (ComplexTensor<T, EigvalsOf<S>, D>, ComplexTensor<T, S, D>)
where
    S::N: crate::Dim,
{
    expect(try_eig(a))
}

/// The eigenvalues `(..., n)` of each real matrix of `a` `(..., n, n)`, as
/// PyTorch's `linalg.eigvals`.
///
/// On CUDA: copied to the host and back, as [`try_eig`].
///
/// # Errors
/// As [`try_eig`], named `linalg.eigvals`.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_from_vec(vec![f64::NAN, 0., 0., 1.], &[2, 2]).unwrap();
/// assert_eq!(linalg::try_eigvals(&a).unwrap_err().to_string(),
///     "torch.linalg.eig: input tensor should not contain infs or NaNs.");
/// ```
pub fn try_eigvals<T: LinalgFloat, S: SquareMatrices, D: Backend<T>>(
    a: &Tensor<T, S, D>,
) -> Result<ComplexTensor<T, EigvalsOf<S>, D>, D::Error>
where
    S::N: crate::Dim,
{
    let host = on_host(a, "linalg.eigvals")?;
    back(a, &eigvals_cpu(&host)?)
}

/// The eigenvalues of the CPU matrices `a`: the CPU kernel on `a`'s
/// layout, the results made tensors.
fn eigvals_cpu<T: LinalgFloat>(
    a: &Tensor<T, DynRank>,
) -> Result<ComplexTensor<T, DynRank>, ShapeError> {
    finite(a)?;
    let e = kernel::eig(a.layout(), false)?;
    let [re, im] = e.vals;
    Ok(ComplexTensor {
        re: tensor(re, &e.vals_dims)?,
        im: tensor(im, &e.vals_dims)?,
    })
}

/// The eigenvalues; panics where [`try_eigvals`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let a = Tensor::<f64, Shape![2, 2, 2]>::from_vec(vec![2., 0., 0., 2., 1., 1., 0., 3.]);
/// let v: Vec<(f64, f64)> = linalg::eigvals(&a).to_pairs();
/// let mut re: Vec<f64> = v.iter().map(|z| z.0).collect();
/// re[2..].sort_by(f64::total_cmp);
/// assert_eq!(re, vec![2., 2., 1., 3.]);
/// ```
#[track_caller]
pub fn eigvals<T: LinalgFloat, S: SquareMatrices, D: Backend<T>>(
    a: &Tensor<T, S, D>,
) -> ComplexTensor<T, EigvalsOf<S>, D>
where
    S::N: crate::Dim,
{
    expect(try_eigvals(a))
}

/// `a` copied to the host (the CPU) after PyTorch's size checks.
fn on_host<T: LinalgFloat, S: Shape, D: Backend<T>>(
    a: &Tensor<T, S, D>,
    name: &str,
) -> Result<Tensor<T, DynRank>, D::Error> {
    check_square_dims(a.dims(), name, "A")?;
    super::compose::download(a)
}

/// The CPU result `z` copied to `like`'s device, in the shape `S2`.
fn back<T: LinalgFloat, S2: Shape, D: Backend<T>>(
    like: &Tensor<T, impl Shape, D>,
    z: &ComplexTensor<T, DynRank>,
) -> Result<ComplexTensor<T, S2, D>, D::Error> {
    Ok(ComplexTensor {
        re: host::from_host(like, z.re.to_vec(), z.re.dims())?,
        im: host::from_host(like, z.im.to_vec(), z.im.dims())?,
    })
}

fn finite<T: LinalgFloat, S: Shape>(a: &Tensor<T, S>) -> Result<(), ShapeError> {
    if a.to_vec().iter().any(|x| !x.is_finite()) {
        return Err(ShapeError::Invalid(
            "torch.linalg.eig: input tensor should not contain infs or NaNs.".into(),
        ));
    }
    Ok(())
}
