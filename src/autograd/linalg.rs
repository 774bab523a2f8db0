//! Gradients of `inv`, `det`, `solve` and `cholesky`, each wired to its
//! formula in [`crate::linalg::grad`]. Batch dimensions that broadcast in
//! `solve` are summed back to each input's sizes (`sum_to`), as for
//! elementwise operations.
//!
//! ```
//! use shaped::autograd::{linalg, Var};
//! use shaped::{Shape, Tensor};
//! let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 0., 4.]));
//! let g = linalg::det(&a).backward().wrt(&a).unwrap();
//! assert_eq!(g.to_vec(), vec![4., 0., 0., 2.]);
//! ```

use crate::shape::OrPanic;
use smallvec::smallvec;

use super::Var;
use super::graph::Dyn;
use super::pointwise::sum_to_like;
use crate::linalg::{self as la, BatchOf, LinalgFloat, SolveShape, SquareMatrices, grad};
use crate::shape::{DynRank, Shape, ShapeError};

/// The inverse of each matrix of `a` `(..., n, n)`, as
/// [`linalg::try_inv`](crate::linalg::try_inv), with gradient
/// [`grad::inv_backward`].
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
pub fn try_inv<T: LinalgFloat, S: SquareMatrices>(a: &Var<T, S>) -> Result<Var<T, S>, ShapeError> {
    let value = la::try_inv(&a.value)?;
    let y = value.share().into_dyn();
    Ok(Var::from_op(value, &[a.node.as_ref()], move || {
        Box::new(move |g: &Dyn<T>, _: &[bool]| {
            smallvec![Some(
                grad::inv_backward::<T, DynRank>(g, &y).expect("the forward shapes")
            )]
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
pub fn inv<T: LinalgFloat, S: SquareMatrices>(a: &Var<T, S>) -> Var<T, S> {
    try_inv(a).or_panic()
}

/// The determinant of each matrix of `a` `(..., n, n)`, as
/// [`linalg::try_det`](crate::linalg::try_det), with gradient
/// [`grad::det_backward`] (which needs `a` invertible).
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
pub fn try_det<T: LinalgFloat, S: SquareMatrices>(
    a: &Var<T, S>,
) -> Result<Var<T, BatchOf<S>>, ShapeError> {
    let value = la::try_det(&a.value)?;
    let (av, d) = (a.erased(), value.share().into_dyn());
    Ok(Var::from_op(value, &[a.node.as_ref()], move || {
        Box::new(move |g: &Dyn<T>, _: &[bool]| {
            smallvec![Some(
                grad::det_backward::<T, DynRank>(g, &av, &d).expect("an invertible matrix")
            )]
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
pub fn det<T: LinalgFloat, S: SquareMatrices>(a: &Var<T, S>) -> Var<T, BatchOf<S>> {
    try_det(a).or_panic()
}

/// `X` with `A X = B`, batches broadcast, as
/// [`linalg::try_solve`](crate::linalg::try_solve), with gradients
/// [`grad::solve_backward`] summed to each input's sizes.
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
pub fn try_solve<T: LinalgFloat, SA, SB>(
    a: &Var<T, SA>,
    b: &Var<T, SB>,
) -> Result<Var<T, SA::Output>, ShapeError>
where
    SA: SolveShape<SB>,
    SB: Shape,
{
    let value = la::try_solve(&a.value, &b.value)?;
    let (av, x) = (a.erased(), value.share().into_dyn());
    let bdims = b.value.dims().to_vec();
    Ok(Var::from_op(
        value,
        &[a.node.as_ref(), b.node.as_ref()],
        move || {
            Box::new(move |g: &Dyn<T>, needs: &[bool]| {
                let (ga, gb) = grad::solve_backward::<T, DynRank, DynRank>(g, &av, &x)
                    .expect("the forward shapes and an invertible A");
                smallvec![
                    needs[0].then(|| sum_to_like(ga, av.dims())),
                    needs[1].then(|| sum_to_like(gb, &bdims)),
                ]
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
pub fn solve<T: LinalgFloat, SA, SB>(a: &Var<T, SA>, b: &Var<T, SB>) -> Var<T, SA::Output>
where
    SA: SolveShape<SB>,
    SB: Shape,
{
    try_solve(a, b).or_panic()
}

/// The lower Cholesky factor of each matrix of `a` `(..., n, n)`, as
/// [`linalg::try_cholesky`](crate::linalg::try_cholesky), with the
/// symmetric gradient [`grad::cholesky_backward`].
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
pub fn try_cholesky<T: LinalgFloat, S: SquareMatrices>(
    a: &Var<T, S>,
) -> Result<Var<T, S>, ShapeError> {
    let value = la::try_cholesky(&a.value)?;
    let l = value.share().into_dyn();
    Ok(Var::from_op(value, &[a.node.as_ref()], move || {
        Box::new(move |g: &Dyn<T>, _: &[bool]| {
            smallvec![Some(
                grad::cholesky_backward::<T, DynRank>(g, &l).expect("the forward shapes")
            )]
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
pub fn cholesky<T: LinalgFloat, S: SquareMatrices>(a: &Var<T, S>) -> Var<T, S> {
    try_cholesky(a).or_panic()
}
