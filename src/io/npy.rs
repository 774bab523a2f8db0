//! NumPy's `.npy` and `.npz` files, through the `npyz` crate (feature
//! `npy`).
//!
//! Reads every layout NumPy writes for the element types both have
//! (`bool`, `i8` ... `i64`, `u8` ... `u64`, `f16`, `f32`, `f64`), in either
//! byte order and in C or Fortran order; writes C order, little-endian (the
//! dtype NumPy would pick). `.npz` archives (`np.savez`, and
//! `np.savez_compressed`) are read and written by name.
//!
//! ```
//! use shaped::io::npy;
//! use shaped::{Shape, Tensor};
//! let t = Tensor::<f32, Shape![2, 3]>::from([[1., 2., 3.], [4., 5., 6.]]);
//! let mut bytes = Vec::new();
//! npy::to_writer(&mut bytes, &t).unwrap();
//! let back: Tensor<f32, Shape![2, 3]> = npy::from_reader(&bytes[..]).unwrap();
//! assert_eq!(back, t);
//! ```

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, Write};
use std::path::Path;

use npyz::{AutoSerialize, Deserialize, NpyFile, Order, WriterBuilder};

use super::{Error, check_shape};
use crate::element::{Element, f16};
use crate::shape::Shape;
use crate::tensor::Tensor;

/// An element type `.npy` files hold: `bool`, `i8` ... `i64`, `u8` ...
/// `u64`, `f16`, `f32`, `f64` (NumPy has no `bfloat16`).
///
/// ```
/// use shaped::io::npy::NpyElement;
/// fn storable<T: NpyElement>() {}
/// storable::<u16>();
/// ```
pub trait NpyElement: Element + Deserialize + AutoSerialize {}

macro_rules! npy_element {
    ($($t:ty),*) => {$( impl NpyElement for $t {} )*};
}
npy_element!(bool, i8, i16, i32, i64, u8, u16, u32, u64, f16, f32, f64);

/// Reads a tensor from the `.npy` bytes of `reader`.
///
/// # Errors
/// [`Error::Io`] when the bytes are not a `.npy` file, [`Error::Dtype`]
/// when its dtype is not `T`'s, [`Error::Shape`] when its sizes do not fit
/// `S`.
///
/// ```
/// use shaped::io::npy;
/// use shaped::{DynRank, Shape, Tensor};
/// let mut bytes = Vec::new();
/// npy::to_writer(&mut bytes, &Tensor::<i64, Shape![3]>::from([1, 2, 3])).unwrap();
/// let d: Tensor<i64, DynRank> = npy::from_reader(&bytes[..]).unwrap();
/// assert_eq!(d.dims(), &[3]);
/// let e = npy::from_reader::<f64, DynRank, _>(&bytes[..]).unwrap_err();
/// assert_eq!(e.to_string(), "dtype mismatch: the file holds '<i8', the tensor type's element is float64");
/// ```
pub fn from_reader<T: NpyElement, S: Shape, R: Read>(reader: R) -> Result<Tensor<T, S>, Error> {
    read_npy(NpyFile::new(reader)?)
}

/// Reads a tensor from the `.npy` file at `path`; see [`from_reader`].
///
/// # Errors
/// As [`from_reader`], and when the file cannot be opened.
///
/// ```no_run
/// use shaped::io::npy;
/// use shaped::{Shape, Tensor};
/// let w: Tensor<f32, Shape![_, 784]> = npy::read("weights.npy").unwrap();
/// ```
pub fn read<T: NpyElement, S: Shape>(path: impl AsRef<Path>) -> Result<Tensor<T, S>, Error> {
    from_reader(BufReader::new(File::open(path)?))
}

/// Writes `tensor` as `.npy` bytes (C order, little-endian) to `writer`.
///
/// # Errors
/// When writing fails.
///
/// ```
/// use shaped::io::npy;
/// use shaped::{Shape, Tensor};
/// let mut bytes = Vec::new();
/// npy::to_writer(&mut bytes, &Tensor::<u8, Shape![2]>::from([7, 8])).unwrap();
/// assert_eq!(&bytes[..6], b"\x93NUMPY");
/// ```
pub fn to_writer<T: NpyElement, S: Shape, W: Write>(
    writer: W,
    tensor: &Tensor<T, S>,
) -> Result<(), Error> {
    let mut w = npyz::WriteOptions::new()
        .default_dtype()
        .shape(&shape_u64(tensor.dims()))
        .writer(writer)
        .begin_nd()?;
    w.extend(tensor.iter())?;
    w.finish()?;
    Ok(())
}

