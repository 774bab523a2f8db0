//! Any op of the table, run on typed tensors: the typed front of the
//! backends' pointwise primitives. Each function erases its operands'
//! shape types (the backend sees their layouts), calls the [`Backend`]
//! primitive of the same name, and checks the new storage's sizes against
//! the result's shape type. The tensor methods, the operators, autograd
//! and `linalg` call these, so the primitives are compiled once per element
//! type and op, whatever the shapes. Public as `shaped::ops::pointwise`:
//! the way to run an op of `shaped::ops::table` that has no tensor method
//! (a backward op, say), on any device.
//!
//! ```
//! use shaped::ops::pointwise;
//! use shaped::ops::table::{Add, MaximumBackward};
//! use shaped::{Shape, Tensor};
//! let a = Tensor::<f32, Shape![2, 1]>::from_vec(vec![1., 2.]);
//! let b = Tensor::<f32, Shape![3]>::from_vec(vec![10., 20., 30.]);
//! let c: Tensor<f32, Shape![2, 3]> = pointwise::binary(Add, &a, &b).unwrap();
//! assert_eq!(c.to_vec(), vec![11., 21., 31., 12., 22., 32.]);
//! // The gradient of `maximum` for its first input: `g` where `x > y`.
//! let (g, x, y) = (c.ones_like(), c.share(), c.full_like(21.0));
//! let gx: Tensor<f32, Shape![2, 3]> = pointwise::ternary(MaximumBackward, &g, &x, &y).unwrap();
//! assert_eq!(gx.to_vec(), vec![0., 0.5, 1., 0., 1., 1.]);
//! ```

use crate::Tensor;
use crate::backend::Backend;
use crate::backend::op::{Map1, Map2, Map3};
use crate::element::Element;
use crate::shape::Shape;

/// [`Backend::unary`]: `op` on every element of `a`.
///
/// ```
/// use shaped::ops::{pointwise, table::Exp};
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f64, Shape![2]>::from_vec(vec![0., 1.]);
/// let e = pointwise::unary(Exp, &a).unwrap();
/// assert_eq!(e.to_vec(), vec![1.0, 1f64.exp()]);
/// ```
///
/// # Errors
/// The primitive's (see [`Backend`]), or sizes that do not fit the result's
/// shape type.
#[inline]
pub fn unary<T: Element, D: Backend<T>, Op: Map1<T>, S: Shape>(
    op: Op,
    a: &Tensor<T, S, D>,
) -> Result<Tensor<T, S, D>, D::Error> {
    Ok(Tensor::from_output(D::unary(op, a.layout())?)?)
}

/// [`Backend::copy`]: a contiguous copy of `a` in new storage.
///
/// ```
/// use shaped::ops::pointwise;
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<i32, Shape![2, 2]>::from_vec(vec![1, 2, 3, 4]);
/// let t = pointwise::copy(&a.transpose::<0, 1>()).unwrap();
/// assert_eq!((t.to_vec(), t.strides()), (vec![1, 3, 2, 4], &[2, 1][..]));
/// ```
///
/// # Errors
/// The primitive's (see [`Backend`]), or sizes that do not fit the result's
/// shape type.
#[inline]
pub fn copy<T: Element, D: Backend<T>, S: Shape>(
    a: &Tensor<T, S, D>,
) -> Result<Tensor<T, S, D>, D::Error> {
    Ok(Tensor::from_output(D::copy(a.layout())?)?)
}

/// [`Backend::cast_from`]: `a`'s elements converted to `T`.
///
/// ```
/// use shaped::ops::pointwise;
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![2]>::from_vec(vec![1.7, -1.7]);
/// let i = pointwise::cast_from::<i32, f32, _, _>(&a).unwrap();
/// assert_eq!(i.to_vec(), vec![1, -1]);
/// ```
///
/// # Errors
/// The primitive's (see [`Backend`]), or sizes that do not fit the result's
/// shape type.
#[inline]
pub fn cast_from<T: Element, F: Element, D: Backend<T> + Backend<F>, S: Shape>(
    a: &Tensor<F, S, D>,
) -> Result<Tensor<T, S, D>, <D as crate::device::Device>::Error> {
    Ok(Tensor::from_output(<D as Backend<T>>::cast_from::<F>(
        a.layout(),
    )?)?)
}

