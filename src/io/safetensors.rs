//! safetensors files through the `safetensors` crate (feature
//! `safetensors`): the header read and checked once per file, each tensor
//! loaded by name with positioned reads of its bytes alone into a typed
//! tensor whose dtype and sizes are checked; written from any number of
//! tensors of any element types.
//!
//! Loading a struct of typed parameters is one `load` per field; each
//! field's type states the shape the file must have:
//!
//! ```
//! use shaped::io::safetensors::{SafeTensorsFile, SafeTensorsWriter};
//! use shaped::{Shape, Tensor};
//!
//! struct Linear {
//!     weight: Tensor<f32, Shape![4, 3]>,
//!     bias: Tensor<f32, Shape![4]>,
//! }
//!
//! let path = std::env::temp_dir().join("shaped_doc_linear.safetensors");
//! let mut w = SafeTensorsWriter::new();
//! w.add("weight", &Tensor::<f32, Shape![4, 3]>::ones());
//! w.add("bias", &Tensor::<f32, Shape![4]>::zeros());
//! w.write(&path).unwrap();
//!
//! let file = SafeTensorsFile::open(&path).unwrap();
//! let lin = Linear { weight: file.load("weight")?, bias: file.load("bias")? };
//! assert_eq!(lin.weight.get([3, 2]), 1.0);
//! // A field whose shape differs from the file's is an error naming both.
//! let e = file.load::<f32, Shape![3, 4]>("weight").unwrap_err();
//! assert_eq!(e.to_string(), "shape mismatch: the file holds sizes [4, 3], the tensor type is Shape![3, 4] (expected size 3 at dimension 0, but got shape [4, 3])");
//! # Ok::<(), shaped::io::Error>(())
//! ```

use std::borrow::Cow;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::Path;

use safetensors::tensor::{Dtype, Metadata, SafeTensors, View};

use super::{Error, check_shape, screen_sizes};
use crate::element::{Element, bf16, f16};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// An element type safetensors files hold, with its little-endian bytes.
///
/// ```
/// use shaped::io::safetensors::SafeElement;
/// let mut out = Vec::new();
/// 1.0f32.put_le(&mut out);
/// assert_eq!(f32::from_le(&out), 1.0);
/// ```
pub trait SafeElement: Element {
    /// The safetensors dtype.
    const DTYPE: Dtype;
    /// Size in bytes.
    const SIZE: usize;
    /// The value of `bytes` (`SIZE` of them, little-endian).
    fn from_le(bytes: &[u8]) -> Self;
    /// Appends the little-endian bytes of the value.
    fn put_le(self, out: &mut Vec<u8>);
}

