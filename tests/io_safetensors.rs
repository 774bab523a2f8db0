//! safetensors files written by the reference Python package
//! (tests/data/safetensors/, made by gen_safetensors.py), compared with
//! PyTorch's elements (expected.json); a round trip of every element type;
//! typed loads into a struct of parameters.

use std::path::PathBuf;

mod common;

use common::json_scalar::{dims, same};
use serde_json::Value;
use shaped::element::{bf16, f16};
use shaped::io::Error;
use shaped::io::safetensors::{SafeElement, SafeTensorsFile, SafeTensorsWriter};
use shaped::{DynRank, Shape, Tensor};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/safetensors")
}

fn check<T: SafeElement>(file: &SafeTensorsFile, name: &str, want: &Value) {
    let t: Tensor<T, DynRank> = file.load(name).unwrap();
    let dims = dims(want);
    assert_eq!(t.dims(), &dims[..], "{name}");
    let data = want["data"].as_array().unwrap();
    assert_eq!(t.numel(), data.len());
    for (x, w) in t.iter().zip(data) {
        assert!(same(x.to_scalar(), w), "{name}: {x} vs {w}");
    }
}

#[test]
fn reads_every_dtype_the_reference_package_wrote() {
    let text = std::fs::read_to_string(dir().join("expected.json")).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let tensors = v["tensors"].as_object().unwrap();
    let file = SafeTensorsFile::open(dir().join("all_dtypes.safetensors")).unwrap();
    let mut names: Vec<String> = tensors.keys().cloned().collect();
    names.sort();
    assert_eq!(file.names(), names);
    for (name, want) in tensors {
        match want["dtype"].as_str().unwrap() {
            "bool" => check::<bool>(&file, name, want),
            "uint8" => check::<u8>(&file, name, want),
            "uint16" => check::<u16>(&file, name, want),
            "uint32" => check::<u32>(&file, name, want),
            "uint64" => check::<u64>(&file, name, want),
            "int8" => check::<i8>(&file, name, want),
            "int16" => check::<i16>(&file, name, want),
            "int32" => check::<i32>(&file, name, want),
            "int64" => check::<i64>(&file, name, want),
            "float16" => check::<f16>(&file, name, want),
            "bfloat16" => check::<bf16>(&file, name, want),
            "float32" => check::<f32>(&file, name, want),
            "float64" => check::<f64>(&file, name, want),
            other => panic!("{name}: {other}"),
        }
    }
}

struct Params {
    weight: Tensor<f32, Shape![3, 2]>,
    mask: Tensor<bool, Shape![2, 2]>,
    counts: Tensor<i64, Shape![2, _]>,
}

#[test]
fn typed_struct_loads_check_dtype_and_shape() {
    let file = SafeTensorsFile::open(dir().join("all_dtypes.safetensors")).unwrap();
    let p = Params {
        weight: file.load("float32").unwrap(),
        mask: file.load("bool").unwrap(),
        counts: file.load("int64").unwrap(),
    };
    assert_eq!(p.weight.get([0, 0]), f32::MAX);
    assert!(p.mask.get([1, 1]));
    assert_eq!(p.counts.dims(), &[2, 3]);
    let e = file.load::<f32, Shape![2, 3]>("float32").unwrap_err();
    assert!(matches!(e, Error::Shape { .. }));
    assert_eq!(
        e.to_string(),
        "shape mismatch: the file holds sizes [3, 2], the tensor type is Shape![2, 3] (expected size 2 at dimension 0, but got shape [3, 2])"
    );
    let e = file.load::<f64, Shape![3, 2]>("float32").unwrap_err();
    assert_eq!(
        e.to_string(),
        "dtype mismatch: the file holds F32, the tensor type's element is float64"
    );
    assert_eq!(
        file.load::<f32, DynRank>("nope").unwrap_err().to_string(),
        "no tensor named 'nope' in the file"
    );
}

