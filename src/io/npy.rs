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
//!
//! # Untrusted files
//!
//! A file is screened before anything it claims is allocated, and every
//! refusal is an [`Error`], never a panic:
//! - the header is parsed here, not by `npyz`: its length is held to NumPy's
//!   `max_header_size` (10000) before it is read, its brackets may nest at
//!   most 8 deep, and it must be the dict NumPy writes (NumPy's messages).
//!   `npyz`'s parser (a PEG grammar, `py_literal`) backtracks over nested
//!   brackets: 3.2x per level of braces, so that a 128-byte header with 12
//!   took 19 s and one with 14, 211 s (debug build); this parser reads each
//!   byte once. `npyz` still parses the dtype string and decodes elements.
//! - the sizes: at most [`MAX_RANK`](super::MAX_RANK) of them, their
//!   product without overflow, an empty array's other sizes bounded, and the
//!   data they claim no more than the file holds where its length is known
//!   ([`read`], an `.npz` member); from a stream ([`from_reader`]) the data
//!   is read in chunks of 4 KiB doubling to 64 KiB, so a claim is never
//!   allocated ahead of the bytes that back it.
//! - an `.npz` member is read whole, to its end, so that its CRC-32 is
//!   checked (a flipped bit is an error, not a wrong value), and only if
//!   its declared size is one the archive can hold (stored: at most the
//!   archive's length; deflated: at most 1032 times its compressed size,
//!   deflate's largest ratio).

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::Path;

use npyz::{AutoSerialize, DType, Deserialize, TypeRead, TypeStr, WriterBuilder};

use super::{Error, check_shape, invalid, screen_sizes};
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
/// [`Error::Io`] when the bytes are not a `.npy` file or claim more than
/// they hold (see the module's "Untrusted files"), [`Error::Dtype`] when its
/// dtype is not `T`'s, [`Error::Shape`] when its sizes do not fit `S`,
/// [`Error::Unsupported`] for a pickled object array.
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
    read_npy(reader, None)
}

