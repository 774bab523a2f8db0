//! gather, scatter, scatter_add, take_along_dim, index_select, index_add_
//! and index_copy_ against results and error messages computed by PyTorch
//! (`tests/data/index_cases.json`, written by `tests/data/gen_index_data.py`).
//!
//! Each case runs three times: with contiguous inputs, with every input a
//! permuted view (reversed axes), and with every input a stepped view with
//! an offset; in-place results are read back through the written view.

use serde_json::Value;
use shaped::{DynRank, Shape, ShapeError, Tensor};

/// How an input is laid out in memory.
#[derive(Clone, Copy, Debug)]
enum Layout {
    Contiguous,
    /// Axes reversed in memory, then permuted back (rank >= 2).
    Permuted,
    /// Every other row of a buffer twice as long, starting at row 1.
    Stepped,
}

const LAYOUTS: [Layout; 3] = [Layout::Contiguous, Layout::Permuted, Layout::Stepped];

fn shape_of(v: &Value) -> Vec<usize> {
    v["shape"]
        .as_array()
        .expect("shape")
        .iter()
        .map(|d| d.as_u64().expect("size") as usize)
        .collect()
}

fn data_f64(v: &Value) -> Vec<f64> {
    v["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|x| x.as_f64().expect("number"))
        .collect()
}

fn data_i64(v: &Value) -> Vec<i64> {
    v["data"]
        .as_array()
        .expect("data")
        .iter()
        .map(|x| x.as_i64().expect("integer"))
        .collect()
}

/// Row-major strides of `dims`.
fn strides(dims: &[usize]) -> Vec<usize> {
    let mut s = vec![1; dims.len()];
    for i in (0..dims.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * dims[i + 1];
    }
    s
}

/// A tensor with logical elements `data` (row-major, sizes `dims`) laid out
/// as `layout` says; `junk` fills the positions the view does not show.
fn build<T: shaped::element::Element>(
    data: &[T],
    dims: &[usize],
    layout: Layout,
    junk: T,
) -> Tensor<T, DynRank> {
    match layout {
        Layout::Permuted if dims.len() >= 2 => {
            let rev: Vec<usize> = dims.iter().rev().copied().collect();
            let st = strides(dims);
            let n = data.len();
            // Element at reversed multi-index j is data[multi-index reversed j].
            let rst = strides(&rev);
            let mut buf = vec![junk; n];
            for (lin, slot) in buf.iter_mut().enumerate() {
                let mut off = 0;
                for (k, &s) in rst.iter().enumerate() {
                    let c = (lin / s) % rev[k];
                    off += c * st[dims.len() - 1 - k];
                }
                *slot = data[off];
            }
            let t = Tensor::<T, DynRank>::try_from_vec(buf, &rev).unwrap();
            let perm: Vec<isize> = (0..dims.len() as isize).rev().collect();
            let v = t.permute::<DynRank>(&perm).unwrap();
            assert!(
                !v.is_contiguous()
                    || dims.contains(&0)
                    || dims.iter().filter(|&&d| d > 1).count() < 2
            );
            v
        }
        Layout::Stepped if !dims.is_empty() => {
            let row: usize = dims[1..].iter().product();
            let mut big = dims.to_vec();
            big[0] = 2 * dims[0] + 1;
            let mut buf = vec![junk; big.iter().product()];
            for r in 0..dims[0] {
                buf[(2 * r + 1) * row..(2 * r + 2) * row]
                    .copy_from_slice(&data[r * row..(r + 1) * row]);
            }
            let t = Tensor::<T, DynRank>::try_from_vec(buf, &big).unwrap();
            t.try_slice_step::<0>(1..(2 * dims[0] + 1), 2).unwrap()
        }
        _ => Tensor::<T, DynRank>::try_from_vec(data.to_vec(), dims).unwrap(),
    }
}

/// The index tensor of a case: expanded from `index_base` when given.
fn index_of(case: &Value, layout: Layout) -> Tensor<i64, DynRank> {
    let dims = shape_of(&case["index"]);
    match case.get("index_base") {
        Some(base) => build(&data_i64(base), &shape_of(base), layout, -99)
            .try_broadcast_to::<DynRank>(&dims)
            .unwrap(),
        None => build(&data_i64(&case["index"]), &dims, layout, -99),
    }
}

/// Runs one case: the result's sizes and elements, or the error.
fn run(case: &Value, layout: Layout) -> Result<(Vec<usize>, Vec<f64>), ShapeError> {
    let op = case["op"].as_str().unwrap();
    let dim = case["dim"].as_i64().unwrap() as isize;
    let mut this = build(
        &data_f64(&case["self"]),
        &shape_of(&case["self"]),
        layout,
        f64::NAN,
    );
    let index = index_of(case, layout);
    let src = case
        .get("src")
        .map(|s| build(&data_f64(s), &shape_of(s), layout, f64::NAN));
    let vector = || index.try_into_shape::<Shape![_]>().unwrap();
    let done = |t: &Tensor<f64, DynRank>| Ok((t.dims().to_vec(), t.to_vec()));
    match op {
        "gather" => done(&this.try_gather(dim, &index)?),
        "scatter" => {
            this.try_scatter_(dim, &index, src.as_ref().unwrap())?;
            done(&this)
        }
        "scatter_add" => {
            this.try_scatter_add_(dim, &index, src.as_ref().unwrap())?;
            done(&this)
        }
        "take_along_dim" => done(&match dim {
            0 => this.try_take_along_dim::<0, _>(&index)?,
            1 => this.try_take_along_dim::<1, _>(&index)?,
            2 => this.try_take_along_dim::<2, _>(&index)?,
            3 => this.try_take_along_dim::<3, _>(&index)?,
            _ => unreachable!("generated dims are 0..4"),
        }),
        "index_select" => {
            let idx = vector();
            done(&match dim {
                0 => this.try_index_select::<0, _>(&idx)?,
                1 => this.try_index_select::<1, _>(&idx)?,
                2 => this.try_index_select::<2, _>(&idx)?,
                3 => this.try_index_select::<3, _>(&idx)?,
                _ => unreachable!("generated dims are 0..4"),
            })
        }
        "index_add" => {
            this.try_index_add_(dim, &vector(), src.as_ref().unwrap())?;
            done(&this)
        }
        "index_copy" => {
            this.try_index_copy_(dim, &vector(), src.as_ref().unwrap())?;
            done(&this)
        }
        other => panic!("unknown op {other}"),
    }
}

/// PyTorch messages for an index out of range that name neither the index
/// nor the size (or that are PyTorch bugs on empty dimensions); `shaped`
/// gives `index 0 is out of bounds for dimension 1 with size 0` instead.
const UNINFORMATIVE: &[&str] = &[
    "index out of range in self",
    "ZeroDivisionError",
    "index_select(): self indexing axis dim should be positive",
];

/// PyTorch's `index_add_` and `index_copy_` return early when `self` is
/// empty, without checking the index; `shaped` still reports an index into
/// an empty dimension (`index 0 is out of bounds for dimension 1 with size
/// 0`), as PyTorch's `gather` and `scatter_add_` do.
fn skipped_check(case: &Value, want: &Value, e: &ShapeError) -> bool {
    let op = case["op"].as_str().unwrap();
    (op == "index_add" || op == "index_copy")
        && data_f64(want).is_empty()
        && e.to_string().contains("is out of bounds for dimension")
        && e.to_string().ends_with("with size 0")
}

#[test]
fn pytorch_cases() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/index_cases.json"
    ))
    .unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    let cases = json["cases"].as_array().unwrap();
    assert!(
        cases.len() > 150,
        "the data file holds {} cases",
        cases.len()
    );
    let (mut ok, mut errors) = (0, 0);
    for (i, case) in cases.iter().enumerate() {
        for layout in LAYOUTS {
            let got = run(case, layout);
            let what = format!("case {i} ({layout:?}): {case}");
            match (case.get("expected"), got) {
                (Some(want), Ok((dims, data))) => {
                    assert_eq!(dims, shape_of(want), "{what}");
                    assert_eq!(data, data_f64(want), "{what}");
                    ok += 1;
                }
                (None, Err(e)) => {
                    let want = case["error"].as_str().unwrap();
                    let msg = e.to_string();
                    if UNINFORMATIVE.contains(&want) {
                        assert!(
                            msg.contains("is out of bounds for dimension")
                                && msg.contains("with size"),
                            "{what}: {msg}"
                        );
                    } else {
                        assert_eq!(msg, want, "{what}");
                    }
                    errors += 1;
                }
                (Some(want), Err(e)) if skipped_check(case, want, &e) => errors += 1,
                (Some(_), Err(e)) => panic!("{what}: unexpected error {e}"),
                (None, Ok(r)) => panic!("{what}: expected {}, got {r:?}", case["error"]),
            }
        }
    }
    assert!(
        ok > 400 && errors > 60,
        "{ok} results and {errors} errors compared"
    );
}