fn add_rt<T: SafeElement>(
    w: &mut SafeTensorsWriter,
    name: &str,
    data: Vec<T>,
) -> Tensor<T, DynRank> {
    let t = Tensor::<T, DynRank>::try_from_vec(data, &[2, 2]).unwrap();
    // Written through a transposed view: the logical elements go out.
    let v = t.permute::<DynRank>(&[1, 0]).unwrap();
    w.add(name, &v);
    v
}

fn same_elements<T: SafeElement>(a: &Tensor<T, DynRank>, b: &Tensor<T, DynRank>) -> bool {
    a.dims() == b.dims()
        && a.iter()
            .zip(b.iter())
            .all(|(x, y)| x.to_scalar() == y.to_scalar())
}

#[test]
fn every_element_type_round_trips() {
    let mut w = SafeTensorsWriter::new();
    let a = add_rt(&mut w, "bool", vec![true, false, false, true]);
    let b = add_rt(&mut w, "u64", vec![0u64, 1, 2, u64::MAX]);
    let c = add_rt(&mut w, "i8", vec![i8::MIN, -1, 0, i8::MAX]);
    let d = add_rt(
        &mut w,
        "bf16",
        vec![
            bf16::from_f32(0.1),
            bf16::MAX,
            bf16::NEG_INFINITY,
            bf16::from_f32(-0.0),
        ],
    );
    let e = add_rt(
        &mut w,
        "f16",
        vec![
            f16::from_f32(0.1),
            f16::MAX,
            f16::NEG_INFINITY,
            f16::from_f32(-0.0),
        ],
    );
    let f = add_rt(
        &mut w,
        "f64",
        vec![0.1f64, f64::MAX, f64::MIN_POSITIVE, -0.0],
    );
    let g = add_rt(&mut w, "u16", vec![0u16, 1, 2, u16::MAX]);
    let h = add_rt(&mut w, "u32", vec![0u32, 1, 2, u32::MAX]);
    let i = add_rt(&mut w, "i16", vec![i16::MIN, -1, 0, i16::MAX]);
    let j = add_rt(&mut w, "i32", vec![i32::MIN, -1, 0, i32::MAX]);
    let k = add_rt(&mut w, "i64", vec![i64::MIN, -1, 0, i64::MAX]);
    let l = add_rt(&mut w, "u8", vec![0u8, 1, 2, u8::MAX]);
    let m = add_rt(
        &mut w,
        "f32",
        vec![0.1f32, f32::MAX, f32::MIN_POSITIVE, -0.0],
    );
    let path = std::env::temp_dir().join(format!("shaped_rt_{}.safetensors", std::process::id()));
    w.write(&path).unwrap();
    let file = SafeTensorsFile::open(&path).unwrap();
    assert!(same_elements(&file.load("bool").unwrap(), &a));
    assert!(same_elements(&file.load("u64").unwrap(), &b));
    assert!(same_elements(&file.load("i8").unwrap(), &c));
    assert!(same_elements(&file.load("bf16").unwrap(), &d));
    assert!(same_elements(&file.load("f16").unwrap(), &e));
    assert!(same_elements(&file.load("f64").unwrap(), &f));
    assert!(same_elements(&file.load("u16").unwrap(), &g));
    assert!(same_elements(&file.load("u32").unwrap(), &h));
    assert!(same_elements(&file.load("i16").unwrap(), &i));
    assert!(same_elements(&file.load("i32").unwrap(), &j));
    assert!(same_elements(&file.load("i64").unwrap(), &k));
    assert!(same_elements(&file.load("u8").unwrap(), &l));
    assert!(same_elements(&file.load("f32").unwrap(), &m));
    drop(file);
    std::fs::remove_file(&path).unwrap();
    // Two tensors of one name are refused.
    let mut w = SafeTensorsWriter::new();
    w.add("x", &Tensor::<u8, Shape![2]>::from([1, 2]));
    w.add("x", &Tensor::<u8, Shape![2]>::from([1, 2]));
    assert_eq!(
        w.to_bytes().unwrap_err().to_string(),
        "unsupported: two tensors named 'x'"
    );
}

