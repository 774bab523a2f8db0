//! `scatter_reduce` (every reduction, `include_self` true and false),
//! `masked_scatter(_)`, `masked_fill` with a 0-d tensor value,
//! `take_along_dim` flattened and with a run-time dim, and out-of-place
//! `scatter` with a scalar, against PyTorch's results
//! (`tests/data/scatter_cases.json`, written by
//! `tests/data/gen_scatter_data.py`), gradients included where the
//! neighbouring ops have them.

use serde_json::Value;
use shaped::autograd::Var;
use shaped::ops::index::ScatterReduce;
use shaped::{DynRank, Tensor};

type D = Tensor<f64, DynRank>;

fn shape_of(v: &Value) -> Vec<usize> {
    let dims = v["shape"].as_array().expect("shape");
    dims.iter().map(|d| d.as_u64().unwrap() as usize).collect()
}

/// Float data; `null` is NaN.
fn f64s(v: &Value) -> D {
    let data = v["data"].as_array().expect("data");
    let data = data
        .iter()
        .map(|x| x.as_f64().unwrap_or(f64::NAN))
        .collect();
    D::try_from_vec(data, &shape_of(v)).unwrap()
}

fn i64s(v: &Value) -> Tensor<i64, DynRank> {
    let data = v["data"].as_array().expect("data");
    let data = data.iter().map(|x| x.as_i64().unwrap()).collect();
    Tensor::try_from_vec(data, &shape_of(v)).unwrap()
}

fn bools(v: &Value) -> Tensor<bool, DynRank> {
    let data = v["data"].as_array().expect("data");
    let data = data.iter().map(|x| x.as_bool().unwrap()).collect();
    Tensor::try_from_vec(data, &shape_of(v)).unwrap()
}

/// Equal sizes and elements, NaN equal to NaN.
fn same(got: &D, want: &D, what: &str) {
    assert_eq!(got.dims(), want.dims(), "{what}: sizes");
    let (g, w) = (got.to_vec(), want.to_vec());
    let eq = g
        .iter()
        .zip(&w)
        .all(|(a, b)| a == b || (a.is_nan() && b.is_nan()));
    assert!(eq, "{what}: got {g:?}, want {w:?}");
}

fn cases() -> Vec<Value> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/scatter_cases.json"
    ))
    .unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    json["cases"].as_array().unwrap().clone()
}

fn cases_of(op: &str) -> Vec<Value> {
    let c: Vec<Value> = cases().into_iter().filter(|c| c["op"] == op).collect();
    assert!(!c.is_empty(), "no `{op}` cases in the data file");
    c
}

fn reduce_of(c: &Value) -> ScatterReduce {
    c["reduce"].as_str().unwrap().parse().unwrap()
}

#[test]
fn scatter_reduce_matches_pytorch() {
    let cases = cases_of("scatter_reduce");
    assert!(cases.len() >= 600, "{} cases", cases.len());
    for (n, c) in cases.iter().enumerate() {
        let (dim, reduce) = (c["dim"].as_i64().unwrap() as isize, reduce_of(c));
        let include_self = c["include_self"].as_bool().unwrap();
        let index = i64s(&c["index"]);
        let what = format!("case {n}: {reduce:?} include_self={include_self} dim={dim}");
        if c["dtype"] == "i64" {
            let (s, src, want) = (i64s(&c["self"]), i64s(&c["src"]), i64s(&c["out"]));
            let got = s.scatter_reduce(dim, &index, &src, reduce, include_self);
            assert_eq!(got.to_vec(), want.to_vec(), "{what}");
            let mut t = s.clone();
            t.scatter_reduce_(dim, &index, &src, reduce, include_self);
            assert_eq!(t.to_vec(), want.to_vec(), "in place {what}");
        } else {
            let (s, src, want) = (f64s(&c["self"]), f64s(&c["src"]), f64s(&c["out"]));
            let got = s
                .try_scatter_reduce(dim, &index, &src, reduce, include_self)
                .unwrap();
            same(&got, &want, &what);
            let mut t = s.clone();
            t.try_scatter_reduce_(dim, &index, &src, reduce, include_self)
                .unwrap();
            same(&t, &want, &format!("in place {what}"));
        }
    }
    for c in cases_of("scatter_reduce_error") {
        let mut s = f64s(&c["self"]);
        let before = s.to_vec();
        let err = s
            .try_scatter_reduce_(0, &i64s(&c["index"]), &f64s(&c["src"]), reduce_of(&c), true)
            .unwrap_err();
        assert_eq!(err.to_string(), c["error"].as_str().unwrap());
        assert_eq!(s.to_vec(), before, "nothing is written on an error");
    }
    assert_eq!(
        "max".parse::<ScatterReduce>().unwrap_err().to_string(),
        "reduce argument must be either sum, prod, mean, amax or amin, got max"
    );
}

