//! The torch.linalg functions against PyTorch: inputs and PyTorch's results
//! (values and gradients) are checked in at
//! `tests/data/linalg_torch_cases.json`, written by
//! `tests/data/gen_linalg_torch_data.py` (seeded).

mod common;

use common::json_tensor::{assert_close, num, tensor};
use serde_json::Value;
use shaped::autograd::{self, Var};
use shaped::linalg::{self, LstsqDriver, MatrixNorm, RankTol, Triangle};
use shaped::{DynRank, Tensor};

type D = Tensor<f64, DynRank>;

fn cases() -> Value {
    serde_json::from_str(include_str!("data/linalg_torch_cases.json")).unwrap()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

#[track_caller]
fn same(got: &D, want: &Value, tol: f64) {
    assert_close(got, want, tol, "PyTorch");
}

/// The gradient of `Σ seed · f(x)` by autograd.
fn seeded(y: &Var<f64, DynRank>, seed: &Value) -> autograd::Gradients<f64> {
    y.try_backward_with(&tensor(seed)).unwrap()
}

#[test]
fn solve_triangular_values_and_gradients() {
    let c = &cases()["solve_triangular"];
    let (a, b) = (tensor(&c["a"]), tensor(&c["b"]));
    for (key, upper, unit) in [
        ("upper", true, false),
        ("upper_unit", true, true),
        ("lower", false, false),
        ("lower_unit", false, true),
    ] {
        let x = linalg::solve_triangular(&a, &b, Triangle { upper, unit });
        same(&x, &c[key], 1e-12);
    }
    let up = Triangle {
        upper: true,
        unit: false,
    };
    let xr = linalg::solve_triangular_right(&a, &tensor(&c["b_right"]), up);
    same(&xr, &c["right_upper"], 1e-12);
    let (va, vb) = (Var::param(a), Var::param(b));
    let x = autograd::linalg::try_solve_triangular(&va, &vb, up).unwrap();
    let g = seeded(&x, &c["grad_seed"]);
    same(&g.wrt(&va).unwrap(), &c["grad_a"], 1e-10);
    same(&g.wrt(&vb).unwrap(), &c["grad_b"], 1e-10);
}

#[test]
fn lu_factor_and_lu_match_pytorch() {
    let all = cases();
    for name in ["lu_tall", "lu_wide", "lu_square"] {
        let c = &all[name];
        let a = tensor(&c["a"]);
        let (lu, piv) = linalg::lu_factor(&a);
        same(&lu, &c["lu"], 1e-12);
        let piv: Vec<i64> = piv.to_vec().into_iter().map(i64::from).collect();
        assert_eq!(piv, ints(&c["pivots"]), "{name}");
        let (p, l, u) = linalg::lu(&a);
        same(&p, &c["p"], 0.);
        same(&l, &c["l"], 1e-12);
        same(&u, &c["u"], 1e-12);
    }
    let c = &all["lu_factor_ex"];
    let (lu, piv, info) = linalg::lu_factor_ex(&tensor(&c["a"]));
    same(&lu, &c["lu"], 1e-12);
    let piv: Vec<i64> = piv.to_vec().into_iter().map(i64::from).collect();
    assert_eq!(piv, ints(&c["pivots"]));
    let info: Vec<i64> = info.to_vec().into_iter().map(i64::from).collect();
    assert_eq!(info, ints(&c["info"]));
}

#[test]
fn matrix_power_values_and_gradients() {
    let c = &cases()["matrix_power"];
    let a = tensor(&c["a"]);
    for k in [0, 1, 2, 5, -1, -3] {
        same(&linalg::matrix_power(&a, k), &c[format!("p{k}")], 1e-11);
    }
    for k in [3, -2] {
        let va = Var::param(a.clone());
        let y = autograd::linalg::try_matrix_power(&va, k).unwrap();
        let g = seeded(&y, &c[format!("grad_seed{k}")]);
        same(&g.wrt(&va).unwrap(), &c[format!("grad{k}")], 1e-10);
    }
}

#[test]
fn matrix_exp_values_and_gradient() {
    let c = &cases()["matrix_exp"];
    same(&linalg::matrix_exp(&tensor(&c["a"])), &c["out"], 1e-12);
    let va = Var::param(tensor(&c["grad_a"]));
    let y = autograd::linalg::try_matrix_exp(&va).unwrap();
    let g = seeded(&y, &c["grad_seed"]);
    same(&g.wrt(&va).unwrap(), &c["grad"], 1e-11);
}

#[test]
fn vector_norm_values_and_gradient() {
    let c = &cases()["vector_norm"];
    let x = tensor(&c["x"]);
    for (name, ord) in [
        ("two", 2.),
        ("one", 1.),
        ("inf", f64::INFINITY),
        ("ninf", f64::NEG_INFINITY),
        ("zero", 0.),
        ("half", 0.5),
        ("three", 3.),
        ("neg_one", -1.),
    ] {
        let want = num(&c[name]);
        let got = linalg::vector_norm(&x, ord).item();
        assert!((got - want).abs() <= 1e-12 * (1. + want.abs()), "{name}");
        same(
            &linalg::vector_norm_dims(&x, ord, &[0, -1], false),
            &c[format!("{name}_dims")],
            1e-12,
        );
        same(
            &linalg::vector_norm_dims(&x, ord, &[1], true),
            &c[format!("{name}_keep")],
            1e-12,
        );
    }
    let vx = Var::param(x);
    let n = autograd::linalg::try_vector_norm_dims(&vx, 3., &[0, -1], false).unwrap();
    let g = seeded(&n, &c["grad_seed"]);
    same(&g.wrt(&vx).unwrap(), &c["grad"], 1e-12);
}

#[test]
fn cross_values_and_gradients() {
    let c = &cases()["cross"];
    let (a, b) = (tensor(&c["a"]), tensor(&c["b"]));
    // a (2, 1, 3) and b (4, 3) differ in rank: PyTorch's linalg.cross wants
    // equal ranks, so b gets its leading 1 here.
    let b3: D = b.clone().try_reshape(&[1, 4, 3]).unwrap();
    same(&linalg::cross(&a, &b3), &c["out"], 1e-14);
    let (va, vb) = (Var::param(a), Var::param(b3));
    let y = autograd::linalg::try_cross(&va, &vb).unwrap();
    let g = seeded(&y, &c["grad_seed"]);
    same(&g.wrt(&va).unwrap(), &c["grad_a"], 1e-13);
    let gb: D = g.wrt(&vb).unwrap().try_reshape(&[4, 3]).unwrap();
    same(&gb, &c["grad_b"], 1e-13);
}

#[test]
fn multi_dot_matches_pytorch() {
    let c = &cases()["multi_dot"];
    let ms: Vec<D> = c["ms"].as_array().unwrap().iter().map(tensor).collect();
    let refs: Vec<&D> = ms.iter().collect();
    same(&linalg::multi_dot(&refs), &c["out"], 1e-12);
    same(&linalg::multi_dot(&refs[1..4]), &c["out_mats"], 1e-12);
}

#[test]
fn matrix_rank_and_cond_match_pytorch() {
    let c = &cases()["matrix_rank"];
    let a = tensor(&c["a"]);
    for (key, tol) in [
        ("default", RankTol::default()),
        (
            "atol",
            RankTol {
                atol: Some(1.0),
                rtol: None,
            },
        ),
        (
            "rtol",
            RankTol {
                atol: None,
                rtol: Some(0.3),
            },
        ),
    ] {
        assert_eq!(
            linalg::matrix_rank(&a, tol).to_vec(),
            ints(&c[key]),
            "{key}"
        );
    }
    let c = &cases()["cond"];
    let a = tensor(&c["a"]);
    for (key, p) in [
        ("none", None),
        ("fro", Some(MatrixNorm::Fro)),
        ("nuc", Some(MatrixNorm::Nuc)),
        ("one", Some(MatrixNorm::One)),
        ("neg_one", Some(MatrixNorm::NegOne)),
        ("inf", Some(MatrixNorm::Inf)),
        ("neg_inf", Some(MatrixNorm::NegInf)),
        ("two", Some(MatrixNorm::Two)),
        ("neg_two", Some(MatrixNorm::NegTwo)),
    ] {
        same(&linalg::cond(&a, p), &c[key], 1e-10);
    }
    let r = tensor(&c["a_rect"]);
    same(&linalg::cond(&r, None), &c["rect_none"], 1e-8);
    same(
        &linalg::cond(&r, Some(MatrixNorm::NegTwo)),
        &c["rect_neg_two"],
        1e-8,
    );
}

#[test]
fn householder_product_matches_pytorch() {
    let c = &cases()["householder_product"];
    let (a, tau) = (tensor(&c["a"]), tensor(&c["tau"]));
    same(&linalg::householder_product(&a, &tau), &c["out"], 1e-12);
    let tau2 = Tensor::<f64, DynRank>::try_from_vec(
        tau.to_vec()
            .chunks(3)
            .flat_map(|t| t[..2].to_vec())
            .collect(),
        &[2, 2],
    )
    .unwrap();
    same(&linalg::householder_product(&a, &tau2), &c["out_k2"], 1e-12);
}

#[test]
fn eigvals_and_eig_match_pytorch_as_sets() {
    let c = &cases()["eigvals"];
    let a = tensor(&c["a"]);
    let (wre, wim) = (tensor(&c["re"]).to_vec(), tensor(&c["im"]).to_vec());
    let got = linalg::eigvals(&a).to_pairs();
    let (vals, vecs) = linalg::eig(&a);
    let n = 4;
    for b in 0..3 {
        let mut left: Vec<(f64, f64)> = got[b * n..(b + 1) * n].to_vec();
        for k in 0..n {
            let (r, i) = (wre[b * n + k], wim[b * n + k]);
            let (j, d) = left
                .iter()
                .enumerate()
                .map(|(j, z)| (j, (z.0 - r).hypot(z.1 - i)))
                .min_by(|x, y| x.1.total_cmp(&y.1))
                .unwrap();
            assert!(d < 1e-10, "batch {b}: ({r}, {i}) not found in {left:?}");
            left.remove(j);
        }
    }
    // A v = λ v with unit-norm v, for every pair of eig's output.
    let (lr, li) = (vals.re.to_vec(), vals.im.to_vec());
    let (vr, vi) = (vecs.re.to_vec(), vecs.im.to_vec());
    let ad = a.to_vec();
    for b in 0..3 {
        for j in 0..n {
            let (l_re, l_im) = (lr[b * n + j], li[b * n + j]);
            let v = |i: usize| (vr[b * n * n + i * n + j], vi[b * n * n + i * n + j]);
            let norm: f64 = (0..n).map(|i| v(i).0.powi(2) + v(i).1.powi(2)).sum();
            assert!((norm - 1.).abs() < 1e-12);
            for i in 0..n {
                let (mut s_re, mut s_im) = (0., 0.);
                for k in 0..n {
                    s_re += ad[b * n * n + i * n + k] * v(k).0;
                    s_im += ad[b * n * n + i * n + k] * v(k).1;
                }
                let (w_re, w_im) = (l_re * v(i).0 - l_im * v(i).1, l_re * v(i).1 + l_im * v(i).0);
                assert!((s_re - w_re).abs() < 1e-10 && (s_im - w_im).abs() < 1e-10);
            }
        }
    }
}

#[test]
fn lstsq_parts_match_pytorch() {
    let c = &cases()["lstsq_parts"];
    let (a, b) = (tensor(&c["a"]), tensor(&c["b"]));
    for (key, driver) in [
        ("gels", LstsqDriver::Gels),
        ("gelsy", LstsqDriver::Gelsy),
        ("gelsd", LstsqDriver::Gelsd),
        ("gelss", LstsqDriver::Gelss),
    ] {
        let r = linalg::try_lstsq_with(&a, &b, None, driver).unwrap();
        let w = &c[key];
        same(&r.solution, &w["solution"], 1e-10);
        same(&r.residuals, &w["residuals"], 1e-10);
        same(&r.singular_values, &w["singular_values"], 1e-12);
        assert_eq!(r.rank.to_vec(), ints(&w["rank"]), "{key}");
    }
    let r = linalg::try_lstsq_with(&a, &tensor(&c["b_vec"]), None, LstsqDriver::Gelsd).unwrap();
    same(&r.solution, &c["vec_gelsd"]["solution"], 1e-10);
    same(&r.residuals, &c["vec_gelsd"]["residuals"], 1e-10);
}

#[test]
fn ex_forms_match_pytorch() {
    let c = &cases()["ex"];
    let (inv, info) = linalg::inv_ex(&tensor(&c["m"]));
    same(&inv, &c["inv"], 1e-12);
    let info: Vec<i64> = info.to_vec().into_iter().map(i64::from).collect();
    assert_eq!(info, ints(&c["inv_info"]));
    let (l, info) = linalg::cholesky_ex(&tensor(&c["spd"]));
    same(&l, &c["cholesky"], 1e-12);
    let info: Vec<i64> = info.to_vec().into_iter().map(i64::from).collect();
    assert_eq!(info, ints(&c["cholesky_info"]));
}

#[test]
fn det_gradient_at_singular_matrices_matches_pytorch() {
    let c = &cases()["det_grad_singular"];
    let va = Var::param(tensor(&c["a"]));
    let d = autograd::linalg::try_det(&va).unwrap();
    let g = d.try_sum_dims(&[0], false).unwrap().try_backward().unwrap();
    same(&g.wrt(&va).unwrap(), &c["grad"], 1e-12);
}