/// A safetensors file of one `U8` tensor with the header `entries` (the
/// JSON object's members) and `data` bytes, written by hand.
fn handmade(entries: &str, data: &[u8]) -> Vec<u8> {
    let header = format!("{{{entries}}}");
    let mut bytes = (header.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(header.as_bytes());
    bytes.extend_from_slice(data);
    bytes
}

/// A file truncated by another process after it was opened: the load is an
/// error. (Memory-mapped, the same load killed the process with SIGBUS.)
#[test]
fn a_file_truncated_after_opening_is_an_error_not_a_crash() {
    let path = std::env::temp_dir().join(format!(
        "shaped_truncated_{}.safetensors",
        std::process::id()
    ));
    let mut w = SafeTensorsWriter::new();
    w.add("w", &Tensor::<f32, Shape![256, 64]>::ones());
    w.write(&path).unwrap();
    let file = SafeTensorsFile::open(&path).unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(100)
        .unwrap();
    let e = file.load::<f32, Shape![256, 64]>("w").unwrap_err();
    assert!(matches!(e, Error::Io(_)), "{e}");
    // Opened again, the short file is refused at once.
    assert!(SafeTensorsFile::open(&path).is_err());
    std::fs::remove_file(&path).unwrap();
}

/// More than 64 dimensions (NumPy's limit) is refused with NumPy's message
/// before anything is allocated; so are sizes that no data backs.
#[test]
fn ranks_over_64_and_unbacked_sizes_are_refused() {
    let ones = vec!["1"; 65].join(",");
    let bytes = handmade(
        &format!(r#""x":{{"dtype":"U8","shape":[{ones}],"data_offsets":[0,1]}}"#),
        &[7],
    );
    let f = SafeTensorsFile::from_bytes(bytes).unwrap();
    let e = f.load::<u8, DynRank>("x").unwrap_err();
    assert_eq!(
        e.to_string(),
        "maximum supported dimension for an ndarray is currently 64, found 65"
    );
    // 64 dimensions load.
    let ones = vec!["1"; 64].join(",");
    let bytes = handmade(
        &format!(r#""x":{{"dtype":"U8","shape":[{ones}],"data_offsets":[0,1]}}"#),
        &[7],
    );
    let x = SafeTensorsFile::from_bytes(bytes)
        .unwrap()
        .load::<u8, DynRank>("x")
        .unwrap();
    assert_eq!((x.rank(), x.to_vec()), (64, vec![7]));

    let bytes = handmade(
        r#""e":{"dtype":"F32","shape":[0,1073741824],"data_offsets":[0,0]}"#,
        &[],
    );
    let f = SafeTensorsFile::from_bytes(bytes).unwrap();
    let e = f.load::<f32, DynRank>("e").unwrap_err();
    assert!(
        e.to_string()
            .contains("more than the 1048576 a file may claim without data"),
        "{e}"
    );
    // An empty tensor whose sizes are modest loads.
    let bytes = handmade(
        r#""e":{"dtype":"F32","shape":[0,1000],"data_offsets":[0,0]}"#,
        &[],
    );
    let e = SafeTensorsFile::from_bytes(bytes)
        .unwrap()
        .load::<f32, DynRank>("e")
        .unwrap();
    assert_eq!(e.dims(), &[0, 1000]);
}

/// The header is parsed once per file, not once per load: loading each of
/// 5,000 tensors took minutes when every load parsed the whole header.
#[test]
fn the_header_is_parsed_once_per_file() {
    let mut w = SafeTensorsWriter::new();
    for i in 0..5000 {
        w.add(&format!("t{i}"), &Tensor::<u8, Shape![1]>::from([i as u8]));
    }
    let f = SafeTensorsFile::from_bytes(w.to_bytes().unwrap()).unwrap();
    let start = std::time::Instant::now();
    for i in 0..5000 {
        let t: Tensor<u8, Shape![1]> = f.load(&format!("t{i}")).unwrap();
        assert_eq!(t.to_vec(), vec![i as u8]);
    }
    // About 10 ms in a debug build; re-parsing the header per load took
    // about 10 ms per load.
    let took = start.elapsed();
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
}
