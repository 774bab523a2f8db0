//! Copies between the host and a tensor's device, for code written once
//! over the device: the typed front of [`Backend::to_host`] and
//! [`Backend::from_host`]. Public as `shaped::ops::host`.
//!
//! ```
//! use shaped::backend::Backend;
//! use shaped::ops::host;
//! use shaped::{DynRank, Shape, Tensor};
//! // Written once; `D` may be `Cpu` or `Cuda`.
//! fn doubled<D: Backend<f32>>(t: &Tensor<f32, Shape![3], D>) -> Tensor<f32, DynRank, D> {
//!     let v: Vec<f32> = host::to_host(t).unwrap().iter().map(|x| 2.0 * x).collect();
//!     host::from_host(t, v, &[3]).unwrap()
//! }
//! let t = Tensor::<f32, Shape![3]>::from_vec(vec![1., 2., 3.]);
//! assert_eq!(doubled(&t).to_vec(), vec![2., 4., 6.]);
//! ```

use crate::Tensor;
use crate::backend::Backend;
use crate::element::Element;
use crate::shape::{Shape, ShapeError, checked_numel};

/// The elements of `a` in row-major order, copied to the host from its
/// device (a view is read through its strides).
///
/// ```
/// use shaped::ops::host;
/// use shaped::{Shape, Tensor};
/// let t = Tensor::<i32, Shape![2, 2]>::from_vec(vec![1, 2, 3, 4]);
/// assert_eq!(host::to_host(&t.transpose::<0, 1>()).unwrap(), vec![1, 3, 2, 4]);
/// ```
///
/// # Errors
/// A driver error; on the CPU, the allocation of the copy.
#[inline]
pub fn to_host<T: Element, D: Backend<T>, S: Shape>(
    a: &Tensor<T, S, D>,
) -> Result<Vec<T>, D::Error> {
    D::to_host(a.layout())
}

/// A tensor of sizes `dims` holding `data` (row-major), on the device that
/// `like` (a tensor of any element type and shape) lives on: on the same
/// GPU for a CUDA tensor.
///
/// ```
/// use shaped::ops::host;
/// use shaped::{Shape, Tensor};
/// let like = Tensor::<f32, Shape![2]>::zeros();
/// let ids: Tensor<i64, Shape![2, 1]> = host::from_host(&like, vec![7, 9], &[2, 1]).unwrap();
/// assert_eq!(ids.to_vec(), vec![7, 9]);
/// let short: Result<Tensor<i64, Shape![2, 1]>, _> = host::from_host(&like, vec![7], &[2, 1]);
/// assert_eq!(short.unwrap_err().to_string(), "shape '[2, 1]' is invalid for input of size 1");
/// ```
///
/// # Errors
/// `dims` do not fit `S`, `data` does not hold their element count (PyTorch's
/// "shape '[2, 1]' is invalid for input of size 1"), an allocation or driver
/// error.
#[inline]
pub fn from_host<T: Element, D: Backend<T>, S: Shape, U: Element, SL: Shape>(
    like: &Tensor<U, SL, D>,
    data: Vec<T>,
    dims: &[usize],
) -> Result<Tensor<T, S, D>, D::Error> {
    S::check_dims(dims)?;
    if checked_numel(dims)? != data.len() {
        return Err(ShapeError::Numel {
            shape: dims.to_vec(),
            numel: data.len(),
        }
        .into());
    }
    Ok(Tensor::from_output(D::from_host(
        like.layout(),
        data,
        dims,
    )?)?)
}
