//! sort, topk, tril and triu against results and error messages computed by
//! PyTorch (`tests/data/sort_cases.json`, written by
//! `tests/data/gen_sort_data.py`), on float64 (with NaN, ±inf, -0.0 and
//! ties) and int64 inputs of ranks 1 to 4, contiguous and as a permuted
//! view.

mod common;

use common::json_scalar::dims;
use common::json_tensor::num;
use serde_json::Value;
use shaped::{DynRank, Shape, Tensor};

fn cases() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/sort_cases.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn floats(v: &Value) -> Vec<f64> {
    v["data"].as_array().unwrap().iter().map(num).collect()
}

fn ints(v: &Value) -> Vec<i64> {
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

/// The fixture's tensor, contiguous or (`permuted`, rank >= 2) as a view
/// whose axes are reversed in memory.
fn tensor<T: shaped::element::Element>(
    data: Vec<T>,
    dims: &[usize],
    permuted: bool,
) -> Tensor<T, DynRank> {
    if !permuted || dims.len() < 2 {
        return Tensor::try_from_vec(data, dims).unwrap();
    }
    let rev: Vec<usize> = dims.iter().rev().copied().collect();
    let t = Tensor::<T, DynRank>::try_from_vec(data, dims).unwrap();
    let order: Vec<isize> = (0..dims.len() as isize).rev().collect();
    // Reversed in memory, then seen in the fixture's order again.
    let stored = t.permute::<DynRank>(&order).unwrap().contiguous();
    assert_eq!(stored.dims(), &rev[..]);
    stored.permute::<DynRank>(&order).unwrap()
}

/// Equal as PyTorch's results are: NaN equals NaN, and the sign of zero
/// counts (a stable sort keeps `-0.0` where it was).
fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a == b && a.is_sign_negative() == b.is_sign_negative())
}

#[track_caller]
fn assert_floats(got: &[f64], want: &[f64], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (x, y)) in got.iter().zip(want).enumerate() {
        assert!(same(*x, *y), "{what} at {i}: {x} vs PyTorch's {y}");
    }
}

/// topk's indices point at their values, and no index repeats in a row.
#[track_caller]
fn assert_indices_point_at_values(
    input: &[f64],
    n: usize,
    values: &[f64],
    index: &[i64],
    k: usize,
) {
    for (row, (v, i)) in values
        .chunks(k.max(1))
        .zip(index.chunks(k.max(1)))
        .enumerate()
    {
        let mut seen = std::collections::HashSet::new();
        for (x, &j) in v.iter().zip(i) {
            assert!(seen.insert(j), "row {row}: index {j} twice");
            assert!(
                same(input[row * n + j as usize], *x),
                "row {row}: index {j}"
            );
        }
    }
}

fn check_sort(case: &Value, permuted: bool) {
    let shape = dims(&case["input"]);
    let descending = case["descending"].as_bool().unwrap();
    let want_index = ints(&case["indices"]);
    let what = format!("sort {shape:?} descending={descending} permuted={permuted}");
    if case["dtype"] == "i64" {
        let (v, i) = tensor(ints(&case["input"]), &shape, permuted).sort(descending);
        assert_eq!(v.to_vec(), ints(&case["values"]), "{what}");
        assert_eq!(i.to_vec(), want_index, "{what}");
    } else {
        let (v, i) = tensor(floats(&case["input"]), &shape, permuted).sort(descending);
        assert_eq!(v.dims(), &shape[..]);
        assert_floats(&v.to_vec(), &floats(&case["values"]), &what);
        assert_eq!(i.to_vec(), want_index, "{what}");
    }
}

fn check_topk(case: &Value, permuted: bool) {
    let shape = dims(&case["input"]);
    let k = case["k"].as_u64().unwrap() as usize;
    let n = shape[shape.len() - 1];
    let what = format!("topk {shape:?} k={k} permuted={permuted}");
    let input: Vec<f64> = if case["dtype"] == "i64" {
        ints(&case["input"]).into_iter().map(|x| x as f64).collect()
    } else {
        floats(&case["input"])
    };
    let (values, index) = if case["dtype"] == "i64" {
        let (v, i) = tensor(ints(&case["input"]), &shape, permuted).topk(k);
        assert_eq!(v.to_vec(), ints(&case["values"]), "{what}");
        (
            v.to_vec().into_iter().map(|x| x as f64).collect::<Vec<_>>(),
            i,
        )
    } else {
        let (v, i) = tensor(floats(&case["input"]), &shape, permuted).topk(k);
        // Ties may come in any order in PyTorch: `0.0` and `-0.0` too.
        let unsigned = |x: Vec<f64>| x.into_iter().map(|x| x + 0.0).collect::<Vec<_>>();
        assert_floats(
            &unsigned(v.to_vec()),
            &unsigned(floats(&case["values"])),
            &what,
        );
        (v.to_vec(), i)
    };
    assert_eq!(index.dims(), &dims(&case["values"])[..], "{what}");
    let index = index.to_vec();
    if case.get("indices").is_some() {
        assert_eq!(index, ints(&case["indices"]), "{what}");
    }
    assert_indices_point_at_values(&input, n, &values, &index, k);
}

