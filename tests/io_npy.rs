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