macro_rules! safe_element {
    ($($t:ty => $d:ident),*) => {$(
        impl SafeElement for $t {
            const DTYPE: Dtype = Dtype::$d;
            const SIZE: usize = core::mem::size_of::<$t>();
            fn from_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("one element's bytes"))
            }
            fn put_le(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
safe_element!(
    u8 => U8, u16 => U16, u32 => U32, u64 => U64,
    i8 => I8, i16 => I16, i32 => I32, i64 => I64,
    f16 => F16, bf16 => BF16, f32 => F32, f64 => F64
);

impl SafeElement for bool {
    const DTYPE: Dtype = Dtype::BOOL;
    const SIZE: usize = 1;
    fn from_le(bytes: &[u8]) -> Self {
        bytes[0] != 0
    }
    fn put_le(self, out: &mut Vec<u8>) {
        out.push(u8::from(self));
    }
}

/// Where a safetensors file's data section is: a file read at positions
/// (never mapped: a mapped file truncated by another process kills the
/// reader with `SIGBUS`, while a read past its new end is an error), or
/// bytes in memory.
enum Data {
    File {
        file: File,
        /// The offset of the data section (after the header).
        start: u64,
    },
    Owned {
        bytes: Vec<u8>,
        start: usize,
    },
}

/// A safetensors file, opened for loading its tensors by name: its header
/// is read, checked and parsed once, and each [`load`](Self::load) reads
/// that tensor's bytes alone.
///
/// ```
/// use shaped::io::safetensors::{SafeTensorsFile, SafeTensorsWriter};
/// use shaped::{DynRank, Shape, Tensor};
/// let mut w = SafeTensorsWriter::new();
/// w.add("x", &Tensor::<i64, Shape![2]>::from([1, 2]));
/// let f = SafeTensorsFile::from_bytes(w.to_bytes().unwrap()).unwrap();
/// assert_eq!(f.names(), vec!["x".to_string()]);
/// let x: Tensor<i64, DynRank> = f.load("x").unwrap();
/// assert_eq!(x.to_vec(), vec![1, 2]);
/// ```
pub struct SafeTensorsFile {
    data: Data,
    metadata: Metadata,
}

fn format_error(e: safetensors::SafeTensorError) -> Error {
    Error::Io(std::io::Error::new(std::io::ErrorKind::InvalidData, e))
}

/// The format's own bound on the header (the `safetensors` crate's).
const MAX_HEADER: u64 = 100_000_000;

/// Bytes read per positioned read: large enough that a model loads in few
/// system calls, small enough to stay in the L2 cache on the way to the
/// tensor's elements.
const READ_CHUNK: usize = 256 << 10;

impl SafeTensorsFile {
    /// Opens the file at `path` and reads and checks its header: its
    /// length against the file's, the tensors' offsets against each other,
    /// their sizes against their dtypes and shapes, and the data section's
    /// length against the file's. The tensors' bytes are read by
    /// [`load`](Self::load), at their positions; a file truncated or
    /// rewritten meanwhile gives an error there (or other values), never a
    /// crash.
    ///
    /// # Errors
    /// When the file cannot be opened or read, or is not a safetensors
    /// file.
    ///
    /// ```no_run
    /// let f = shaped::io::safetensors::SafeTensorsFile::open("model.safetensors").unwrap();
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        let mut file = File::open(path)?;
        let len = file.metadata()?.len();
        let mut n = [0u8; 8];
        file.read_exact(&mut n)
            .map_err(|_| format_error(safetensors::SafeTensorError::HeaderTooSmall))?;
        let n = u64::from_le_bytes(n);
        if n > MAX_HEADER {
            return Err(format_error(safetensors::SafeTensorError::HeaderTooLarge));
        }
        if n > len - 8 {
            return Err(format_error(
                safetensors::SafeTensorError::InvalidHeaderLength,
            ));
        }
        let mut header = vec![0u8; n as usize];
        file.read_exact(&mut header)?;
        let metadata = parse_header(&header)?;
        if 8 + n + metadata.data_len() as u64 != len {
            return Err(format_error(
                safetensors::SafeTensorError::MetadataIncompleteBuffer,
            ));
        }
        Ok(SafeTensorsFile {
            data: Data::File { file, start: 8 + n },
            metadata,
        })
    }

    /// A file held in memory.
    ///
    /// # Errors
    /// When the bytes are not a safetensors file.
    ///
    /// ```
    /// use shaped::io::safetensors::SafeTensorsFile;
    /// assert!(SafeTensorsFile::from_bytes(b"nope".to_vec()).is_err());
    /// ```
    pub fn from_bytes(bytes: Vec<u8>) -> Result<Self, Error> {
        let (n, metadata) = SafeTensors::read_metadata(&bytes).map_err(format_error)?;
        Ok(SafeTensorsFile {
            data: Data::Owned {
                bytes,
                start: 8 + n,
            },
            metadata,
        })
    }

    /// The names of the tensors, sorted.
    ///
    /// ```no_run
    /// let f = shaped::io::safetensors::SafeTensorsFile::open("model.safetensors").unwrap();
    /// for name in f.names() { println!("{name}"); }
    /// ```
    pub fn names(&self) -> Vec<String> {
        let mut names = self.metadata.offset_keys();
        names.sort();
        names
    }

    /// Loads the tensor `name`, checking its dtype against `T` and its sizes
    /// against `S`.
    ///
    /// # Errors
    /// [`Error::Missing`], [`Error::Dtype`] or [`Error::Shape`]; more than
    /// [`MAX_RANK`](super::MAX_RANK) dimensions, or sizes that no data backs
    /// (`[0, 1 << 30]`), are refused before anything is allocated; a read
    /// that fails (a file truncated since it was opened) is
    /// [`Error::Io`].
    ///
    /// ```no_run
    /// use shaped::{Shape, Tensor};
    /// let f = shaped::io::safetensors::SafeTensorsFile::open("model.safetensors").unwrap();
    /// let w: Tensor<f32, Shape![_, 768]> = f.load("wte.weight").unwrap();
    /// ```
    pub fn load<T: SafeElement, S: Shape>(&self, name: &str) -> Result<Tensor<T, S>, Error> {
        let info = self
            .metadata
            .info(name)
            .ok_or_else(|| Error::Missing(name.to_string()))?;
        if info.dtype != T::DTYPE {
            return Err(Error::Dtype {
                expected: T::NAME,
                found: format!("{:?}", info.dtype),
            });
        }
        let (begin, end) = info.data_offsets;
        let dims64: Vec<u64> = info.shape.iter().map(|&d| d as u64).collect();
        let numel = screen_sizes(&dims64, T::SIZE, Some((end - begin) as u64))?;
        let dims = info.shape.clone();
        check_shape::<S>(&dims)?;
        let mut data: Vec<T> = Vec::new();
        data.try_reserve_exact(numel).map_err(|_| {
            Error::Io(std::io::Error::new(
                std::io::ErrorKind::OutOfMemory,
                format!("tried to allocate {} bytes", numel * T::SIZE),
            ))
        })?;
        self.read_bytes(begin, end, T::SIZE, |bytes| {
            data.extend(bytes.chunks_exact(T::SIZE).map(T::from_le))
        })?;
        Tensor::try_from_vec(data, &dims).map_err(|reason| Error::Shape {
            found: dims.clone(),
            expected: crate::tensor::shape_name::<S>(),
            reason,
        })
    }

    /// The element type (as the format names it: `F32`, `BF16`, ...) and
    /// the sizes of the tensor `name`, from the header; `None` when the
    /// file has no such tensor.
    ///
    /// ```
    /// use shaped::io::safetensors::{SafeTensorsFile, SafeTensorsWriter};
    /// use shaped::{Shape, Tensor};
    /// let mut w = SafeTensorsWriter::new();
    /// w.add("x", &Tensor::<f32, Shape![2, 3]>::zeros());
    /// let f = SafeTensorsFile::from_bytes(w.to_bytes().unwrap()).unwrap();
    /// assert_eq!(f.info("x"), Some(("F32".to_string(), vec![2, 3])));
    /// assert_eq!(f.info("y"), None);
    /// ```
    pub fn info(&self, name: &str) -> Option<(String, Vec<usize>)> {
        let info = self.metadata.info(name)?;
        Some((format!("{:?}", info.dtype), info.shape.clone()))
    }

    /// Reads the elements of the tensor `name` (row-major) into `out`,
    /// converting them to `T` as PyTorch's `copy_` does (`F16`/`BF16`
    /// weights into an `f32` model, say): the file's bytes go through a
    /// small buffer straight into `out`, with no tensor-sized copy in
    /// between. How [`load_safetensors`](crate::nn::load_safetensors) fills a
    /// model's parameters in place.
    ///
    /// # Errors
    /// [`Error::Missing`]; [`Error::Shape`] when `out` does not have the
    /// tensor's element count; [`Error::Dtype`] for a boolean tensor; a
    /// failed read (a file truncated since it was opened) is
    /// [`Error::Io`].
    ///
    /// ```
    /// use shaped::io::safetensors::{SafeTensorsFile, SafeTensorsWriter};
    /// use shaped::{Shape, Tensor};
    /// let mut w = SafeTensorsWriter::new();
    /// w.add("x", &Tensor::<shaped::element::bf16, Shape![2]>::ones());
    /// let f = SafeTensorsFile::from_bytes(w.to_bytes().unwrap()).unwrap();
    /// let mut out = [0f32; 2];
    /// f.read_into("x", &mut out).unwrap();
    /// assert_eq!(out, [1., 1.]);
    /// assert!(f.read_into("x", &mut [0f32; 3]).is_err());
    /// ```
    pub fn read_into<T: Element>(&self, name: &str, out: &mut [T]) -> Result<(), Error> {
        let info = self
            .metadata
            .info(name)
            .ok_or_else(|| Error::Missing(name.to_string()))?;
        let dims64: Vec<u64> = info.shape.iter().map(|&d| d as u64).collect();
        let (begin, end) = info.data_offsets;
        let size = info.dtype.bitsize().div_ceil(8);
        let numel = screen_sizes(&dims64, size.max(1), Some((end - begin) as u64))?;
        if numel != out.len() {
            return Err(Error::Shape {
                found: info.shape.clone(),
                expected: format!("{} elements", out.len()),
                reason: crate::ShapeError::Invalid(format!(
                    "the file's tensor has {numel} elements"
                )),
            });
        }
        fn convert<F: SafeElement, T: Element>(
            file: &SafeTensorsFile,
            (begin, end): (usize, usize),
            out: &mut [T],
        ) -> Result<(), Error> {
            let mut i = 0;
            file.read_bytes(begin, end, F::SIZE, |bytes| {
                for (o, b) in out[i..].iter_mut().zip(bytes.chunks_exact(F::SIZE)) {
                    *o = T::from_scalar(F::from_le(b).to_scalar());
                }
                i += bytes.len() / F::SIZE;
            })
        }
        let span = (begin, end);
        match info.dtype {
            Dtype::F64 => convert::<f64, T>(self, span, out),
            Dtype::F32 => convert::<f32, T>(self, span, out),
            Dtype::F16 => convert::<f16, T>(self, span, out),
            Dtype::BF16 => convert::<bf16, T>(self, span, out),
            Dtype::I64 => convert::<i64, T>(self, span, out),
            Dtype::I32 => convert::<i32, T>(self, span, out),
            Dtype::I16 => convert::<i16, T>(self, span, out),
            Dtype::I8 => convert::<i8, T>(self, span, out),
            Dtype::U64 => convert::<u64, T>(self, span, out),
            Dtype::U32 => convert::<u32, T>(self, span, out),
            Dtype::U16 => convert::<u16, T>(self, span, out),
            Dtype::U8 => convert::<u8, T>(self, span, out),
            other => Err(Error::Dtype {
                expected: T::NAME,
                found: format!("{other:?}"),
            }),
        }
    }

    /// Calls `put` on the bytes `begin..end` of the data section, in
    /// pieces of whole elements of `elem` bytes: slices of the bytes in
    /// memory, or positioned reads of the file through one small buffer.
    fn read_bytes(
        &self,
        begin: usize,
        end: usize,
        elem: usize,
        mut put: impl FnMut(&[u8]),
    ) -> Result<(), Error> {
        match &self.data {
            Data::Owned { bytes, start } => put(&bytes[start + begin..start + end]),
            Data::File { file, start } => {
                let mut buf = vec![0u8; READ_CHUNK - READ_CHUNK % elem.max(1)];
                let mut at = begin;
                while at < end {
                    let n = buf.len().min(end - at);
                    file.read_exact_at(&mut buf[..n], start + at as u64)?;
                    put(&buf[..n]);
                    at += n;
                }
            }
        }
        Ok(())
    }
}

/// The tensors' entries of a header, checked as the `safetensors` crate
/// checks them (offsets contiguous and in order, each tensor's byte count
/// its shape's).
fn parse_header(header: &[u8]) -> Result<Metadata, Error> {
    let text = core::str::from_utf8(header)
        .map_err(|e| format_error(safetensors::SafeTensorError::InvalidHeader(e)))?;
    serde_json::from_str::<Metadata>(text).map_err(|e| {
        format_error(safetensors::SafeTensorError::InvalidHeaderDeserialization(
            e,
        ))
    })
}

/// One tensor's bytes, ready for the safetensors serializer.
struct Entry {
    dtype: Dtype,
    shape: Vec<usize>,
    data: Vec<u8>,
}

impl View for &Entry {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.data)
    }
    fn data_len(&self) -> usize {
        self.data.len()
    }
}