/// [`Backend::binary`]: `op` on `a` and `b` broadcast together, of shape
/// `SO`.
///
/// ```
/// use shaped::ops::{pointwise, table::Sub};
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![2]>::from_vec(vec![5., 6.]);
/// let b = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
/// let d: Tensor<f32, Shape![2]> = pointwise::binary(Sub, &a, &b).unwrap();
/// assert_eq!(d.to_vec(), vec![4., 4.]);
/// ```
///
/// # Errors
/// The primitive's (see [`Backend`]), or sizes that do not fit the result's
/// shape type.
#[inline]
pub fn binary<T: Element, D: Backend<T>, Op, S1: Shape, S2: Shape, SO: Shape>(
    op: Op,
    a: &Tensor<T, S1, D>,
    b: &Tensor<T, S2, D>,
) -> Result<Tensor<T, SO, D>, D::Error>
where
    Op: Map2<T, Out = T>,
{
    Ok(Tensor::from_output(D::binary(op, a.layout(), b.layout())?)?)
}

/// [`Backend::compare`]: as [`binary`], with `bool` results.
///
/// ```
/// use shaped::ops::{pointwise, table::Less};
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![2]>::from_vec(vec![1., 3.]);
/// let b = Tensor::<f32, Shape![1]>::from_vec(vec![2.]);
/// let m: Tensor<bool, Shape![2]> = pointwise::compare(Less, &a, &b).unwrap();
/// assert_eq!(m.to_vec(), vec![true, false]);
/// ```
///
/// # Errors
/// The primitive's (see [`Backend`]), or sizes that do not fit the result's
/// shape type.
#[inline]
pub fn compare<T: Element, D: Backend<T>, Op, S1: Shape, S2: Shape, SO: Shape>(
    op: Op,
    a: &Tensor<T, S1, D>,
    b: &Tensor<T, S2, D>,
) -> Result<Tensor<bool, SO, D>, D::Error>
where
    Op: Map2<T, Out = bool>,
{
    Ok(Tensor::from_output(D::compare(
        op,
        a.layout(),
        b.layout(),
    )?)?)
}

/// [`Backend::binary_into`]: `op` on `a` and `b` written into `out`.
///
/// ```
/// use shaped::ops::{pointwise, table::Mul};
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![2]>::from_vec(vec![2., 3.]);
/// let mut out = Tensor::<f32, Shape![2]>::zeros();
/// pointwise::binary_into(Mul, &a, &a, &mut out).unwrap();
/// assert_eq!(out.to_vec(), vec![4., 9.]);
/// ```
///
/// # Errors
/// The primitive's (see [`Backend`]): the in-place and `out=` size rules,
/// overlapping memory, or a driver error.
#[inline]
pub fn binary_into<T: Element, D: Backend<T>, Op, S1: Shape, S2: Shape, SO: Shape>(
    op: Op,
    a: &Tensor<T, S1, D>,
    b: &Tensor<T, S2, D>,
    out: &mut Tensor<T, SO, D>,
) -> Result<(), D::Error>
where
    Op: Map2<T, Out = T>,
{
    D::binary_into(op, a.layout(), b.layout(), out.layout())
}

/// [`Backend::ternary`]: `op` on `a`, `b` and `c` broadcast together.
///
/// ```
/// use shaped::ops::{pointwise, table::Addcmul};
/// use shaped::{Shape, Tensor};
/// let a = Tensor::<f32, Shape![2]>::from_vec(vec![1., 1.]);
/// let b = Tensor::<f32, Shape![2]>::from_vec(vec![2., 3.]);
/// // a + 0.5 * b * b
/// let r: Tensor<f32, Shape![2]> = pointwise::ternary(Addcmul(0.5), &a, &b, &b).unwrap();
/// assert_eq!(r.to_vec(), vec![3., 5.5]);
/// ```
///
/// # Errors
/// The primitive's (see [`Backend`]), or sizes that do not fit the result's
/// shape type.
#[inline]
pub fn ternary<T, D, Op, S1, S2, S3, SO>(
    op: Op,
    a: &Tensor<T, S1, D>,
    b: &Tensor<T, S2, D>,
    c: &Tensor<T, S3, D>,
) -> Result<Tensor<T, SO, D>, D::Error>
where
    T: Element,
    D: Backend<T>,
    Op: Map3<T, T>,
    S1: Shape,
    S2: Shape,
    S3: Shape,
    SO: Shape,
{
    let o = D::ternary(op, a.layout(), b.layout(), c.layout())?;
    Ok(Tensor::from_output(o)?)
}

