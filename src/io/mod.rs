//! Reading and writing tensors in files, each format behind its feature:
//! [`npy`] (`.npy` / `.npz`, feature `npy`, through the `npyz` crate) and
//! [`safetensors`](mod@safetensors) (feature `safetensors`, memory-mapped
//! through `memmap2`).
//!
//! Every load names its tensor type (`Tensor<f32, Shape![2, 3]>`): the
//! file's dtype must be that element type and its sizes must fit that shape,
//! else the [`Error`] names both.

#[cfg(feature = "npy")]
pub mod npy;
#[cfg(feature = "safetensors")]
pub mod safetensors;

use core::fmt;

/// What can go wrong reading or writing a tensor file.
///
/// ```
/// # #[cfg(feature = "npy")] {
/// use shaped::io::{npy, Error};
/// use shaped::{Shape, Tensor};
/// let mut buf = Vec::new();
/// npy::to_writer(&mut buf, &Tensor::<f32, Shape![2, 3]>::zeros()).unwrap();
/// let e = npy::from_reader::<f32, Shape![3, 3], _>(&buf[..]).unwrap_err();
/// assert!(matches!(e, Error::Shape { .. }));
/// assert_eq!(e.to_string(),
///     "shape mismatch: the file holds sizes [2, 3], the tensor type is Shape![3, 3] (expected size 3 at dimension 0, but got shape [2, 3])");
/// # }
/// ```
#[derive(Debug)]
pub enum Error {
    /// The file could not be read or written, or is not of the format.
    Io(std::io::Error),
    /// The file's sizes do not fit the shape type asked for.
    Shape {
        /// The sizes in the file.
        found: Vec<usize>,
        /// The shape type, as `Shape!` writes it.
        expected: String,
        /// Why they do not fit.
        reason: crate::ShapeError,
    },
    /// The file's element type is not the one asked for.
    Dtype {
        /// The element type asked for (PyTorch's name).
        expected: &'static str,
        /// The file's element type, as the format names it.
        found: String,
    },
    /// A named tensor is not in the file.
    Missing(String),
    /// The file is of the format but holds something this crate does not
    /// read (a structured NumPy dtype, a pickled object array, ...).
    Unsupported(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(e) => write!(f, "{e}"),
            Error::Shape {
                found,
                expected,
                reason,
            } => write!(
                f,
                "shape mismatch: the file holds sizes {found:?}, the tensor type is {expected} ({reason})"
            ),
            Error::Dtype { expected, found } => write!(
                f,
                "dtype mismatch: the file holds {found}, the tensor type's element is {expected}"
            ),
            Error::Missing(name) => write!(f, "no tensor named '{name}' in the file"),
            Error::Unsupported(what) => write!(f, "unsupported: {what}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) => Some(e),
            Error::Shape { reason, .. } => Some(reason),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

/// The sizes `dims` checked against `S`, as a tensor of shape `S` needs.
#[cfg(any(feature = "npy", feature = "safetensors"))]
fn check_shape<S: crate::shape::Shape>(dims: &[usize]) -> Result<S::Dims, Error> {
    S::check_dims(dims).map_err(|reason| Error::Shape {
        found: dims.to_vec(),
        expected: crate::tensor::shape_name::<S>(),
        reason,
    })
}
