//! `vector_norm` (over all elements or over run-time dims) and `cross`
//! (the cross product of 3-vectors along the last dimension).

use super::compose::view;
use super::{LinalgFloat, SameRank, Vectors, WithTail, expect};
use crate::backend::Backend;
use crate::backend::cpu::linalg::batch::{broadcast_batch, dims_with};
use crate::backend::op::Statistic;
use crate::backend::op::table;
use crate::ops::reduce::axes;
use crate::shape::{Broadcast, BroadcastShape, Const, Dim, DynRank, Shape};
use crate::tensor::indexing;
use crate::tensor::pointwise;
use crate::tensor::reduction;
use crate::{ShapeError, Tensor};

/// PyTorch's spelling of an `ord` in messages: `inf`, `-inf`, `-1`, `0.5`.
fn ord_text(ord: f64) -> String {
    if ord.is_infinite() {
        if ord > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format!("{ord}")
    }
}

/// Whether the `ord` norm has no value on no elements (a minimum or a
/// negative power has no identity).
fn needs_elements(ord: f64) -> bool {
    ord < 0.0 || ord.is_infinite()
}

/// The `ord` vector norm of all the elements of `x`, as PyTorch's
/// `linalg.vector_norm(x, ord)`: `(Σ|x|^ord)^(1/ord)` for finite nonzero
/// `ord` (2 is the Euclidean norm), the largest magnitude for `inf`, the
/// smallest for `-inf`, the number of nonzero elements for `0`.
///
/// On every device one `Statistic::Norm` reduction (on CUDA: `abs`, then a
/// sum or max / min reduction kernel, and a pointwise root for `p` other
/// than 1, 0 and ±inf).
///
/// # Errors
/// An empty `x` with `ord` negative or infinite (PyTorch's message).
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let e = Tensor::<f64, DynRank>::try_zeros(&[0]).unwrap();
/// assert_eq!(linalg::try_vector_norm(&e, f64::NEG_INFINITY).unwrap_err().to_string(),
///     "linalg.vector_norm cannot compute the -inf norm on an empty tensor because the operation does not have an identity");
/// assert_eq!(linalg::try_vector_norm(&e, 2.).unwrap().item(), 0.);
/// ```
pub fn try_vector_norm<T: LinalgFloat, S: Shape, D: Backend<T>>(
    x: &Tensor<T, S, D>,
    ord: f64,
) -> Result<Tensor<T, (), D>, D::Error> {
    check_norm_all(x.numel(), ord)?;
    reduction::statistic(Statistic::Norm(ord), x, &axes::all(x.rank()), false)
}

/// PyTorch's check before [`try_vector_norm`] of `numel` elements: a norm
/// without identity (`ord` negative or infinite) needs elements.
pub(crate) fn check_norm_all(numel: usize, ord: f64) -> Result<(), ShapeError> {
    if numel == 0 && needs_elements(ord) {
        return Err(ShapeError::Invalid(format!(
            "linalg.vector_norm cannot compute the {} norm on an empty tensor because the operation does not have an identity",
            ord_text(ord)
        )));
    }
    Ok(())
}

/// The `ord` norm of all elements; panics where [`try_vector_norm`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let x = Tensor::<f64, Shape![2, 2]>::from_vec(vec![3., 0., -4., 0.]);
/// assert_eq!(linalg::vector_norm(&x, 2.).item(), 5.);
/// assert_eq!(linalg::vector_norm(&x, 1.).item(), 7.);
/// assert_eq!(linalg::vector_norm(&x, f64::INFINITY).item(), 4.);
/// assert_eq!(linalg::vector_norm(&x, 0.).item(), 2.);
/// ```
#[track_caller]
pub fn vector_norm<T: LinalgFloat, S: Shape, D: Backend<T>>(
    x: &Tensor<T, S, D>,
    ord: f64,
) -> Tensor<T, (), D> {
    expect(try_vector_norm(x, ord))
}

