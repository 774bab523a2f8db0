//! Gradients of `autograd::linalg`'s `vector_norm`, `norm`, `matrix_norm`,
//! `cond`, `multi_dot`, `lstsq`, `householder_product`, `lu` and `eig` /
//! `eigvals` against PyTorch's: inputs, seeds and PyTorch's gradients are
//! checked in at `tests/data/linalg_grad_torch_cases.json`, written by
//! `tests/data/gen_linalg_grad_torch_data.py` (seeded). Each gradient is
//! that of `Σ seed · f(x)`.

mod common;

use common::json_tensor::{assert_close, tensor};
use serde_json::Value;
use shaped::autograd::{Gradients, Var, linalg};
use shaped::linalg::{MatrixNorm, NormOrd};
use shaped::{DynRank, Tensor};

type V = Var<f64, DynRank>;

fn cases() -> Value {
    serde_json::from_str(include_str!("data/linalg_grad_torch_cases.json")).unwrap()
}

#[track_caller]
fn same(got: &Tensor<f64, DynRank>, want: &Value, tol: f64) {
    assert_close(got, want, tol, "PyTorch");
}

fn param(v: &Value) -> V {
    Var::param(tensor(v))
}

/// The gradients of `Σ seed · y`.
fn seeded(y: &V, seed: &Value) -> Gradients<f64> {
    y.try_backward_with(&tensor(seed)).unwrap()
}

/// A 0-d result as a `DynRank` one.
fn dynamic(y: Var<f64, ()>) -> V {
    y.try_reshape::<DynRank>(&[]).unwrap()
}

const ORDS: [(&str, MatrixNorm); 8] = [
    ("fro", MatrixNorm::Fro),
    ("nuc", MatrixNorm::Nuc),
    ("1", MatrixNorm::One),
    ("-1", MatrixNorm::NegOne),
    ("2", MatrixNorm::Two),
    ("-2", MatrixNorm::NegTwo),
    ("inf", MatrixNorm::Inf),
    ("-inf", MatrixNorm::NegInf),
];

fn norm_ord(m: MatrixNorm) -> NormOrd {
    match m {
        MatrixNorm::Fro => NormOrd::Fro,
        MatrixNorm::Nuc => NormOrd::Nuc,
        MatrixNorm::One => NormOrd::Num(1.),
        MatrixNorm::NegOne => NormOrd::Num(-1.),
        MatrixNorm::Two => NormOrd::Num(2.),
        MatrixNorm::NegTwo => NormOrd::Num(-2.),
        MatrixNorm::Inf => NormOrd::Num(f64::INFINITY),
        MatrixNorm::NegInf => NormOrd::Num(f64::NEG_INFINITY),
    }
}

#[test]
fn vector_norm_over_all_elements() {
    let c = &cases()["vector_norm"];
    for (key, ord) in [
        ("2", 2.),
        ("1", 1.),
        ("3", 3.),
        ("0.5", 0.5),
        ("inf", f64::INFINITY),
        ("-inf", f64::NEG_INFINITY),
    ] {
        let x = param(&c["x"]);
        let y = dynamic(linalg::vector_norm(&x, ord));
        let g = seeded(&y, &c[key]["seed"]);
        same(&g.wrt(&x).unwrap(), &c[key]["grad"], 1e-12);
    }
}

#[test]
fn norm_vector_matrix_and_default() {
    let c = &cases()["norm"];
    let v = param(&c["v"]);
    let g = seeded(
        &dynamic(linalg::norm(&v, Some(NormOrd::Num(3.)))),
        &c["v3"]["seed"],
    );
    same(&g.wrt(&v).unwrap(), &c["v3"]["grad"], 1e-12);
    let x = param(&c["x"]);
    let g = seeded(&dynamic(linalg::norm(&x, None)), &c["x_none"]["seed"]);
    same(&g.wrt(&x).unwrap(), &c["x_none"]["grad"], 1e-12);
    for (key, ord) in ORDS {
        let m = param(&c["m"]);
        let k = format!("m_{key}");
        let g = seeded(
            &dynamic(linalg::norm(&m, Some(norm_ord(ord)))),
            &c[&k]["seed"],
        );
        same(&g.wrt(&m).unwrap(), &c[&k]["grad"], 1e-10);
    }
}