/// Named tensors of any element types, to write as one safetensors file;
/// see [`SafeTensorsFile`] for an example.
#[derive(Default)]
pub struct SafeTensorsWriter {
    entries: Vec<(String, Entry)>,
}

impl SafeTensorsWriter {
    /// No tensors yet.
    ///
    /// ```
    /// let w = shaped::io::safetensors::SafeTensorsWriter::new();
    /// ```
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `tensor` (its logical elements, row-major) under `name`.
    ///
    /// ```
    /// use shaped::{Shape, Tensor};
    /// let mut w = shaped::io::safetensors::SafeTensorsWriter::new();
    /// w.add("t", &Tensor::<u8, Shape![2, 2]>::zeros().transpose::<0, 1>());
    /// ```
    pub fn add<T: SafeElement, S: Shape>(&mut self, name: &str, tensor: &Tensor<T, S>) {
        let mut data = Vec::with_capacity(tensor.numel() * T::SIZE);
        for x in tensor.iter() {
            x.put_le(&mut data);
        }
        let entry = Entry {
            dtype: T::DTYPE,
            shape: tensor.dims().to_vec(),
            data,
        };
        self.entries.push((name.to_string(), entry));
    }

    /// The file's bytes.
    ///
    /// # Errors
    /// When two tensors share a name, or serialization fails.
    ///
    /// ```
    /// let w = shaped::io::safetensors::SafeTensorsWriter::new();
    /// assert!(w.to_bytes().is_ok());
    /// ```
    pub fn to_bytes(&self) -> Result<Vec<u8>, Error> {
        safetensors::serialize(self.views()?, None).map_err(format_error)
    }

    /// Writes the file at `path`.
    ///
    /// # Errors
    /// As [`to_bytes`](SafeTensorsWriter::to_bytes), and when the file
    /// cannot be written.
    ///
    /// ```no_run
    /// let w = shaped::io::safetensors::SafeTensorsWriter::new();
    /// w.write("empty.safetensors").unwrap();
    /// ```
    pub fn write(&self, path: impl AsRef<Path>) -> Result<(), Error> {
        safetensors::serialize_to_file(self.views()?, None, path.as_ref()).map_err(format_error)
    }

    fn views(&self) -> Result<Vec<(&str, &Entry)>, Error> {
        let mut names: Vec<&str> = self.entries.iter().map(|(n, _)| n.as_str()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(Error::Unsupported(format!("two tensors named '{}'", w[0])));
        }
        Ok(self.entries.iter().map(|(n, e)| (n.as_str(), e)).collect())
    }
}