/// The `ord` vector norm over the dimensions `dims` of `x` (negative counts
/// from the end; empty: all), keeping them as size 1 with `keepdim`, as
/// PyTorch's `linalg.vector_norm(x, ord, dim, keepdim)`.
///
/// On every device one `Statistic::Norm` reduction over `dims`, as
/// [`try_vector_norm`].
///
/// # Errors
/// A dim out of range or named twice; an empty reduced dimension with `ord`
/// negative or infinite. PyTorch's messages.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let x = Tensor::<f64, DynRank>::try_from_vec(vec![3., 4., 0., 1.], &[2, 2]).unwrap();
/// let n = linalg::try_vector_norm_dims(&x, 2., &[-1], false).unwrap();
/// assert_eq!((n.dims(), n.to_vec()), (&[2][..], vec![5., 1.]));
/// let e = Tensor::<f64, DynRank>::try_zeros(&[2, 0]).unwrap();
/// assert_eq!(linalg::try_vector_norm_dims(&e, f64::INFINITY, &[1], false).unwrap_err().to_string(),
///     "linalg.vector_norm cannot compute the inf norm on the dimension 1because this dimension is empty and the operation does not have an identity");
/// ```
pub fn try_vector_norm_dims<T: LinalgFloat, S: Shape, D: Backend<T>>(
    x: &Tensor<T, S, D>,
    ord: f64,
    dims: &[isize],
    keepdim: bool,
) -> Result<Tensor<T, DynRank, D>, D::Error> {
    let mask = check_norm_dims(x.dims(), ord, dims)?;
    reduction::statistic(Statistic::Norm(ord), x, &mask, keepdim)
}

/// The dimensions [`try_vector_norm_dims`] reduces, as a mask of `sizes`,
/// after PyTorch's checks: each dim in range and named once; no empty one
/// for a norm without identity (`ord` negative or infinite).
pub(crate) fn check_norm_dims(
    sizes: &[usize],
    ord: f64,
    dims: &[isize],
) -> Result<axes::Mask, ShapeError> {
    let mask = axes::from_dims(dims, sizes.len())?;
    let empty = (0..sizes.len()).find(|&d| mask[d] && sizes[d] == 0);
    if let (true, Some(d)) = (needs_elements(ord), empty) {
        return Err(ShapeError::Invalid(format!(
            "linalg.vector_norm cannot compute the {} norm on the dimension {d}because this dimension is empty and the operation does not have an identity",
            ord_text(ord)
        )));
    }
    Ok(mask)
}

/// The norm over `dims`; panics where [`try_vector_norm_dims`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let x = Tensor::<f64, Shape![2, 2]>::from_vec(vec![3., 4., 0., 1.]);
/// assert_eq!(linalg::vector_norm_dims(&x, 1., &[0], true).to_vec(), vec![3., 5.]);
/// ```
#[track_caller]
pub fn vector_norm_dims<T: LinalgFloat, S: Shape, D: Backend<T>>(
    x: &Tensor<T, S, D>,
    ord: f64,
    dims: &[isize],
    keepdim: bool,
) -> Tensor<T, DynRank, D> {
    expect(try_vector_norm_dims(x, ord, dims, keepdim))
}

/// A size that can be 3: `Const<3>`, or `Dyn` (checked at run time).
#[diagnostic::on_unimplemented(
    message = "linalg.cross: the last dimension must have length 3, but it is `{Self}`",
    label = "not of length 3"
)]
pub trait Three: Dim {}
impl Three for Const<3> {}
impl Three for crate::shape::Dyn {}

/// The shape of `cross(a, b)` for `a` `(..., 3)` (`Self`) and `b`
/// `(..., 3)` of the same rank: the batch dimensions broadcast.
///
/// ```
/// use shaped::{Shape, linalg::CrossShape};
/// let _: <Shape![2, 1, 3] as CrossShape<Shape![1, 4, 3]>>::Output = <Shape![2, 4, 3]>::default();
/// ```
#[diagnostic::on_unimplemented(
    message = "linalg.cross: cannot take the cross product of `{Self}` and `{B}`",
    label = "not two batches of 3-vectors that broadcast",
    note = "both shapes must end in 3 and have the same rank; their other dimensions broadcast"
)]
pub trait CrossShape<B: Shape>: Vectors {
    /// The shape of the result.
    type Output: Shape;
}

#[diagnostic::do_not_recommend]
impl<A, B> CrossShape<B> for A
where
    A: Vectors,
    B: Vectors,
    A::Len: Three,
    B::Len: Three,
    A::Batch: SameRank<B::Batch>,
    A::Batch: BroadcastShape<B::Batch>,
    Broadcast<A::Batch, B::Batch>: WithTail,
{
    type Output = <Broadcast<A::Batch, B::Batch> as WithTail>::Vec<Const<3>>;
}

/// [`CrossShape`] with `Self` the shape of `b` in `cross(a, b)` and `SA` of
/// `a`: `Output` is the shape of the result.
///
/// ```
/// use shaped::{Shape, linalg::CrossRhs};
/// let _: <Shape![1, 3] as CrossRhs<Shape![2, 3]>>::Output = <Shape![2, 3]>::default();
/// ```
pub trait CrossRhs<SA: Shape>: Shape {
    /// The shape of `cross(a, b)`.
    type Output: Shape;
}

/// Every pair with a [`CrossShape`] rule.
impl<SA: CrossShape<SB>, SB: Shape> CrossRhs<SA> for SB {
    type Output = <SA as CrossShape<SB>>::Output;
}