fn check_triangle(case: &Value, permuted: bool) {
    let shape = dims(&case["input"]);
    let diagonal = case["diagonal"].as_i64().unwrap();
    let t = tensor(floats(&case["input"]), &shape, permuted);
    let got = if case["op"] == "tril" {
        t.tril(diagonal)
    } else {
        t.triu(diagonal)
    };
    let what = format!(
        "{} {shape:?} diagonal={diagonal} permuted={permuted}",
        case["op"]
    );
    assert_eq!(got.dims(), &shape[..], "{what}");
    assert_floats(&got.to_vec(), &floats(&case["values"]), &what);
}

#[test]
fn every_case_matches_pytorch() {
    let all = cases();
    let list = all["cases"].as_array().unwrap();
    assert!(list.len() > 200);
    for case in list {
        for permuted in [false, true] {
            match case["op"].as_str().unwrap() {
                "sort" => check_sort(case, permuted),
                "topk" => check_topk(case, permuted),
                "tril" | "triu" => check_triangle(case, permuted),
                op => panic!("unknown op {op}"),
            }
        }
    }
}

#[test]
fn errors_are_pytorchs() {
    let all = cases();
    let e = &all["errors"];
    let msg = |key: &str| e[key].as_str().unwrap().to_string();
    let t = Tensor::<f32, Shape![2, 3]>::ones();
    assert_eq!(t.try_topk(4).unwrap_err().to_string(), msg("topk k > n"));
    let v = Tensor::<f32, DynRank>::try_ones(&[3]).unwrap();
    assert_eq!(v.try_tril(0).unwrap_err().to_string(), msg("tril 1-d"));
    assert_eq!(v.try_triu(0).unwrap_err().to_string(), msg("triu 1-d"));

    let w =
        |data: Vec<f32>, dims: &[usize]| Tensor::<f32, DynRank>::try_from_vec(data, dims).unwrap();
    let err = |t: Tensor<f32, DynRank>, n: usize, repl: bool| {
        t.try_multinomial(n, repl, 0).unwrap_err().to_string()
    };
    assert_eq!(
        err(w(vec![0.5, -0.1], &[2]), 1, false),
        msg("multinomial negative")
    );
    assert_eq!(
        err(w(vec![0.5, f32::INFINITY], &[2]), 1, false),
        msg("multinomial inf")
    );
    assert_eq!(
        err(w(vec![1., 1., 0.5, f32::NAN], &[2, 2]), 1, true),
        msg("multinomial nan")
    );
    assert_eq!(
        err(w(vec![0., 0.], &[2]), 1, true),
        msg("multinomial zero sum")
    );
    assert_eq!(
        err(w(vec![0.5, 0.5], &[2]), 3, false),
        msg("multinomial n > V")
    );
    assert_eq!(
        err(w(vec![0.5, 0.5], &[2]), 0, true),
        msg("multinomial n = 0")
    );
    assert_eq!(
        err(w(vec![1.; 8], &[2, 2, 2]), 1, false),
        msg("multinomial 3-d")
    );
}

/// The panicking forms panic with the same messages.
#[test]
#[should_panic(expected = "selected index k out of range")]
fn topk_panics_with_pytorchs_message() {
    let _ = Tensor::<i32, Shape![3]>::zeros().topk(4);
}

/// Static shapes: `sort` keeps the type, `topk` makes the last axis `Dyn`;
/// `f32`, `i32` and `u8` elements.
#[test]
fn result_types() {
    let t = Tensor::<f32, Shape![2, 3]>::from_vec(vec![0.5, -1., 2., 3., 3., -0.5]);
    let (v, i) = t.sort(true);
    let (v, i): (Tensor<f32, Shape![2, 3]>, Tensor<i64, _>) = (v, i);
    let i: Tensor<i64, Shape![2, 3]> = i;
    assert_eq!(v.to_vec(), vec![2., 0.5, -1., 3., 3., -0.5]);
    assert_eq!(i.to_vec(), vec![2, 0, 1, 0, 1, 2]);
    let (v, i) = t.topk(2);
    let (v, i): (Tensor<f32, Shape![2, _]>, Tensor<i64, _>) = (v, i);
    let i: Tensor<i64, Shape![2, _]> = i;
    assert_eq!((v.dims(), i.dims()), (&[2, 2][..], &[2, 2][..]));
    let u = Tensor::<u8, Shape![4]>::from_vec(vec![3, 250, 0, 7]);
    assert_eq!(u.topk(2).1.to_vec(), vec![1, 3]);
    let (_, i) = Tensor::<i32, Shape![1, 4]>::from_vec(vec![5, 5, 5, 5]).sort(true);
    assert_eq!(i.to_vec(), vec![0, 1, 2, 3]);
}
