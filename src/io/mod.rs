//! Reading and writing tensors in files, each format behind its feature:
//! [`npy`] (`.npy` / `.npz`, feature `npy`, through the `npyz` crate) and
//! [`safetensors`](mod@safetensors) (feature `safetensors`, read at
//! positions: never memory-mapped, so a file truncated meanwhile is an
//! error, not a `SIGBUS`).
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

/// The most dimensions a file may give a tensor: NumPy's limit (`NPY_MAXDIMS`
/// is 64 since NumPy 2.0), checked before anything else is read.
///
/// ```
/// assert_eq!(shaped::io::MAX_RANK, 64);
/// ```
pub const MAX_RANK: usize = 64;

/// The most elements an array with no elements may span when its zero
/// sizes are taken as 1 (`[0, 1 << 30]` spans `1 << 30`), beyond what the
/// file's data could hold: sizes that no data backs are a claim, and a
/// reduction over such an array allocates what the claim says.
pub(crate) const MAX_UNBACKED_ELEMENTS: u64 = 1 << 20;

/// A file that is not what its format says, or that claims more than it
/// holds.
#[cfg(any(feature = "npy", feature = "safetensors", feature = "serde"))]
pub(crate) fn invalid(msg: impl Into<String>) -> Error {
    Error::Io(std::io::Error::new(
        std::io::ErrorKind::InvalidData,
        msg.into(),
    ))
}

/// The sizes a file claims, screened before anything is allocated: at most
/// [`MAX_RANK`] of them (NumPy's message), their product and its byte size
/// without overflow, the bytes no more than `available` (the data the file
/// holds, where that is known before reading it), and an empty array's
/// other sizes within [`MAX_UNBACKED_ELEMENTS`]. Gives the element count.
#[cfg(any(feature = "npy", feature = "safetensors", feature = "serde"))]
pub(crate) fn screen_sizes(
    dims: &[u64],
    elem_bytes: usize,
    available: Option<u64>,
) -> Result<usize, Error> {
    if dims.len() > MAX_RANK {
        return Err(invalid(format!(
            "maximum supported dimension for an ndarray is currently {MAX_RANK}, found {}",
            dims.len()
        )));
    }
    let overflow = || {
        invalid(format!(
            "the file claims sizes {dims:?}, whose product overflows 64 bits"
        ))
    };
    let mut numel: u64 = 1;
    let mut span: u64 = 1;
    for &d in dims {
        numel = numel.checked_mul(d).ok_or_else(overflow)?;
        span = span.checked_mul(d.max(1)).ok_or_else(overflow)?;
    }
    let bytes = numel.checked_mul(elem_bytes as u64).ok_or_else(overflow)?;
    if let Some(have) = available
        && bytes > have
    {
        return Err(invalid(format!(
            "the file claims sizes {dims:?} ({bytes} bytes of data), but holds {have} bytes"
        )));
    }
    if numel == 0 && span > MAX_UNBACKED_ELEMENTS {
        return Err(invalid(format!(
            "the file claims sizes {dims:?}: an empty array whose other sizes span {span} elements, more than the {MAX_UNBACKED_ELEMENTS} a file may claim without data"
        )));
    }
    usize::try_from(numel).map_err(|_| overflow())
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