/// Reads a tensor from the `.npy` file at `path`; see [`from_reader`].
///
/// # Errors
/// As [`from_reader`], and when the file cannot be opened. The data the
/// header claims is checked against the file's length before it is read.
///
/// ```no_run
/// use shaped::io::npy;
/// use shaped::{Shape, Tensor};
/// let w: Tensor<f32, Shape![_, 784]> = npy::read("weights.npy").unwrap();
/// ```
pub fn read<T: NpyElement, S: Shape>(path: impl AsRef<Path>) -> Result<Tensor<T, S>, Error> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    // A pipe or a device has no length to check the claims against.
    let len = meta.is_file().then_some(meta.len());
    read_npy(BufReader::new(file), len)
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
    /// The archive's length in bytes, which bounds its members' sizes.
    len: u64,
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
        Self::new(BufReader::new(File::open(path)?))
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
    pub fn new(mut reader: R) -> Result<Self, Error> {
        let len = reader.seek(SeekFrom::End(0))?;
        reader.seek(SeekFrom::Start(0))?;
        Ok(NpzReader {
            archive: npyz::npz::NpzArchive::new(reader)?,
            len,
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
    /// [`Error::Missing`] when there is no such array; [`Error::Io`] when
    /// its member fails its CRC-32 or claims more bytes than the archive
    /// can hold; else as [`from_reader`].
    ///
    /// ```no_run
    /// use shaped::{Shape, Tensor};
    /// let mut r = shaped::io::npy::NpzReader::open("arrays.npz").unwrap();
    /// let w: Tensor<f32, Shape![4, 3]> = r.read("w").unwrap();
    /// ```
    pub fn read<T: NpyElement, S: Shape>(&mut self, name: &str) -> Result<Tensor<T, S>, Error> {
        let bytes = self.member(name)?;
        read_npy(&bytes[..], Some(bytes.len() as u64))
    }

    /// The bytes of the member holding `name`, read to its end so that the
    /// `zip` crate checks its CRC-32 (it does so only there), after its
    /// declared size has been checked against what the archive can hold.
    fn member(&mut self, name: &str) -> Result<Vec<u8>, Error> {
        use npyz::zip::CompressionMethod;
        use npyz::zip::result::ZipError;
        let file_name = npyz::npz::file_name_from_array_name(name);
        let archive_len = self.len;
        let mut member = match self.archive.zip_archive().by_name(&file_name) {
            Ok(member) => member,
            Err(ZipError::FileNotFound) => return Err(Error::Missing(name.to_string())),
            Err(ZipError::Io(e)) => return Err(Error::Io(e)),
            Err(e) => return Err(invalid(e.to_string())),
        };
        let declared = member.size();
        let packed = member.compressed_size().min(archive_len);
        let claims = |what: String| {
            invalid(format!(
                "the archive member '{file_name}' claims {declared} bytes, more than {what}"
            ))
        };
        match member.compression() {
            CompressionMethod::Stored if declared > archive_len => {
                return Err(claims(format!("the archive's {archive_len}")));
            }
            CompressionMethod::Deflated if declared > packed.saturating_mul(MAX_DEFLATE_RATIO) => {
                return Err(claims(format!("{packed} deflated bytes can hold")));
            }
            CompressionMethod::Stored | CompressionMethod::Deflated => {}
            other => {
                return Err(Error::Unsupported(format!(
                    "the archive member '{file_name}' is compressed with {other}"
                )));
            }
        }
        // The bytes are allocated as they arrive, not as declared.
        let mut bytes = Vec::with_capacity(declared.min(CHUNK_BYTES as u64) as usize);
        (&mut member)
            .take(declared.saturating_add(1))
            .read_to_end(&mut bytes)?;
        if bytes.len() as u64 != declared {
            return Err(invalid(format!(
                "the archive member '{file_name}' holds {}{} bytes, its header says {declared}",
                bytes.len(),
                if bytes.len() as u64 > declared {
                    " or more"
                } else {
                    ""
                },
            )));
        }
        Ok(bytes)
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

/// The largest ratio of inflated to deflated bytes deflate can give (a
/// 258-byte match coded in 2 bits).
const MAX_DEFLATE_RATIO: u64 = 1032;

/// The most bytes of data read at a time when the file's length is not
/// known, so that what is allocated is what the file held.
const CHUNK_BYTES: usize = 1 << 16;

/// The first chunk from a stream of unknown length: chunks double from
/// here to [`CHUNK_BYTES`] while the data keeps coming, so that a short
/// stream costs about what it holds (a 141-byte file claiming terabytes
/// took two 64 KiB buffers before).
const FIRST_CHUNK_BYTES: usize = 1 << 12;

/// The tensor in a `.npy` stream of `total` bytes, if known.
fn read_npy<T: NpyElement, S: Shape, R: Read>(
    mut reader: R,
    total: Option<u64>,
) -> Result<Tensor<T, S>, Error> {
    let (header, header_len) = read_header(&mut reader)?;
    let dtype = match &header.descr {
        Descr::Plain(ty) => Some(DType::new_scalar(ty.clone())),
        Descr::Other(_) => None,
    };
    if dtype.as_ref().is_some_and(DType::uses_pickled_array) {
        return Err(Error::Unsupported("a pickled object array".into()));
    }
    // A structured dtype's size is not worked out: no `T` reads one.
    let item = dtype
        .as_ref()
        .and_then(DType::num_bytes)
        .unwrap_or(1)
        .max(1);
    let available = total.map(|n| n.saturating_sub(header_len));
    let numel = screen_sizes(&header.dims, item, available)?;
    // Each size fits in usize: the product of the nonzero ones does.
    let dims: Vec<usize> = header.dims.iter().map(|&d| d as usize).collect();
    check_shape::<S>(&dims)?;
    let Some(elem) = dtype.as_ref().and_then(|d| T::reader(d).ok()) else {
        return Err(Error::Dtype {
            expected: T::NAME,
            found: header.descr.to_string(),
        });
    };
    let data = read_elements(&mut reader, &elem, numel, item, available.is_some()).map_err(
        |e| match e {
            Short(held) => invalid(format!(
                "the file claims sizes {:?} ({} bytes of data), but holds {held} bytes",
                header.dims,
                numel as u64 * item as u64
            )),
            Failed(e) => Error::Io(e),
        },
    )?;
    let data = if header.fortran {
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

/// Why the data could not be read.
enum ReadError {
    /// The stream ended after this many bytes.
    Short(u64),
    /// Reading or decoding failed.
    Failed(std::io::Error),
}
use ReadError::{Failed, Short};

/// `numel` elements of `item` bytes each, decoded by `elem`: read in
/// chunks, the result preallocated only when the bytes are known to be
/// there (`known`).
fn read_elements<T: NpyElement, R: Read>(
    reader: &mut R,
    elem: &T::TypeReader,
    numel: usize,
    item: usize,
    known: bool,
) -> Result<Vec<T>, ReadError> {
    let max_chunk = (CHUNK_BYTES / item).max(1);
    let mut per_chunk = if known {
        max_chunk
    } else {
        (FIRST_CHUNK_BYTES / item).clamp(1, max_chunk)
    };
    let mut out = Vec::new();
    // Known to be there: still more than a 32-bit address space may hold.
    // Otherwise `out` grows as the elements arrive.
    out.try_reserve_exact(if known { numel } else { numel.min(per_chunk) })
        .map_err(|e| Failed(std::io::Error::new(std::io::ErrorKind::OutOfMemory, e)))?;
    let mut buf = Vec::new();
    while out.len() < numel {
        let count = (numel - out.len()).min(per_chunk);
        buf.resize(count * item, 0u8);
        let got = read_full(reader, &mut buf).map_err(Failed)?;
        if got < buf.len() {
            return Err(Short(out.len() as u64 * item as u64 + got as u64));
        }
        let mut bytes: &[u8] = &buf;
        for _ in 0..count {
            out.push(elem.read_one(&mut bytes).map_err(Failed)?);
        }
        per_chunk = (per_chunk * 2).min(max_chunk);
    }
    Ok(out)
}

/// Fills `buf` from `reader`, short only at the end of the stream: the
/// number of bytes read.
fn read_full<R: Read>(reader: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match reader.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// NumPy's `max_header_size`: the longest header (in characters) `np.load`
/// parses unless the file is trusted.
const MAX_HEADER_SIZE: usize = 10_000;

/// The deepest a header's brackets may nest. NumPy writes 2 for the arrays
/// read here (the dict, the shape tuple); a structured dtype, which no
/// [`NpyElement`] reads, a few more.
const MAX_HEADER_DEPTH: usize = 8;

/// What a `.npy` header says.
struct Header {
    descr: Descr,
    fortran: bool,
    dims: Vec<u64>,
}

/// A header's dtype.
enum Descr {
    /// A type string, `'<f4'`.
    Plain(TypeStr),
    /// Anything else (a structured dtype), as Python writes it.
    Other(String),
}

impl core::fmt::Display for Descr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Descr::Plain(ty) => write!(f, "'{ty}'"),
            Descr::Other(text) => f.write_str(text),
        }
    }
}

/// Reads and parses a `.npy` file's magic string, version, header length
/// and header (`numpy/lib/_format_impl.py`, with NumPy's messages): the
/// header, and the number of bytes before the data.
fn read_header<R: Read>(reader: &mut R) -> Result<(Header, u64), Error> {
    let mut magic = [0u8; 8];
    read_exactly(reader, &mut magic, "magic string")?;
    if &magic[..6] != b"\x93NUMPY" {
        return Err(invalid(format!(
            "the magic string is not correct; expected b'\\x93NUMPY', got {}",
            py_bytes_repr(&magic[..6])
        )));
    }
    let len_size = match (magic[6], magic[7]) {
        (1, 0) => 2,
        (2, 0) | (3, 0) => 4,
        (major, minor) => {
            return Err(invalid(format!(
                "we only support format version (1,0), (2,0), and (3,0), not ({major}, {minor})"
            )));
        }
    };
    let mut len = [0u8; 4];
    read_exactly(reader, &mut len[..len_size], "array header length")?;
    let len = u32::from_le_bytes(len) as usize;
    // Format 3.0 is UTF-8: up to 4 bytes a character.
    let utf8 = magic[6] == 3;
    if len > MAX_HEADER_SIZE * if utf8 { 4 } else { 1 } {
        return Err(header_too_long(len));
    }
    let mut raw = vec![0u8; len];
    read_exactly(reader, &mut raw, "array header")?;
    let text: String = if utf8 {
        String::from_utf8(raw).map_err(|e| invalid(format!("Cannot parse header: {e}")))?
    } else {
        raw.iter().map(|&b| char::from(b)).collect()
    };
    if text.chars().count() > MAX_HEADER_SIZE {
        return Err(header_too_long(text.chars().count()));
    }
    Ok((parse_header(&text)?, (8 + len_size + len) as u64))
}

/// NumPy's refusal of a header longer than `max_header_size`.
fn header_too_long(len: usize) -> Error {
    invalid(format!(
        "Header info length ({len}) is large and may not be safe to load securely.\n\
         To allow loading, adjust `max_header_size` or fully trust the `.npy` file using \
         `allow_pickle=True`.\n\
         For safety against large resource use or crashes, sandboxing may be necessary."
    ))
}

/// Fills `buf`, or fails with NumPy's message naming `what`.
fn read_exactly<R: Read>(reader: &mut R, buf: &mut [u8], what: &str) -> Result<(), Error> {
    let got = read_full(reader, buf)?;
    if got < buf.len() {
        return Err(invalid(format!(
            "EOF: reading {what}, expected {} bytes got {got}",
            buf.len()
        )));
    }
    Ok(())
}

/// The header's dict, checked as NumPy checks it (its keys, then `shape`,
/// `fortran_order` and `descr`, with NumPy's messages).
fn parse_header(text: &str) -> Result<Header, Error> {
    let lit = Parser::new(text).top().map_err(|fail| match fail {
        Fail::Syntax => invalid(format!("Cannot parse header: {}", py_repr(text))),
        Fail::TooDeep => invalid(format!(
            "the .npy header nests brackets more than {MAX_HEADER_DEPTH} deep"
        )),
    })?;
    let Lit::Dict(entries) = &lit else {
        return Err(invalid(format!("Header is not a dictionary: {lit}")));
    };
    // As in a Python dict, a repeated key's last value holds.
    let get = |key: &str| {
        entries
            .iter()
            .rev()
            .find(|(k, _)| matches!(k, Lit::Str(s) if *s == key))
            .map(|(_, v)| v)
    };
    let mut keys: Vec<String> = Vec::new();
    for (k, _) in entries {
        let k = k.to_string();
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.sort();
    let (Some(shape), Some(fortran), Some(descr), 3) =
        (get("shape"), get("fortran_order"), get("descr"), keys.len())
    else {
        return Err(invalid(format!(
            "Header does not contain the correct keys: [{}]",
            keys.join(", ")
        )));
    };
    let Lit::Tuple(sizes) = shape else {
        return Err(invalid(format!("shape is not valid: {shape}")));
    };
    let mut dims = Vec::with_capacity(sizes.len());
    for size in sizes {
        match size {
            Lit::Int { negative: true, .. } => {
                return Err(invalid("negative dimensions are not allowed"));
            }
            Lit::Int { digits, .. } => dims.push(digits.parse::<u64>().map_err(|_| {
                invalid(format!(
                    "the file claims a size of {digits}, more than 64 bits hold"
                ))
            })?),
            _ => return Err(invalid(format!("shape is not valid: {shape}"))),
        }
    }
    let &Lit::Bool(fortran) = fortran else {
        return Err(invalid(format!(
            "fortran_order is not a valid bool: {fortran}"
        )));
    };
    let descr = match descr {
        Lit::Str(s) => Descr::Plain(
            s.parse::<TypeStr>()
                .map_err(|e| Error::Unsupported(format!("the dtype {descr} ({e})")))?,
        ),
        other => Descr::Other(other.to_string()),
    };
    Ok(Header {
        descr,
        fortran,
        dims,
    })
}

/// A Python literal of the kinds a `.npy` header holds.
enum Lit<'a> {
    /// A string's text between its quotes, escapes as written.
    Str(&'a str),
    Int {
        negative: bool,
        digits: &'a str,
    },
    Bool(bool),
    None,
    Tuple(Vec<Lit<'a>>),
    List(Vec<Lit<'a>>),
    Dict(Vec<(Lit<'a>, Lit<'a>)>),
}

/// As Python's `repr` writes it (for the messages).
impl core::fmt::Display for Lit<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let list = |f: &mut core::fmt::Formatter<'_>, items: &[Lit<'_>]| {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{item}")?;
            }
            Ok(())
        };
        match self {
            Lit::Str(s) if s.contains('\'') && !s.contains('"') => write!(f, "\"{s}\""),
            Lit::Str(s) => write!(f, "'{s}'"),
            Lit::Int { negative, digits } => {
                write!(f, "{}{}", if *negative { "-" } else { "" }, digits)
            }
            Lit::Bool(b) => f.write_str(if *b { "True" } else { "False" }),
            Lit::None => f.write_str("None"),
            Lit::Tuple(items) => {
                f.write_str("(")?;
                list(f, items)?;
                f.write_str(if items.len() == 1 { ",)" } else { ")" })
            }
            Lit::List(items) => {
                f.write_str("[")?;
                list(f, items)?;
                f.write_str("]")
            }
            Lit::Dict(entries) => {
                f.write_str("{")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{k}: {v}")?;
                }
                f.write_str("}")
            }
        }
    }
}

/// Why a header did not parse.
enum Fail {
    /// Not a literal of the kinds a header holds.
    Syntax,
    /// Brackets nested more than [`MAX_HEADER_DEPTH`] deep.
    TooDeep,
}

/// A recursive-descent parser of the Python literals a header holds
/// (strings, integers, `True`, `False`, `None`, tuples, lists, dicts), which
/// never backtracks: each byte is looked at once or twice. Stricter than
/// Python where NumPy never writes a form (string prefixes, integers other
/// than decimal, floats, sets): those are refused as not parsing.
struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Parser {
            text,
            pos: 0,
            depth: 0,
        }
    }

    /// The whole text as one literal.
    fn top(mut self) -> Result<Lit<'a>, Fail> {
        let lit = self.value()?;
        self.space();
        if self.pos == self.text.len() {
            Ok(lit)
        } else {
            Err(Fail::Syntax)
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.as_bytes().get(self.pos).copied()
    }

    fn space(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c')) {
            self.pos += 1;
        }
    }

    /// Consumes `byte` after any space, if it is next.
    fn eat(&mut self, byte: u8) -> bool {
        self.space();
        let next = self.peek() == Some(byte);
        self.pos += usize::from(next);
        next
    }

    fn value(&mut self) -> Result<Lit<'a>, Fail> {
        self.space();
        match self.peek().ok_or(Fail::Syntax)? {
            open @ (b'(' | b'[' | b'{') => {
                self.depth += 1;
                if self.depth > MAX_HEADER_DEPTH {
                    return Err(Fail::TooDeep);
                }
                self.pos += 1;
                let lit = match open {
                    b'(' => self.tuple(),
                    b'[' => self.items(b']').map(|(items, _)| Lit::List(items)),
                    _ => self.dict(),
                }?;
                self.depth -= 1;
                Ok(lit)
            }
            b'\'' | b'"' => self.string(),
            b'-' | b'0'..=b'9' => self.int(),
            _ => self.word(),
        }
    }

    /// After `(`: a tuple, or the one value it parenthesises.
    fn tuple(&mut self) -> Result<Lit<'a>, Fail> {
        let (mut items, comma) = self.items(b')')?;
        match items.len() {
            1 if !comma => Ok(items.pop().expect("one item")),
            _ => Ok(Lit::Tuple(items)),
        }
    }

    /// Values separated by commas up to `close`: them, and whether a comma
    /// followed the last.
    fn items(&mut self, close: u8) -> Result<(Vec<Lit<'a>>, bool), Fail> {
        let mut items = Vec::new();
        loop {
            if self.eat(close) {
                return Ok((items, true));
            }
            items.push(self.value()?);
            if self.eat(close) {
                return Ok((items, false));
            }
            if !self.eat(b',') {
                return Err(Fail::Syntax);
            }
        }
    }

    /// After `{`: `key: value` pairs separated by commas up to `}`.
    fn dict(&mut self) -> Result<Lit<'a>, Fail> {
        let mut entries = Vec::new();
        loop {
            if self.eat(b'}') {
                return Ok(Lit::Dict(entries));
            }
            let key = self.value()?;
            if !self.eat(b':') {
                return Err(Fail::Syntax);
            }
            entries.push((key, self.value()?));
            if self.eat(b'}') {
                return Ok(Lit::Dict(entries));
            }
            if !self.eat(b',') {
                return Err(Fail::Syntax);
            }
        }
    }

    /// A string on one line; a backslash escapes the byte after it (what
    /// the escape means is not worked out: a header's keys and type strings
    /// have none).
    fn string(&mut self) -> Result<Lit<'a>, Fail> {
        let bytes = self.text.as_bytes();
        let quote = bytes[self.pos];
        let start = self.pos + 1;
        let mut i = start;
        loop {
            match bytes.get(i) {
                None | Some(b'\n' | b'\r') => return Err(Fail::Syntax),
                Some(b'\\') if matches!(bytes.get(i + 1), None | Some(b'\n' | b'\r')) => {
                    return Err(Fail::Syntax);
                }
                // The escaped byte may start a multi-byte character: its
                // other bytes are not ASCII, so skipped as any other.
                Some(b'\\') => i += 2,
                Some(&b) if b == quote => break,
                Some(_) => i += 1,
            }
        }
        self.pos = i + 1;
        Ok(Lit::Str(&self.text[start..i]))
    }

    /// A decimal integer, perhaps negative (as Python 3 writes one: no
    /// leading zeros, no underscores).
    fn int(&mut self) -> Result<Lit<'a>, Fail> {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
            self.space();
        }
        let start = self.pos;
        while self.peek().is_some_and(|b| b.is_ascii_digit()) {
            self.pos += 1;
        }
        let digits = &self.text[start..self.pos];
        let leading_zero =
            digits.len() > 1 && digits.starts_with('0') && digits.contains(|c| c != '0');
        let runs_on = self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.');
        if digits.is_empty() || leading_zero || runs_on {
            return Err(Fail::Syntax);
        }
        Ok(Lit::Int { negative, digits })
    }

    /// `True`, `False` or `None`.
    fn word(&mut self) -> Result<Lit<'a>, Fail> {
        let rest = &self.text.as_bytes()[self.pos..];
        let end = rest
            .iter()
            .position(|b| !(b.is_ascii_alphanumeric() || *b == b'_'))
            .unwrap_or(rest.len());
        let lit = match &rest[..end] {
            b"True" => Lit::Bool(true),
            b"False" => Lit::Bool(false),
            b"None" => Lit::None,
            _ => return Err(Fail::Syntax),
        };
        self.pos += end;
        Ok(lit)
    }
}

/// Python's `repr` of a string.
fn py_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    let mut out = String::from(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            '\0'..='\x1f' | '\x7f'..='\u{a0}' | '\u{ad}' => {
                out.push_str(&format!("\\x{:02x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

/// Python's `repr` of bytes.
fn py_bytes_repr(bytes: &[u8]) -> String {
    let text: String = bytes.iter().map(|&b| char::from(b)).collect();
    let mut out = String::from("b");
    for c in py_repr(&text).chars() {
        match u32::from(c) {
            n @ 0xa1..=0xff => out.push_str(&format!("\\x{n:02x}")),
            _ => out.push(c),
        }
    }
    out
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