#[test]
fn matrix_norm_batched() {
    let c = &cases()["matrix_norm"];
    for (key, ord) in ORDS {
        let a = param(&c["a"]);
        let g = seeded(&linalg::matrix_norm(&a, ord), &c[key]["seed"]);
        same(&g.wrt(&a).unwrap(), &c[key]["grad"], 1e-10);
    }
}

#[test]
fn cond_every_order() {
    let c = &cases()["cond"];
    let mut ords: Vec<(&str, Option<MatrixNorm>)> = vec![("none", None)];
    ords.extend(ORDS.iter().map(|&(k, o)| (k, Some(o))));
    for (key, ord) in ords {
        let a = param(&c["a"]);
        let g = seeded(&linalg::cond(&a, ord), &c[key]["seed"]);
        same(&g.wrt(&a).unwrap(), &c[key]["grad"], 1e-9);
    }
    let r = param(&c["rect"]);
    let g = seeded(&linalg::cond(&r, None), &c["rect_none"]["seed"]);
    same(&g.wrt(&r).unwrap(), &c["rect_none"]["grad"], 1e-9);
}

#[test]
fn multi_dot_with_vectors_and_matrices() {
    let c = &cases()["multi_dot"];
    for key in ["vec", "mat"] {
        let vars: Vec<V> = c[key]["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(param)
            .collect();
        let refs: Vec<&V> = vars.iter().collect();
        let g = seeded(&linalg::multi_dot(&refs), &c[key]["seed"]);
        for (v, want) in vars.iter().zip(c[key]["grads"].as_array().unwrap()) {
            same(&g.wrt(v).unwrap(), want, 1e-12);
        }
    }
}

#[test]
fn lstsq_solution_gradients() {
    let c = &cases()["lstsq"];
    for key in ["tall", "wide", "vector", "broadcast"] {
        let (a, b) = (param(&c[key]["a"]), param(&c[key]["b"]));
        let g = seeded(&linalg::lstsq(&a, &b), &c[key]["seed"]);
        same(&g.wrt(&a).unwrap(), &c[key]["grad_a"], 1e-9);
        same(&g.wrt(&b).unwrap(), &c[key]["grad_b"], 1e-9);
    }
}

#[test]
fn householder_product_gradients() {
    let c = &cases()["householder_product"];
    let (a, tau) = (param(&c["a"]), param(&c["tau"]));
    let g = seeded(&linalg::householder_product(&a, &tau), &c["seed"]);
    same(&g.wrt(&a).unwrap(), &c["grad_a"], 1e-12);
    same(&g.wrt(&tau).unwrap(), &c["grad_tau"], 1e-12);
}

#[test]
fn lu_gradients_square_wide_tall() {
    let c = &cases()["lu"];
    for key in ["square", "wide", "tall"] {
        let a = param(&c[key]["a"]);
        let (_, l, u) = linalg::lu(&a);
        let wl = Var::constant(tensor(&c[key]["seed_l"]));
        let wu = Var::constant(tensor(&c[key]["seed_u"]));
        let loss = l.mul(&wl).sum().add(&u.mul(&wu).sum());
        let g = loss.backward();
        same(&g.wrt(&a).unwrap(), &c[key]["grad"], 1e-10);
    }
}

/// The generator's loss: `Σ Re(λ)³ + Σ Re(λ) Im(λ)²`, plus for `eig`
/// `Σ_ij w_i |V_ij|²` (neither depends on the order of the eigenpairs nor
/// on the phases of the eigenvectors).
#[test]
fn eig_and_eigvals_gradients() {
    let c = &cases()["eig"];
    assert!(
        c["has_complex"].as_bool().unwrap(),
        "a complex pair is covered"
    );
    let values_loss = |re: &V, im: &V| re.square().mul(re).sum().add(&re.mul(&im.square()).sum());
    let a = param(&c["a"]);
    let w = tensor(&c["w"]);
    let n = w.dims()[0];
    let w = Var::constant(w.try_reshape::<DynRank>(&[n as isize, 1]).unwrap());
    let (vals, vecs) = linalg::eig(&a);
    let mag = vecs.re.square().add(&vecs.im.square());
    let loss = values_loss(&vals.re, &vals.im).add(&mag.mul(&w).sum());
    same(&loss.backward().wrt(&a).unwrap(), &c["grad_eig"], 1e-9);
    let a = param(&c["a"]);
    let z = linalg::eigvals(&a);
    let g = values_loss(&z.re, &z.im).backward();
    same(&g.wrt(&a).unwrap(), &c["grad_eigvals"], 1e-10);
}