#[test]
fn masked_scatter_matches_pytorch() {
    for (n, c) in cases_of("masked_scatter").iter().enumerate() {
        let (s, m, src) = (f64s(&c["self"]), bools(&c["mask"]), f64s(&c["source"]));
        let want = f64s(&c["out"]);
        same(&s.masked_scatter(&m, &src), &want, &format!("case {n}"));
        // Gradients of (out * w).sum() for self and source.
        let (sv, srcv) = (Var::param(s.clone()), Var::param(src.clone()));
        let w = Var::constant(f64s(&c["w"]));
        let g = sv.masked_scatter(&m, &srcv).mul(&w).sum().backward();
        same(
            &g.wrt(&sv).unwrap(),
            &f64s(&c["grad_self"]),
            &format!("d self, case {n}"),
        );
        same(
            &g.wrt(&srcv).unwrap(),
            &f64s(&c["grad_source"]),
            &format!("d source, case {n}"),
        );
    }
    for (n, c) in cases_of("masked_scatter_").iter().enumerate() {
        let mut s = f64s(&c["self"]);
        s.masked_scatter_(&bools(&c["mask"]), &f64s(&c["source"]));
        same(&s, &f64s(&c["out"]), &format!("in place, case {n}"));
    }
    for c in cases_of("masked_scatter_error") {
        let (s, m, src) = (f64s(&c["self"]), bools(&c["mask"]), f64s(&c["source"]));
        let err = s.try_masked_scatter(&m, &src).unwrap_err();
        assert_eq!(err.to_string(), c["error"].as_str().unwrap());
    }
    for c in cases_of("masked_scatter__error") {
        let (mut s, m, src) = (f64s(&c["self"]), bools(&c["mask"]), f64s(&c["source"]));
        let err = s.try_masked_scatter_(&m, &src).unwrap_err();
        assert_eq!(err.to_string(), c["error"].as_str().unwrap());
    }
}

#[test]
fn masked_fill_with_a_zero_dimensional_tensor_matches_pytorch() {
    for (n, c) in cases_of("masked_fill_tensor").iter().enumerate() {
        let (s, m, v) = (f64s(&c["self"]), bools(&c["mask"]), f64s(&c["value"]));
        let want = f64s(&c["out"]);
        same(&s.masked_fill_tensor(&m, &v), &want, &format!("case {n}"));
        let (sv, vv) = (Var::param(s.clone()), Var::param(v.clone()));
        let w = Var::constant(f64s(&c["w"]));
        let g = sv.masked_fill_tensor(&m, &vv).mul(&w).sum().backward();
        same(
            &g.wrt(&sv).unwrap(),
            &f64s(&c["grad_self"]),
            &format!("d self, case {n}"),
        );
        same(
            &g.wrt(&vv).unwrap(),
            &f64s(&c["grad_value"]),
            &format!("d value, case {n}"),
        );
        // In place, into a tensor of the result's shape.
        let mut big = want.map(|_| 0.5);
        big.masked_fill_tensor_(&m, &v);
        let expect = big.map(|_| 0.5).masked_fill_tensor(&m, &v);
        same(&big, &expect, &format!("in place, case {n}"));
    }
    for c in cases_of("masked_fill_tensor_error") {
        let (s, m, v) = (f64s(&c["self"]), bools(&c["mask"]), f64s(&c["value"]));
        let err = s.try_masked_fill_tensor(&m, &v).unwrap_err();
        assert_eq!(err.to_string(), c["error"].as_str().unwrap());
    }
}