/// Writes `tensor` to a `.npy` file at `path`; see [`to_writer`].
///
/// # Errors
/// When the file cannot be created or written.
///
/// ```
/// use shaped::io::npy;
/// use shaped::{Shape, Tensor};
/// let path = std::env::temp_dir().join("shaped_doc_write.npy");
/// let t = Tensor::<i32, Shape![2, 2]>::from([[1, 2], [3, 4]]);
/// npy::write(&path, &t).unwrap();
/// assert_eq!(npy::read::<i32, Shape![2, 2]>(&path).unwrap(), t);
/// ```
pub fn write<T: NpyElement, S: Shape>(
    path: impl AsRef<Path>,
    tensor: &Tensor<T, S>,
) -> Result<(), Error> {
    let mut file = BufWriter::new(File::create(path)?);
    to_writer(&mut file, tensor)?;
    file.flush()?;
    Ok(())
}

/// An `.npz` archive open for reading its arrays by name.
///
/// ```
/// use shaped::io::npy::{NpzReader, NpzWriter};
/// use shaped::{DynRank, Shape, Tensor};
/// let path = std::env::temp_dir().join("shaped_doc_reader.npz");
/// let mut w = NpzWriter::create(&path).unwrap();
/// w.add("x", &Tensor::<f64, Shape![2]>::from([1., 2.])).unwrap();
/// w.finish().unwrap();
/// let mut r = NpzReader::open(&path).unwrap();
/// assert_eq!(r.names(), vec!["x".to_string()]);
/// let x: Tensor<f64, DynRank> = r.read("x").unwrap();
/// assert_eq!(x.to_vec(), vec![1., 2.]);
/// ```
pub struct NpzReader<R: Read + Seek> {
    archive: npyz::npz::NpzArchive<R>,
}

impl NpzReader<BufReader<File>> {
    /// Opens the `.npz` file at `path`.
    ///
    /// # Errors
    /// When the file cannot be opened or is not a zip archive.
    ///
    /// ```no_run
    /// let r = shaped::io::npy::NpzReader::open("arrays.npz").unwrap();
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Self, Error> {
        Ok(NpzReader {
            archive: npyz::npz::NpzArchive::open(path)?,
        })
    }
}

impl<R: Read + Seek> NpzReader<R> {
    /// An archive read from `reader`.
    ///
    /// # Errors
    /// When the bytes are not a zip archive.
    ///
    /// ```
    /// use std::io::Cursor;
    /// use shaped::io::npy::NpzReader;
    /// assert!(NpzReader::new(Cursor::new(b"not a zip".to_vec())).is_err());
    /// ```
    pub fn new(reader: R) -> Result<Self, Error> {
        Ok(NpzReader {
            archive: npyz::npz::NpzArchive::new(reader)?,
        })
    }

    /// The names of the arrays, in the archive's order.
    ///
    /// ```no_run
    /// let r = shaped::io::npy::NpzReader::open("arrays.npz").unwrap();
    /// println!("{:?}", r.names());
    /// ```
    pub fn names(&self) -> Vec<String> {
        self.archive.array_names().map(str::to_string).collect()
    }

    /// Reads the array `name`.
    ///
    /// # Errors
    /// [`Error::Missing`] when there is no such array, else as
    /// [`from_reader`].
    ///
    /// ```no_run
    /// use shaped::{Shape, Tensor};
    /// let mut r = shaped::io::npy::NpzReader::open("arrays.npz").unwrap();
    /// let w: Tensor<f32, Shape![4, 3]> = r.read("w").unwrap();
    /// ```
    pub fn read<T: NpyElement, S: Shape>(&mut self, name: &str) -> Result<Tensor<T, S>, Error> {
        match self.archive.by_name(name)? {
            Some(file) => read_npy(file),
            None => Err(Error::Missing(name.to_string())),
        }
    }
}

/// An `.npz` archive being written, one named array at a time; see
/// [`NpzReader`] for an example.
pub struct NpzWriter<W: Write + Seek> {
    archive: npyz::npz::NpzWriter<W>,
    compressed: bool,
}

impl NpzWriter<BufWriter<File>> {
    /// A new archive at `path`, stored uncompressed as `np.savez` does.
    ///
    /// # Errors
    /// When the file cannot be created.
    ///
    /// ```no_run
    /// let w = shaped::io::npy::NpzWriter::create("out.npz").unwrap();
    /// ```
    pub fn create(path: impl AsRef<Path>) -> Result<Self, Error> {
        Ok(NpzWriter {
            archive: npyz::npz::NpzWriter::create(path)?,
            compressed: false,
        })
    }
}

