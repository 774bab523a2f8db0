//! `.npy` / `.npz` files written by NumPy (tests/data/npy/, made by
//! tests/data/npy/gen_npy.py), compared with NumPy's own reading of them
//! (expected.json), and a round trip of every element type.

use std::io::Cursor;
use std::path::PathBuf;

mod common;

use common::json_scalar::{dims, same};
use serde_json::Value;
use shaped::element::f16;
use shaped::io::Error;
use shaped::io::npy::{self, NpyElement, NpzReader, NpzWriter};
use shaped::{DynRank, Shape, Tensor};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/npy")
}

fn expected() -> serde_json::Map<String, Value> {
    let text = std::fs::read_to_string(dir().join("expected.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    v["files"].as_object().unwrap().clone()
}

fn check<T: NpyElement>(name: &str, t: &Tensor<T, DynRank>, want: &Value) {
    let dims = dims(want);
    assert_eq!(t.dims(), &dims[..], "{name}");
    let data = want["data"].as_array().unwrap();
    assert_eq!(t.numel(), data.len(), "{name}");
    for (x, w) in t.iter().zip(data) {
        assert!(same(x.to_scalar(), w), "{name}: {x} vs NumPy's {w}");
    }
    // Round trip through shaped's writer.
    let mut bytes = Vec::new();
    npy::to_writer(&mut bytes, t).unwrap();
    let back: Tensor<T, DynRank> = npy::from_reader(&bytes[..]).unwrap();
    assert_eq!(back.dims(), t.dims(), "{name}");
    assert!(
        back.iter()
            .zip(t.iter())
            .all(|(a, b)| a.to_scalar() == b.to_scalar()),
        "{name}"
    );
}

fn load<T: NpyElement>(name: &str, want: &Value) {
    let t: Tensor<T, DynRank> = match name.split_once(".npz/") {
        Some((archive, array)) => {
            let mut r = NpzReader::open(dir().join(format!("{archive}.npz"))).unwrap();
            assert!(r.names().contains(&array.to_string()));
            r.read(array).unwrap()
        }
        None => npy::read(dir().join(name)).unwrap(),
    };
    check(name, &t, want);
}

#[test]
fn reads_every_file_numpy_wrote() {
    let files = expected();
    assert_eq!(files.len(), 22);
    for (name, want) in &files {
        match want["dtype"].as_str().unwrap() {
            "bool" => load::<bool>(name, want),
            "int8" => load::<i8>(name, want),
            "int16" => load::<i16>(name, want),
            "int32" => load::<i32>(name, want),
            "int64" => load::<i64>(name, want),
            "uint8" => load::<u8>(name, want),
            "uint16" => load::<u16>(name, want),
            "uint32" => load::<u32>(name, want),
            "uint64" => load::<u64>(name, want),
            "float16" => load::<f16>(name, want),
            "float32" => load::<f32>(name, want),
            "float64" => load::<f64>(name, want),
            other => panic!("{name}: dtype {other}"),
        }
    }
}

#[test]
fn static_shapes_are_checked_against_the_file() {
    let f: Tensor<f32, Shape![3, 4]> = npy::read(dir().join("fortran_f4.npy")).unwrap();
    assert_eq!(f.get([1, 2]), 6.0);
    let e = npy::read::<f32, Shape![4, 3]>(dir().join("fortran_f4.npy")).unwrap_err();
    assert!(matches!(e, Error::Shape { .. }));
    assert_eq!(
        e.to_string(),
        "shape mismatch: the file holds sizes [3, 4], the tensor type is Shape![4, 3] (expected size 4 at dimension 0, but got shape [3, 4])"
    );
    let e = npy::read::<f32, Shape![_]>(dir().join("fortran_f4.npy")).unwrap_err();
    assert!(
        e.to_string().starts_with(
            "shape mismatch: the file holds sizes [3, 4], the tensor type is Shape![_] ("
        ),
        "{e}"
    );
    let e = npy::read::<f64, Shape![3, 4]>(dir().join("fortran_f4.npy")).unwrap_err();
    assert_eq!(
        e.to_string(),
        "dtype mismatch: the file holds '<f4', the tensor type's element is float64"
    );
    let mut r = NpzReader::open(dir().join("pair.npz")).unwrap();
    assert_eq!(
        r.read::<f64, DynRank>("zz").unwrap_err().to_string(),
        "no tensor named 'zz' in the file"
    );
}

fn round_trip<T: NpyElement>(values: Vec<T>) {
    let n = values.len();
    let t = Tensor::<T, DynRank>::try_from_vec(values, &[2, n / 2]).unwrap();
    // A non-contiguous view writes its logical elements.
    let v = t.permute::<DynRank>(&[1, 0]).unwrap();
    let mut bytes = Vec::new();
    npy::to_writer(&mut bytes, &v).unwrap();
    let back: Tensor<T, Shape![_, 2]> = npy::from_reader(&bytes[..]).unwrap();
    assert!(
        back.iter()
            .zip(v.iter())
            .all(|(a, b)| a.to_scalar() == b.to_scalar()),
        "{}",
        T::NAME
    );
    // And through an archive, compressed and not.
    for compressed in [false, true] {
        let mut buf = Cursor::new(Vec::new());
        let mut w = NpzWriter::new(&mut buf);
        if compressed {
            w = w.compressed();
        }
        w.add("v", &v).unwrap();
        w.add("t", &t).unwrap();
        w.finish().unwrap();
        let mut r = NpzReader::new(Cursor::new(buf.into_inner())).unwrap();
        let rt: Tensor<T, DynRank> = r.read("t").unwrap();
        assert_eq!(rt.dims(), t.dims());
        assert!(
            rt.iter()
                .zip(t.iter())
                .all(|(a, b)| a.to_scalar() == b.to_scalar())
        );
    }
}

#[test]
fn every_element_type_round_trips() {
    round_trip(vec![true, false, false, true]);
    round_trip(vec![i8::MIN, -1, 0, i8::MAX]);
    round_trip(vec![i16::MIN, -1, 0, i16::MAX]);
    round_trip(vec![i32::MIN, -1, 0, i32::MAX]);
    round_trip(vec![i64::MIN, -1, 0, i64::MAX]);
    round_trip(vec![0u8, 1, 2, u8::MAX]);
    round_trip(vec![0u16, 1, 2, u16::MAX]);
    round_trip(vec![0u32, 1, 2, u32::MAX]);
    round_trip(vec![0u64, 1, 2, u64::MAX]);
    round_trip(vec![
        f16::from_f32(0.1),
        f16::MAX,
        f16::NEG_INFINITY,
        f16::from_f32(-0.0),
    ]);
    round_trip(vec![0.1f32, f32::MAX, f32::NEG_INFINITY, -0.0]);
    round_trip(vec![0.1f64, f64::MAX, f64::MIN_POSITIVE, -0.0]);
}

/// Files for NumPy to read back: written under the target directory's
/// test scratch space (`tests/data/npy/check_numpy_reads.py` loads them).
#[test]
fn writes_files_numpy_can_read() {
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("npy_out");
    std::fs::create_dir_all(&out).unwrap();
    let t = Tensor::<f16, Shape![2, 3]>::from(
        [[1., 2., 3.], [4., 5., 6.]].map(|r| r.map(f16::from_f32)),
    );
    npy::write(out.join("f16.npy"), &t.transpose::<0, 1>()).unwrap();
    npy::write(
        out.join("u64.npy"),
        &Tensor::<u64, Shape![2]>::from([u64::MAX, 7]),
    )
    .unwrap();
    npy::write(
        out.join("bool.npy"),
        &Tensor::<bool, Shape![2]>::from([true, false]),
    )
    .unwrap();
    let mut w = NpzWriter::create(out.join("pair.npz"))
        .unwrap()
        .compressed();
    w.add("a", &Tensor::<i8, Shape![2, 2]>::from([[-1, 2], [3, -4]]))
        .unwrap();
    w.add("b", &Tensor::<f64, Shape![]>::full(0.5)).unwrap();
    w.finish().unwrap();
    let back: Tensor<f16, Shape![3, 2]> = npy::read(out.join("f16.npy")).unwrap();
    assert_eq!(back, t.transpose::<0, 1>());
}

// Files as an attacker writes them: headers and archives built here byte by
// byte (not through the library), each refused with an error, quickly and
// without allocating what the file claims. The messages are NumPy 2.4's
// where NumPy refuses the file too (checked by loading the same bytes with
// `np.load`), else those of `shaped::io`'s screens.

use std::cell::Cell;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Counts, per thread, the largest single allocation, so that a test can
/// check that a file's claims were not allocated up front.
struct LargestAllocation;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: forwards every call to the system allocator unchanged; the
// thread-local `Cell` (const-initialised, no destructor) never allocates.
unsafe impl std::alloc::GlobalAlloc for LargestAllocation {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        let _ = LARGEST.try_with(|l| l.set(l.get().max(layout.size())));
        unsafe { std::alloc::System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        unsafe { std::alloc::System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        let _ = LARGEST.try_with(|l| l.set(l.get().max(new_size)));
        unsafe { std::alloc::System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: LargestAllocation = LargestAllocation;

/// The largest single allocation `f` makes on this thread, and its result.
fn largest_allocation<R>(f: impl FnOnce() -> R) -> (usize, R) {
    LARGEST.with(|l| l.set(0));
    let r = f();
    (LARGEST.with(Cell::get), r)
}

/// A `.npy` file: the magic string, format `major`.0, the header's length
/// (2 bytes in format 1.0, 4 in 2.0 and 3.0), `header` padded with spaces
/// and a newline to a multiple of 64 bytes, then `data` (NumPy's layout,
/// `numpy/lib/_format_impl.py`).
fn npy_file(major: u8, header: &str, data: &[u8]) -> Vec<u8> {
    let pre = if major == 1 { 10 } else { 12 };
    let mut h = header.as_bytes().to_vec();
    while !(pre + h.len() + 1).is_multiple_of(64) {
        h.push(b' ');
    }
    h.push(b'\n');
    let mut out = b"\x93NUMPY".to_vec();
    out.extend_from_slice(&[major, 0]);
    if major == 1 {
        out.extend_from_slice(&u16::try_from(h.len()).unwrap().to_le_bytes());
    } else {
        out.extend_from_slice(&u32::try_from(h.len()).unwrap().to_le_bytes());
    }
    out.extend_from_slice(&h);
    out.extend_from_slice(data);
    out
}

/// A header as NumPy writes it.
fn header(descr: &str, shape: &str) -> String {
    format!("{{'descr': {descr}, 'fortran_order': False, 'shape': {shape}, }}")
}

/// `npy::from_reader::<f32, DynRank>` on `bytes`, in a thread: panics if it
/// has not returned within 2 s.
fn load_f32_in_time(bytes: Vec<u8>) -> Result<Tensor<f32, DynRank>, Error> {
    let (send, recv) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = send.send(npy::from_reader::<f32, DynRank, _>(&bytes[..]));
    });
    let start = Instant::now();
    match recv.recv_timeout(Duration::from_secs(2)) {
        Ok(r) => r,
        Err(_) => panic!("still loading after {:?}", start.elapsed()),
    }
}

#[test]
fn nested_brackets_in_a_header_are_refused_at_once() {
    // npyz's header parser (a PEG grammar, `py_literal`) backtracks on each
    // level: 3.2x per brace, 2x per bracket; a 128-byte file with 12 braces
    // took 19 s, 14 braces 211 s (debug build).
    for depth in [12, 20, 30] {
        for (open, close) in [("{", "}"), ("[", "]"), ("(", ")")] {
            let nest = format!("{}{}", open.repeat(depth), close.repeat(depth));
            for h in [header("'<f4'", &nest), header(&nest, "(1,)")] {
                let e = load_f32_in_time(npy_file(1, &h, &[0; 4])).unwrap_err();
                assert_eq!(
                    e.to_string(),
                    "the .npy header nests brackets more than 8 deep",
                    "{h}"
                );
            }
        }
    }
}

#[test]
fn a_header_at_the_limits_loads_in_linear_time() {
    // Nesting 8 deep, each level's last item nested further (what the PEG
    // parser backtracks over), in a header of nearly 10000 bytes.
    let mut descr = format!("'{}'", "x".repeat(9000));
    for _ in 0..7 {
        descr = format!("[{descr}]");
    }
    let h = header(&descr, "(1,)");
    assert!(h.len() > 9000 && h.len() < 9900);
    let e = load_f32_in_time(npy_file(1, &h, &[0; 4])).unwrap_err();
    assert!(matches!(e, Error::Dtype { .. }), "{e}");
}

#[test]
fn a_header_longer_than_numpys_limit_is_refused_before_it_is_read() {
    let numpy_says = |n: u64| {
        format!(
            "Header info length ({n}) is large and may not be safe to load securely.\n\
             To allow loading, adjust `max_header_size` or fully trust the `.npy` file \
             using `allow_pickle=True`.\n\
             For safety against large resource use or crashes, sandboxing may be necessary."
        )
    };
    // A header of `len` bytes (spaces, then a newline), format 2.0 or 3.0,
    // its data not aligned (NumPy reads that too).
    let sized = |major: u8, len: usize| {
        let h = header("'<f4'", "(1,)");
        let h = format!("{h}{}\n", " ".repeat(len - h.len() - 1));
        let mut file = b"\x93NUMPY".to_vec();
        file.extend_from_slice(&[major, 0]);
        file.extend_from_slice(&u32::try_from(len).unwrap().to_le_bytes());
        file.extend_from_slice(h.as_bytes());
        file.extend_from_slice(&[0; 4]);
        file
    };
    for major in [2, 3] {
        let e = load_f32_in_time(sized(major, 10_001)).unwrap_err();
        assert_eq!(e.to_string(), numpy_says(10_001));
        assert_eq!(load_f32_in_time(sized(major, 10_000)).unwrap().dims(), &[1]);
    }
    // A length of 4 GiB followed by nothing: refused, not allocated.
    let mut file = b"\x93NUMPY\x02\x00".to_vec();
    file.extend_from_slice(&u32::MAX.to_le_bytes());
    file.extend_from_slice(b"{'descr': ");
    let (largest, r) = largest_allocation(|| npy::from_reader::<f32, DynRank, _>(&file[..]));
    assert_eq!(r.unwrap_err().to_string(), numpy_says(u64::from(u32::MAX)));
    assert!(largest < 1 << 16, "allocated {largest} bytes");
}

#[test]
fn the_magic_string_and_version_are_numpys() {
    let e = load_f32_in_time(b"\x93NUMPZ\x01\x00rest".to_vec()).unwrap_err();
    assert_eq!(
        e.to_string(),
        r"the magic string is not correct; expected b'\x93NUMPY', got b'\x93NUMPZ'"
    );
    let mut file = npy_file(1, &header("'<f4'", "(1,)"), &[0; 4]);
    file[6] = 4;
    let e = load_f32_in_time(file).unwrap_err();
    assert_eq!(
        e.to_string(),
        "we only support format version (1,0), (2,0), and (3,0), not (4, 0)"
    );
}

#[test]
fn the_header_is_checked_as_numpy_checks_it() {
    let cases = [
        (
            "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': 1}".to_string(),
            "Header does not contain the correct keys: ['descr', 'fortran_order', 'shape', 'x']",
        ),
        (header("'<f4'", "[1]"), "shape is not valid: [1]"),
        (
            header("'<f4'", "(-1,)"),
            "negative dimensions are not allowed",
        ),
        (
            "{'descr': '<f4', 'fortran_order': 1, 'shape': (1,), }".to_string(),
            "fortran_order is not a valid bool: 1",
        ),
        ("[1, 2]".to_string(), "Header is not a dictionary: [1, 2]"),
    ];
    for (h, numpy_says) in cases {
        let e = load_f32_in_time(npy_file(1, &h, &[0; 4])).unwrap_err();
        assert_eq!(e.to_string(), numpy_says, "{h}");
    }
    let e = load_f32_in_time(npy_file(1, "{'descr': '<f4'", &[0; 4])).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("Cannot parse header: \"{'descr': '<f4'   "),
        "{e}"
    );
}

#[test]
fn a_rank_over_64_is_refused_with_numpys_message() {
    let shape = |rank: usize| format!("({})", "1, ".repeat(rank));
    let e = load_f32_in_time(npy_file(1, &header("'<f4'", &shape(65)), &[0; 4])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "maximum supported dimension for an ndarray is currently 64, found 65"
    );
    let t = load_f32_in_time(npy_file(1, &header("'<f4'", &shape(64)), &[0; 4])).unwrap();
    assert_eq!(t.dims(), &[1; 64]);
}

#[test]
fn sizes_whose_product_overflows_are_refused() {
    // npyz multiplies the sizes unchecked: a panic in a debug build.
    for (shape, dims) in [
        ("(4294967296, 4294967296)", "[4294967296, 4294967296]"),
        ("(0, 4294967296, 4294967296)", "[0, 4294967296, 4294967296]"),
        ("(18446744073709551615, 2)", "[18446744073709551615, 2]"),
    ] {
        let e = load_f32_in_time(npy_file(1, &header("'<f4'", shape), &[])).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("the file claims sizes {dims}, whose product overflows 64 bits")
        );
    }
    let e = load_f32_in_time(npy_file(
        1,
        &header("'<f4'", "(18446744073709551616,)"),
        &[],
    ))
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the file claims a size of 18446744073709551616, more than 64 bits hold"
    );
}

#[test]
fn an_empty_array_may_not_claim_huge_sizes() {
    let file = npy_file(1, &header("'<f4'", "(0, 1073741824)"), &[]);
    assert_eq!(file.len(), 128);
    let e = load_f32_in_time(file).unwrap_err();
    assert_eq!(
        e.to_string(),
        "the file claims sizes [0, 1073741824]: an empty array whose other sizes span 1073741824 elements, more than the 1048576 a file may claim without data"
    );
    let t = load_f32_in_time(npy_file(1, &header("'<f4'", "(0, 1048576)"), &[])).unwrap();
    assert_eq!(t.dims(), &[0, 1 << 20]);
}

#[test]
fn a_claim_beyond_the_data_is_refused_without_allocating_it() {
    // 2^30 f32 (4 GiB) claimed, 16 bytes held.
    let file = npy_file(1, &header("'<f4'", "(1073741824,)"), &[0; 16]);
    let says = "the file claims sizes [1073741824] (4294967296 bytes of data), but holds 16 bytes";
    // From a stream: found out when the data ends.
    let (largest, r) = largest_allocation(|| npy::from_reader::<f32, DynRank, _>(&file[..]));
    assert_eq!(r.unwrap_err().to_string(), says);
    assert!(largest < 16 << 10, "allocated {largest} bytes");
    // Found by the fuzz corpus replay: a 141-byte stream claiming 2.7 TB
    // took two 64 KiB chunk buffers; the chunks now grow with the data.
    let terabytes = npy_file(1, &header("'<i8'", "(2, 3, 55555555554)"), &[12; 40]);
    let (largest, r) = largest_allocation(|| npy::from_reader::<i64, DynRank, _>(&terabytes[..]));
    assert!(r.is_err());
    assert!(largest < 16 << 10, "allocated {largest} bytes");
    // From a file, whose length is known: before reading the data.
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("claims_4gib.npy");
    std::fs::write(&path, &file).unwrap();
    let (largest, r) = largest_allocation(|| npy::read::<f32, DynRank>(&path));
    assert_eq!(r.unwrap_err().to_string(), says);
    assert!(largest < 1 << 20, "allocated {largest} bytes");
    // The data a file holds past its array is ignored, as NumPy does.
    let file = npy_file(1, &header("'<i2'", "(2,)"), &[1, 0, 2, 0, 3, 0]);
    let t: Tensor<i16, DynRank> = npy::from_reader(&file[..]).unwrap();
    assert_eq!(t.to_vec(), vec![1, 2]);
}

/// An `.npz` archive of one `f32` array `x` of values 0, 1, ... 63 (written
/// by the library), and the offset of the element `value` in its bytes.
fn npz_of_f32(compressed: bool, value: f32) -> (Vec<u8>, Option<usize>) {
    let x =
        Tensor::<f32, DynRank>::try_from_vec((0..64).map(|i| i as f32).collect(), &[64]).unwrap();
    let mut buf = Cursor::new(Vec::new());
    let mut w = NpzWriter::new(&mut buf);
    if compressed {
        w = w.compressed();
    }
    w.add("x", &x).unwrap();
    w.finish().unwrap();
    let bytes = buf.into_inner();
    let at = bytes.windows(4).position(|w| w == value.to_le_bytes());
    (bytes, at)
}

/// The offsets of an archive's first local file header and its member's
/// data, and the member's compressed size (the zip format's fields).
fn first_member(bytes: &[u8]) -> (usize, usize, usize) {
    let u16_at = |i: usize| u16::from_le_bytes([bytes[i], bytes[i + 1]]) as usize;
    let header = bytes.windows(4).position(|w| w == b"PK\x03\x04").unwrap();
    let data = header + 30 + u16_at(header + 26) + u16_at(header + 28);
    let size = u32::from_le_bytes(bytes[header + 18..header + 22].try_into().unwrap());
    (header, data, size as usize)
}

fn read_x(bytes: &[u8]) -> Result<Tensor<f32, DynRank>, Error> {
    NpzReader::new(Cursor::new(bytes.to_vec()))?.read("x")
}

#[test]
fn a_corrupted_npz_member_fails_its_checksum() {
    let (mut bytes, at) = npz_of_f32(false, 42.0);
    assert_eq!(read_x(&bytes).unwrap().get([42]), 42.0);
    // 42.0 (0x42280000) becomes 42.25 (0x42290000): the member's CRC-32 no
    // longer matches.
    bytes[at.unwrap() + 2] ^= 0x01;
    assert_eq!(read_x(&bytes).unwrap_err().to_string(), "Invalid checksum");
    // Deflated: every bit of the stream flipped in turn; each either fails
    // to inflate, fails the checksum or (a bit the stream does not use)
    // gives the array unchanged.
    let (bytes, _) = npz_of_f32(true, 42.0);
    let (_, data, size) = first_member(&bytes);
    let want: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let mut refused = 0;
    for i in data..data + size {
        for bit in 0..8 {
            let mut b = bytes.clone();
            b[i] ^= 1 << bit;
            match read_x(&b) {
                Ok(t) => assert_eq!(t.to_vec(), want, "byte {i} bit {bit}"),
                Err(_) => refused += 1,
            }
        }
    }
    assert!(refused > size * 8 / 2, "{refused} of {} refused", size * 8);
}

#[test]
fn an_npz_member_claiming_more_than_the_archive_holds_is_refused() {
    for compressed in [false, true] {
        let (mut bytes, _) = npz_of_f32(compressed, 0.0);
        let len = bytes.len();
        let (_, _, size) = first_member(&bytes);
        // The central directory's sizes: compressed at 20, uncompressed at 24
        // (a stored member's are equal, so both are patched).
        let dir = bytes.windows(4).position(|w| w == b"PK\x01\x02").unwrap();
        let claim = 0x7fff_ffffu32.to_le_bytes();
        if !compressed {
            bytes[dir + 20..dir + 24].copy_from_slice(&claim);
        }
        bytes[dir + 24..dir + 28].copy_from_slice(&claim);
        let (largest, r) = largest_allocation(|| read_x(&bytes));
        let says = if compressed {
            format!(
                "the archive member 'x.npy' claims 2147483647 bytes, more than {size} deflated bytes can hold"
            )
        } else {
            format!(
                "the archive member 'x.npy' claims 2147483647 bytes, more than the archive's {len}"
            )
        };
        assert_eq!(r.unwrap_err().to_string(), says);
        assert!(largest < 1 << 20, "allocated {largest} bytes");
    }
}

#[test]
fn an_npz_member_holding_less_than_its_array_claims_is_refused() {
    // The npy inside claims 2^20 f32; the member holds 4 of them.
    let npy = npy_file(1, &header("'<f4'", "(1048576,)"), &[0; 16]);
    let mut buf = Cursor::new(Vec::new());
    {
        let mut w = npyz::zip::ZipWriter::new(&mut buf);
        let options = npyz::zip::write::FileOptions::default()
            .compression_method(npyz::zip::CompressionMethod::Stored);
        w.start_file("x.npy", options).unwrap();
        std::io::Write::write_all(&mut w, &npy).unwrap();
        w.finish().unwrap();
    }
    let (largest, r) = largest_allocation(|| read_x(buf.get_ref()));
    assert_eq!(
        r.unwrap_err().to_string(),
        "the file claims sizes [1048576] (4194304 bytes of data), but holds 16 bytes"
    );
    assert!(largest < 1 << 20, "allocated {largest} bytes");
}
