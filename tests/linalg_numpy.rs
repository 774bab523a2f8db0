//! Linear algebra against NumPy: inputs and NumPy's results are checked in
//! at `tests/data/linalg_cases.json`, written by
//! `tests/data/gen_linalg_data.py` (seeded).

mod common;

use common::json_tensor::{assert_close, tensor};
use serde_json::Value;
use shaped::linalg::{self, MatrixNorm};
use shaped::{DynRank, Tensor};

fn cases() -> Value {
    let text = include_str!("data/linalg_cases.json");
    serde_json::from_str(text).unwrap()
}

#[track_caller]
fn same(got: &Tensor<f64, DynRank>, want: &Value, tol: f64) {
    assert_close(got, want, tol, "NumPy");
}

#[test]
fn inv_det_slogdet() {
    let c = cases();
    same(
        &linalg::inv(&tensor(&c["inv"]["a"])),
        &c["inv"]["out"],
        1e-12,
    );
    same(
        &linalg::det(&tensor(&c["det"]["a"])),
        &c["det"]["out"],
        1e-12,
    );
    let (s, l) = linalg::slogdet(&tensor(&c["slogdet"]["a"]));
    same(&s, &c["slogdet"]["sign"], 0.0);
    same(&l, &c["slogdet"]["logabs"], 1e-12);
}

#[test]
fn solve_broadcast() {
    let c = &cases()["solve"];
    same(
        &linalg::solve(&tensor(&c["a"]), &tensor(&c["b"])),
        &c["out"],
        1e-12,
    );
}

#[test]
fn lstsq_full_rank_and_rank_deficient() {
    let all = cases();
    for name in ["lstsq", "lstsq_rank_deficient"] {
        let c = &all[name];
        same(
            &linalg::lstsq(&tensor(&c["a"]), &tensor(&c["b"])).solution,
            &c["out"],
            1e-10,
        );
    }
}

#[test]
fn pinv() {
    let c = &cases()["pinv"];
    same(&linalg::pinv(&tensor(&c["a"])), &c["out"], 1e-12);
}

#[test]
fn matrix_norms() {
    let c = &cases()["matrix_norm"];
    let a = tensor(&c["a"]);
    for (name, ord) in [
        ("fro", MatrixNorm::Fro),
        ("nuc", MatrixNorm::Nuc),
        ("one", MatrixNorm::One),
        ("neg_one", MatrixNorm::NegOne),
        ("inf", MatrixNorm::Inf),
        ("neg_inf", MatrixNorm::NegInf),
        ("two", MatrixNorm::Two),
        ("neg_two", MatrixNorm::NegTwo),
    ] {
        same(&linalg::matrix_norm(&a, ord), &c[name], 1e-12);
    }
}

#[test]
fn singular_values_eigenvalues_cholesky() {
    let c = cases();
    same(
        &linalg::svdvals(&tensor(&c["svdvals"]["a"])),
        &c["svdvals"]["out"],
        1e-12,
    );
    same(
        &linalg::eigvalsh(&tensor(&c["eigvalsh"]["a"])),
        &c["eigvalsh"]["out"],
        1e-12,
    );
    same(
        &linalg::cholesky(&tensor(&c["cholesky"]["a"])),
        &c["cholesky"]["out"],
        1e-12,
    );
}