/// [`Backend::select`]: `op` on a `bool` condition and `b`, `c`.
///
/// ```
/// use shaped::ops::{pointwise, table::Where};
/// use shaped::{Shape, Tensor};
/// let cond = Tensor::<bool, Shape![2]>::from_vec(vec![true, false]);
/// let (x, y) = (Tensor::<f32, Shape![2]>::ones(), Tensor::<f32, Shape![2]>::zeros());
/// let r: Tensor<f32, Shape![2]> = pointwise::select(Where, &cond, &x, &y).unwrap();
/// assert_eq!(r.to_vec(), vec![1., 0.]);
/// ```
///
/// # Errors
/// The primitive's (see [`Backend`]), or sizes that do not fit the result's
/// shape type.
#[inline]
pub fn select<T, D, Op, S1, S2, S3, SO>(
    op: Op,
    cond: &Tensor<bool, S1, D>,
    b: &Tensor<T, S2, D>,
    c: &Tensor<T, S3, D>,
) -> Result<Tensor<T, SO, D>, D::Error>
where
    T: Element,
    D: Backend<T>,
    Op: Map3<bool, T>,
    S1: Shape,
    S2: Shape,
    S3: Shape,
    SO: Shape,
{
    let o = D::select(op, cond.layout(), b.layout(), c.layout())?;
    Ok(Tensor::from_output(o)?)
}

/// [`Backend::unary_`]: `op` in place on every element of `a`.
///
/// ```
/// use shaped::ops::{pointwise, table::Neg};
/// use shaped::{Shape, Tensor};
/// let mut a = Tensor::<f32, Shape![2]>::from_vec(vec![1., -2.]);
/// pointwise::unary_(Neg, &mut a).unwrap();
/// assert_eq!(a.to_vec(), vec![-1., 2.]);
/// ```
///
/// # Errors
/// The primitive's (see [`Backend`]): the in-place and `out=` size rules,
/// overlapping memory, or a driver error.
#[inline]
pub fn unary_<T: Element, D: Backend<T>, Op: Map1<T>, S: Shape>(
    op: Op,
    a: &mut Tensor<T, S, D>,
) -> Result<(), D::Error> {
    D::unary_(op, a.layout())
}

/// [`Backend::binary_`]: `a = op(a, b)`.
///
/// ```
/// use shaped::ops::{pointwise, table::Add};
/// use shaped::{Shape, Tensor};
/// let mut a = Tensor::<f32, Shape![2, 2]>::zeros();
/// let row = Tensor::<f32, Shape![2]>::from_vec(vec![1., 2.]);
/// pointwise::binary_(Add, &mut a, &row).unwrap();
/// assert_eq!(a.to_vec(), vec![1., 2., 1., 2.]);
/// ```
///
/// # Errors
/// The primitive's (see [`Backend`]): the in-place and `out=` size rules,
/// overlapping memory, or a driver error.
#[inline]
pub fn binary_<T: Element, D: Backend<T>, Op, S: Shape, S2: Shape>(
    op: Op,
    a: &mut Tensor<T, S, D>,
    b: &Tensor<T, S2, D>,
) -> Result<(), D::Error>
where
    Op: Map2<T, Out = T>,
{
    D::binary_(op, a.layout(), b.layout())
}

/// [`Backend::ternary_`]: `a = op(a, b, c)`.
///
/// ```
/// use shaped::ops::{pointwise, table::Addcmul};
/// use shaped::{Shape, Tensor};
/// let mut a = Tensor::<f32, Shape![2]>::ones();
/// let b = Tensor::<f32, Shape![2]>::from_vec(vec![2., 4.]);
/// pointwise::ternary_(Addcmul(1.0), &mut a, &b, &b).unwrap();
/// assert_eq!(a.to_vec(), vec![5., 17.]);
/// ```
///
/// # Errors
/// The primitive's (see [`Backend`]): the in-place and `out=` size rules,
/// overlapping memory, or a driver error.
#[inline]
pub fn ternary_<T: Element, D: Backend<T>, Op, S: Shape, S2: Shape, S3: Shape>(
    op: Op,
    a: &mut Tensor<T, S, D>,
    b: &Tensor<T, S2, D>,
    c: &Tensor<T, S3, D>,
) -> Result<(), D::Error>
where
    Op: Map3<T, T>,
{
    D::ternary_(op, a.layout(), b.layout(), c.layout())
}
