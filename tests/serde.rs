//! serde round trips of every element type through JSON, against the JSON
//! written out by hand, and the shape checks on the way in.

use shaped::element::{bf16, f16};
use shaped::{DynRank, Shape, Tensor};

#[test]
fn json_form_is_shape_and_row_major_data() {
    let t = Tensor::<f64, Shape![2, 3]>::from([[0.5, 1., 2.], [3., 4., 5.]]);
    let v = t.transpose::<0, 1>();
    assert_eq!(
        serde_json::to_string(&v).unwrap(),
        r#"{"shape":[3,2],"data":[0.5,3.0,1.0,4.0,2.0,5.0]}"#
    );
    let s = Tensor::<bool, Shape![]>::full(true);
    assert_eq!(
        serde_json::to_string(&s).unwrap(),
        r#"{"shape":[],"data":[true]}"#
    );
}

#[test]
fn every_element_type_round_trips() {
    fn rt<T>(data: Vec<T>)
    where
        T: shaped::element::Element + serde::Serialize + serde::de::DeserializeOwned,
    {
        let t = Tensor::<T, DynRank>::try_from_vec(data, &[2, 2]).unwrap();
        let json = serde_json::to_string(&t).unwrap();
        let back: Tensor<T, Shape![2, _]> = serde_json::from_str(&json).unwrap();
        assert_eq!(back, t, "{json}");
    }
    rt(vec![true, false, true, true]);
    rt(vec![i8::MIN, 0, 1, i8::MAX]);
    rt(vec![i16::MIN, 0, 1, i16::MAX]);
    rt(vec![i32::MIN, 0, 1, i32::MAX]);
    rt(vec![i64::MIN, 0, 1, i64::MAX]);
    rt(vec![0u8, 1, 2, u8::MAX]);
    rt(vec![0u16, 1, 2, u16::MAX]);
    rt(vec![0u32, 1, 2, u32::MAX]);
    rt(vec![0u64, 1, 2, u64::MAX]);
    rt(vec![
        f16::from_f32(0.1),
        f16::MAX,
        f16::MIN_POSITIVE,
        f16::from_f32(-2.5),
    ]);
    rt(vec![
        bf16::from_f32(0.1),
        bf16::MAX,
        bf16::MIN_POSITIVE,
        bf16::from_f32(-2.5),
    ]);
    rt(vec![0.1f32, f32::MAX, f32::MIN_POSITIVE, -2.5]);
    rt(vec![0.1f64, f64::MAX, f64::MIN_POSITIVE, -2.5]);
}

#[test]
fn shapes_are_checked_on_the_way_in() {
    let e = serde_json::from_str::<Tensor<i32, Shape![2, 2]>>(
        r#"{"shape":[2,3],"data":[1,2,3,4,5,6]}"#,
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("expected size 2 at dimension 1, but got shape [2, 3]"),
        "{e}"
    );
    let e = serde_json::from_str::<Tensor<i32, DynRank>>(r#"{"shape":[2,3],"data":[1,2]}"#)
        .unwrap_err();
    assert!(
        e.to_string()
            .starts_with("shape '[2, 3]' is invalid for input of size 2"),
        "{e}"
    );
}

/// The JSON of a tensor with these sizes and `n` zeros.
fn json(shape: &[u64], n: usize) -> String {
    let shape: Vec<String> = shape.iter().map(u64::to_string).collect();
    format!(
        r#"{{"shape":[{}],"data":[{}]}}"#,
        shape.join(","),
        vec!["0"; n].join(",")
    )
}

#[test]
fn a_rank_over_64_is_refused_with_numpys_message() {
    for rank in [65, 100_000] {
        let e = serde_json::from_str::<Tensor<f32, DynRank>>(&json(&vec![1; rank], 1)).unwrap_err();
        assert!(
            e.to_string().starts_with(&format!(
                "maximum supported dimension for an ndarray is currently 64, found {rank}"
            )),
            "{e}"
        );
    }
    let t: Tensor<f32, DynRank> = serde_json::from_str(&json(&[1; 64], 1)).unwrap();
    assert_eq!(t.dims(), &[1; 64]);
    // Display recurses once per dimension.
    assert_eq!(
        format!("{t}"),
        format!("tensor({}0.{})", "[".repeat(64), "]".repeat(64))
    );
}

#[test]
fn sizes_the_data_cannot_back_are_refused() {
    let e = serde_json::from_str::<Tensor<f32, DynRank>>(&json(&[0, 1 << 30], 0)).unwrap_err();
    assert!(
        e.to_string().starts_with(
            "the file claims sizes [0, 1073741824]: an empty array whose other sizes span 1073741824 elements, more than the 1048576 a file may claim without data"
        ),
        "{e}"
    );
    let e = serde_json::from_str::<Tensor<u8, Shape![_, _]>>(&json(&[1 << 32, 1 << 32], 0))
        .unwrap_err();
    assert!(
        e.to_string().starts_with(
            "the file claims sizes [4294967296, 4294967296], whose product overflows 64 bits"
        ),
        "{e}"
    );
    let t: Tensor<f32, DynRank> = serde_json::from_str(&json(&[0, 1 << 20], 0)).unwrap();
    assert_eq!(t.dims(), &[0, 1 << 20]);
}
