//! The reductions of a backend, run on typed tensors: the typed front of
//! [`Backend::reduce`], [`Backend::statistic`], [`Backend::truth`],
//! [`Backend::arg_extreme`] and [`Backend::softmax`]. Each function passes
//! its operand's layout down (the backend sees no shape type) and checks
//! the new storage's sizes against the result's shape type, so the
//! primitives are compiled once per element type, whatever the shapes.
//! The tensor methods (`sum`, `var`, `norm`, `all`, `max_dim`, `softmax`
//! ...), autograd and `linalg` call these; public as
//! `shaped::ops::reduce::primitives`, for code that picks a reduction at
//! run time.
//!
//! ```
//! use shaped::backend::op::Reduction;
//! use shaped::ops::reduce::primitives;
//! use shaped::{DynRank, Tensor};
//! let t = Tensor::<f32, DynRank>::try_from_vec(vec![1., 2., 3., 4.], &[2, 2]).unwrap();
//! for (r, want) in [(Reduction::Sum, [3., 7.]), (Reduction::Max, [2., 4.])] {
//!     let rows: Tensor<f32, DynRank> = primitives::reduce(r, &t, &[false, true], false).unwrap();
//!     assert_eq!(rows.to_vec(), want);
//! }
//! ```

use crate::Tensor;
use crate::backend::Backend;
use crate::backend::op::{Reduction, Statistic};
use crate::element::{Element, Float, Numeric};
use crate::shape::Shape;

/// [`Backend::reduce`]: `r` over the dimensions of `a` flagged in `mask`
/// (one flag per dimension), the reduced ones kept as size 1 when
/// `keepdim`.
///
/// ```
/// use shaped::backend::op::Reduction;
/// use shaped::ops::reduce::primitives;
/// use shaped::{Shape, Tensor};
/// let t = Tensor::<i64, Shape![2, 3]>::from_vec(vec![1, 2, 3, 4, 5, 6]);
/// let cols: Tensor<i64, Shape![1, 3]> = primitives::reduce(Reduction::Prod, &t, &[true, false], true).unwrap();
/// assert_eq!(cols.to_vec(), vec![4, 10, 18]);
/// ```
///
/// # Errors
/// The primitive's (see [`Backend`]), or sizes that do not fit `SO`.
/// `max` and `min` of no elements are the caller's to refuse (the tensor
/// methods do, with PyTorch's message).
#[inline]
pub fn reduce<T: Numeric, D: Backend<T>, S: Shape, SO: Shape>(
    r: Reduction,
    a: &Tensor<T, S, D>,
    mask: &[bool],
    keepdim: bool,
) -> Result<Tensor<T, SO, D>, D::Error> {
    Ok(Tensor::from_output(D::reduce(
        r,
        a.layout(),
        mask,
        keepdim,
    )?)?)
}

/// [`Backend::statistic`]: the float reduction `s` (`var`, `std`, a norm,
/// `logsumexp`) over the dimensions of `a` flagged in `mask`.
///
/// ```
/// use shaped::backend::op::Statistic;
/// use shaped::ops::reduce::primitives;
/// use shaped::{Shape, Tensor};
/// let t = Tensor::<f64, Shape![4]>::from_vec(vec![1., 2., 3., 4.]);
/// let var = Statistic::Variance { correction: 1, sqrt: false };
/// let v: Tensor<f64, Shape![]> = primitives::statistic(var, &t, &[true], false).unwrap();
/// assert_eq!(v.to_vec(), vec![5.0 / 3.0]);
/// ```
///
/// # Errors
/// The primitive's (see [`Backend`]), or sizes that do not fit `SO`.
#[inline]
pub fn statistic<T: Float, D: Backend<T>, S: Shape, SO: Shape>(
    s: Statistic,
    a: &Tensor<T, S, D>,
    mask: &[bool],
    keepdim: bool,
) -> Result<Tensor<T, SO, D>, D::Error> {
    Ok(Tensor::from_output(D::statistic(
        s,
        a.layout(),
        mask,
        keepdim,
    )?)?)
}

/// [`Backend::truth`]: whether every (`all`) or some element over the
/// dimensions flagged in `mask` is nonzero.
///
/// ```
/// use shaped::ops::reduce::primitives;
/// use shaped::{Shape, Tensor};
/// let t = Tensor::<f32, Shape![2, 2]>::from_vec(vec![0., 1., 2., 3.]);
/// let all: Tensor<bool, Shape![2]> = primitives::truth(true, &t, &[false, true], false).unwrap();
/// assert_eq!(all.to_vec(), vec![false, true]);
/// ```
///
/// # Errors
/// The primitive's (see [`Backend`]), or sizes that do not fit `SO`.
#[inline]
pub fn truth<T: Element, D: Backend<T>, S: Shape, SO: Shape>(
    all: bool,
    a: &Tensor<T, S, D>,
    mask: &[bool],
    keepdim: bool,
) -> Result<Tensor<bool, SO, D>, D::Error> {
    Ok(Tensor::from_output(D::truth(
        all,
        a.layout(),
        mask,
        keepdim,
    )?)?)
}

/// [`Backend::arg_extreme`]: the largest (`max`) or smallest values over
/// the dimensions flagged in `mask` and their indices (row-major over the
/// reduced dimensions; the first of equal values, a NaN before all).
///
/// ```
/// use shaped::ops::reduce::primitives;
/// use shaped::{Shape, Tensor};
/// let t = Tensor::<f32, Shape![2, 3]>::from_vec(vec![1., 5., 5., 7., 0., 2.]);
/// let (v, i): (Tensor<f32, Shape![2]>, _) = primitives::arg_extreme(true, &t, &[false, true], false).unwrap();
/// assert_eq!((v.to_vec(), i.to_vec()), (vec![5., 7.], vec![1, 0]));
/// ```
///
/// # Errors
/// The primitive's (see [`Backend`]), or sizes that do not fit `SO`. An
/// output that reduces no element is the caller's to refuse.
#[allow(clippy::type_complexity)]
#[inline]
pub fn arg_extreme<T: Numeric, D: Backend<T>, S: Shape, SO: Shape>(
    max: bool,
    a: &Tensor<T, S, D>,
    mask: &[bool],
    keepdim: bool,
) -> Result<(Tensor<T, SO, D>, Tensor<i64, SO, D>), D::Error> {
    let (v, i) = D::arg_extreme(max, a.layout(), mask, keepdim)?;
    Ok((Tensor::from_output(v)?, Tensor::from_output(i)?))
}

/// [`Backend::softmax`]: `softmax` (or, with `log`, `log_softmax`) of `a`
/// along dimension `dim`, which the caller has checked to be in range.
///
/// ```
/// use shaped::ops::reduce::primitives;
/// use shaped::{Shape, Tensor};
/// let t = Tensor::<f64, Shape![2]>::from_vec(vec![0., 0.]);
/// assert_eq!(primitives::softmax(&t, 0, false).unwrap().to_vec(), vec![0.5, 0.5]);
/// ```
///
/// # Errors
/// The primitive's (see [`Backend`]).
#[inline]
pub fn softmax<T: Float, D: Backend<T>, S: Shape>(
    a: &Tensor<T, S, D>,
    dim: usize,
    log: bool,
) -> Result<Tensor<T, S, D>, D::Error> {
    Ok(Tensor::from_output(D::softmax(a.layout(), dim, log)?)?)
}