impl<W: Write + Seek> NpzWriter<W> {
    /// An archive written to `writer`.
    ///
    /// ```
    /// use std::io::Cursor;
    /// let w = shaped::io::npy::NpzWriter::new(Cursor::new(Vec::new()));
    /// ```
    pub fn new(writer: W) -> Self {
        NpzWriter {
            archive: npyz::npz::NpzWriter::new(writer),
            compressed: false,
        }
    }

    /// Deflate the arrays added from now on, as `np.savez_compressed` does.
    ///
    /// ```
    /// use std::io::Cursor;
    /// let w = shaped::io::npy::NpzWriter::new(Cursor::new(Vec::new())).compressed();
    /// ```
    pub fn compressed(mut self) -> Self {
        self.compressed = true;
        self
    }

    /// Adds `tensor` as the array `name` (`name.npy` in the archive).
    ///
    /// # Errors
    /// When writing fails.
    ///
    /// ```
    /// use std::io::Cursor;
    /// use shaped::{Shape, Tensor};
    /// let mut w = shaped::io::npy::NpzWriter::new(Cursor::new(Vec::new()));
    /// w.add("b", &Tensor::<bool, Shape![2]>::from([true, false])).unwrap();
    /// ```
    pub fn add<T: NpyElement, S: Shape>(
        &mut self,
        name: &str,
        tensor: &Tensor<T, S>,
    ) -> Result<(), Error> {
        let method = if self.compressed {
            npyz::zip::CompressionMethod::Deflated
        } else {
            npyz::zip::CompressionMethod::Stored
        };
        let options = npyz::zip::write::FileOptions::default().compression_method(method);
        let mut w = self
            .archive
            .array::<T>(name, options)?
            .default_dtype()
            .shape(&shape_u64(tensor.dims()))
            .begin_nd()?;
        w.extend(tensor.iter())?;
        w.finish()?;
        Ok(())
    }

    /// Finishes the archive (writes its directory).
    ///
    /// # Errors
    /// When writing fails.
    ///
    /// ```
    /// use std::io::Cursor;
    /// let w = shaped::io::npy::NpzWriter::new(Cursor::new(Vec::new()));
    /// w.finish().unwrap();
    /// ```
    pub fn finish(mut self) -> Result<(), Error> {
        self.archive
            .zip_writer()
            .finish()
            .map_err(|e| Error::Io(e.into()))?;
        Ok(())
    }
}

/// The tensor in an opened `.npy` stream.
fn read_npy<T: NpyElement, S: Shape, R: Read>(file: NpyFile<R>) -> Result<Tensor<T, S>, Error> {
    if file.uses_pickled_array() {
        return Err(Error::Unsupported("a pickled object array".into()));
    }
    let dims: Vec<usize> = file.shape().iter().map(|&d| d as usize).collect();
    check_shape::<S>(&dims)?;
    let fortran = file.order() == Order::Fortran;
    let found = file.dtype().descr();
    let data = match file.data::<T>() {
        Ok(reader) => reader.collect::<std::io::Result<Vec<T>>>()?,
        Err(_) => {
            return Err(Error::Dtype {
                expected: T::NAME,
                found,
            });
        }
    };
    let data = if fortran {
        fortran_to_c(data, &dims)?
    } else {
        data
    };
    Tensor::try_from_vec(data, &dims).map_err(|reason| Error::Shape {
        found: dims.clone(),
        expected: crate::tensor::shape_name::<S>(),
        reason,
    })
}

/// The elements of a column-major (Fortran-order) buffer of sizes `dims`,
/// in row-major order: the buffer is the row-major layout of the reversed
/// sizes, read through the reversed axes.
fn fortran_to_c<T: Element>(data: Vec<T>, dims: &[usize]) -> Result<Vec<T>, Error> {
    let reversed: Vec<usize> = dims.iter().rev().copied().collect();
    let axes: Vec<isize> = (0..dims.len() as isize).rev().collect();
    let shape_error = |reason| Error::Shape {
        found: dims.to_vec(),
        expected: "a Fortran-order array".into(),
        reason,
    };
    let t = Tensor::<T, crate::DynRank>::try_from_vec(data, &reversed).map_err(shape_error)?;
    Ok(t.permute::<crate::DynRank>(&axes)
        .map_err(shape_error)?
        .to_vec())
}

fn shape_u64(dims: &[usize]) -> Vec<u64> {
    dims.iter().map(|&d| d as u64).collect()
}