/// The cross product of the 3-vectors of `a` and `b` along the last
/// dimension, the other dimensions broadcast, as PyTorch's
/// `linalg.cross(a, b)`. A last dimension other than 3, or ranks that
/// differ, are compile errors where they are static.
///
/// Composed on every device from views of the three components (no copy),
/// six broadcast multiplications, three subtractions and one `cat` (ten
/// kernels on CUDA). On the CPU that is more passes over the data than the
/// single per-vector loop it replaces.
///
/// # Errors
/// Ranks that differ, a last dimension other than 3, batches that do not
/// broadcast (run time for `Dyn`/`DynRank`), with PyTorch's messages.
///
/// ```
/// use shaped::{linalg, DynRank, Tensor};
/// let a = Tensor::<f64, DynRank>::try_zeros(&[2, 4]).unwrap();
/// assert_eq!(linalg::try_cross(&a, &a).unwrap_err().to_string(),
///     "linalg.cross: inputs dimension -1 must have length 3. Got 4 and 4");
/// ```
pub fn try_cross<T: LinalgFloat, SA: Shape, SB: CrossRhs<SA>, D: Backend<T>>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
) -> Result<Tensor<T, SB::Output, D>, D::Error>
where
    SB::Output: Shape,
{
    Ok(cross_dyn(a, b)?.try_into_shape()?)
}

/// The cross product; panics where [`try_cross`] errs.
///
/// ```
/// use shaped::{linalg, Shape, Tensor};
/// let x = Tensor::<f64, Shape![2, 3]>::from_vec(vec![1., 0., 0., 0., 1., 0.]);
/// let y = Tensor::<f64, Shape![1, 3]>::from_vec(vec![0., 1., 0.]);
/// let z: Tensor<f64, Shape![2, 3]> = linalg::cross(&x, &y);
/// assert_eq!(z.to_vec(), vec![0., 0., 1., 0., 0., 0.]);
/// ```
#[track_caller]
pub fn cross<T: LinalgFloat, SA: Shape, SB: CrossRhs<SA>, D: Backend<T>>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
) -> Tensor<T, SB::Output, D>
where
    SB::Output: Shape,
{
    expect(try_cross(a, b))
}

/// `a × b` for tensors of any shape types, on their device: PyTorch's size
/// checks, then each component `u_i v_j - u_j v_i` from views of the
/// components (no copy), the three joined along the last dimension.
pub(crate) fn cross_dyn<T: LinalgFloat, SA: Shape, SB: Shape, D: Backend<T>>(
    a: &Tensor<T, SA, D>,
    b: &Tensor<T, SB, D>,
) -> Result<Tensor<T, DynRank, D>, D::Error> {
    let name = "linalg.cross";
    if a.rank() != b.rank() {
        return Err(ShapeError::Invalid(format!(
            "{name}: inputs must have the same number of dimensions."
        ))
        .into());
    }
    let r = a.rank();
    if r == 0 {
        return Err(ShapeError::Invalid(format!(
            "{name}: The input tensor A must have at least 1 dimension."
        ))
        .into());
    }
    let (ad, bd) = (a.dims(), b.dims());
    if ad[r - 1] != 3 || bd[r - 1] != 3 {
        return Err(ShapeError::Invalid(format!(
            "{name}: inputs dimension -1 must have length 3. Got {} and {}",
            ad[r - 1],
            bd[r - 1]
        ))
        .into());
    }
    let batch = broadcast_batch(&ad[..r - 1], &bd[..r - 1])?;
    let (u, v) = (components(a), components(b));
    let term = |i: usize, j: usize| -> Result<Tensor<T, DynRank, D>, D::Error> {
        let l: Tensor<T, DynRank, D> = pointwise::binary(table::Mul, &u[i], &v[j])?;
        let r: Tensor<T, DynRank, D> = pointwise::binary(table::Mul, &u[j], &v[i])?;
        pointwise::binary(table::Sub, &l, &r)
    };
    let parts = [term(1, 2)?, term(2, 0)?, term(0, 1)?];
    indexing::cat(&parts, r - 1, &dims_with(&batch, &[3]))
}

/// The three components of the 3-vectors of `x` `(..., 3)`, each a view
/// `(..., 1)`.
fn components<T: LinalgFloat, S: Shape, D: Backend<T>>(
    x: &Tensor<T, S, D>,
) -> [Tensor<T, DynRank, D>; 3] {
    let step = x.strides()[x.rank() - 1];
    let mut dims = x.dims().to_vec();
    *dims.last_mut().expect("a vector dimension") = 1;
    [0, 1, 2].map(|i| view(x, &dims, x.strides(), i * step))
}