#[test]
fn take_along_dim_flattened_and_with_a_run_time_dim_matches_pytorch() {
    for (n, c) in cases_of("take_along_dim_flat").iter().enumerate() {
        let (s, idx) = (f64s(&c["self"]), i64s(&c["index"]));
        let got = s.take_along_dim_flat(&idx).into_dyn();
        same(&got, &f64s(&c["out"]), &format!("flat, case {n}"));
        let sv = Var::param(s.clone());
        let w = Var::constant(f64s(&c["w"]).try_into_shape::<(shaped::Dyn,)>().unwrap());
        let g = sv.take_along_dim_flat(&idx).mul(&w).sum().backward();
        same(
            &g.wrt(&sv).unwrap(),
            &f64s(&c["grad_self"]),
            &format!("d flat, case {n}"),
        );
    }
    for (n, c) in cases_of("take_along_dim_at").iter().enumerate() {
        let dim = c["dim"].as_i64().unwrap() as isize;
        let (s, idx) = (f64s(&c["self"]), i64s(&c["index"]));
        same(
            &s.take_along_dim_at(dim, &idx),
            &f64s(&c["out"]),
            &format!("dim {dim}, case {n}"),
        );
        let sv = Var::param(s.clone());
        let w = Var::constant(f64s(&c["w"]));
        let g = sv.take_along_dim_at(dim, &idx).mul(&w).sum().backward();
        same(
            &g.wrt(&sv).unwrap(),
            &f64s(&c["grad_self"]),
            &format!("d dim {dim}, case {n}"),
        );
    }
    for c in cases_of("take_along_dim_flat_error") {
        let err = f64s(&c["self"])
            .try_take_along_dim_flat(&i64s(&c["index"]))
            .unwrap_err();
        assert_eq!(err.to_string(), c["error"].as_str().unwrap());
    }
    for c in cases_of("take_along_dim_at_error") {
        let dim = c["dim"].as_i64().unwrap() as isize;
        let err = f64s(&c["self"])
            .try_take_along_dim_at(dim, &i64s(&c["index"]))
            .unwrap_err();
        assert_eq!(err.to_string(), c["error"].as_str().unwrap());
    }
}

#[test]
fn scatter_with_a_scalar_out_of_place_matches_pytorch() {
    for (n, c) in cases_of("scatter_value").iter().enumerate() {
        let dim = c["dim"].as_i64().unwrap() as isize;
        let (s, idx) = (f64s(&c["self"]), i64s(&c["index"]));
        let value = c["value"].as_f64().unwrap();
        let before = s.to_vec();
        let got = s.scatter_value(dim, &idx, value);
        same(&got, &f64s(&c["out"]), &format!("case {n}"));
        assert_eq!(s.to_vec(), before, "out of place leaves self alone");
    }
}

#[test]
fn masked_scatter_into_an_expanded_tensor_is_refused_even_with_no_true() {
    // torch.zeros(1, 3).expand(2, 3).masked_scatter_(mask, torch.ones(6)),
    // with an all-false and an all-true mask: PyTorch 2.x's message both times.
    let want = "unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.";
    let src = D::try_full(&[6], 1.).unwrap();
    for keep in [false, true] {
        let mut s = D::try_zeros(&[1, 3])
            .unwrap()
            .expand::<DynRank>(&[2, 3])
            .unwrap();
        let m = Tensor::<bool, DynRank>::try_full(&[2, 3], keep).unwrap();
        let err = s.try_masked_scatter_(&m, &src).unwrap_err();
        assert_eq!(err.to_string(), want, "mask all {keep}");
    }
}
