//! The backward passes autograd runs for `det`, `cholesky`,
//! `solve_triangular`, `lu` and `householder_product` (written over the
//! device in `linalg/vjp.rs`) against the per-matrix faer formulas of the
//! tests' oracle `common/linalg_oracle.rs` (itself checked against finite
//! differences in `linalg_grad.rs`), on random inputs: batched, transposed and
//! expanded (stride-0) views, zero-size batches and empty matrices, and for
//! `det` batches that mix singular and invertible matrices.

use shaped::autograd::{self, Var};
use shaped::linalg::{self, Triangle};
use shaped::{DynRank, Tensor};

mod common;
use common::grad::{D, Gen, contiguous};
#[path = "common/linalg_oracle.rs"]
mod oracle;
use common::{Rng, assert_close};

/// `dims` with `tail` appended.
fn with(dims: &[usize], tail: &[usize]) -> Vec<usize> {
    dims.iter().chain(tail).copied().collect()
}

/// `t` with its last two dimensions swapped: a transposed view (no copy).
fn t_view(t: &D) -> D {
    let r = t.dims().len() as isize;
    let mut perm: Vec<isize> = (0..r).collect();
    perm.swap(r as usize - 2, r as usize - 1);
    t.permute::<DynRank>(&perm).unwrap()
}

/// Matrices of sizes `dims`, random in `[-1, 1)` plus `diag` on the main
/// diagonal; a third of them returned as the transposed view of their
/// transpose, some (through `Gen::tensor`) expanded.
fn mats(rng: &mut Rng, dims: &[usize], diag: f64) -> D {
    let r = dims.len();
    let (m, n) = (dims[r - 2], dims[r - 1]);
    let plus = D::try_from_vec(
        (0..m * n)
            .map(|e| if e / n == e % n { diag } else { 0. })
            .collect(),
        &[m, n],
    )
    .unwrap();
    if rng.below(3) == 0 {
        let mut td = dims.to_vec();
        td.swap(r - 2, r - 1);
        return t_view(&rng.tensor(&td, -1., 1.).add(&t_view(&plus)));
    }
    rng.tensor(dims, -1., 1.).add(&plus)
}

/// The gradients of `Σ w ⊙ out` with respect to `params`.
fn grads(params: &[&Var<f64, DynRank>], out: &Var<f64, DynRank>, w: &D) -> Vec<Vec<f64>> {
    let g = out.mul(&Var::constant(w.share())).sum().backward();
    params.iter().map(|p| g.wrt(p).unwrap().to_vec()).collect()
}

/// Batch sizes for a case: none, one or two dimensions, sometimes one of
/// them 0.
fn batch(rng: &mut Rng, case: usize) -> Vec<usize> {
    match case % 4 {
        0 => vec![],
        1 => vec![1 + rng.below(3)],
        2 => vec![2, 1 + rng.below(2)],
        _ => vec![0, 2],
    }
}

#[test]
fn det_matches_the_per_matrix_formula() {
    let mut rng = Rng(0x0de7_0de7_0de7_0de7);
    for case in 0..16 {
        let (b, n) = (batch(&mut rng, case), rng.below(5));
        let mut a = mats(&mut rng, &with(&b, &[n, n]), 0.5).contiguous();
        // Make some matrices singular: a row copied onto the next.
        if n >= 2 && case % 2 == 1 {
            let mut v = a.to_vec();
            for (k, chunk) in v.chunks_mut(n * n).enumerate() {
                if k % 2 == 0 {
                    let row: Vec<f64> = chunk[..n].to_vec();
                    chunk[n..2 * n].copy_from_slice(&row);
                }
            }
            a = D::try_from_vec(v, a.dims()).unwrap();
        }
        let a = if case % 3 == 0 {
            t_view(&t_view(&a.contiguous()))
        } else {
            a
        };
        let w = contiguous(&mut rng, &b, -1., 1.);
        let p = Var::param(a.share());
        let got = grads(&[&p], &autograd::linalg::det(&p), &w);
        let want = oracle::det_backward(&w, &a, &linalg::det(&a)).unwrap();
        assert_close(
            &got[0],
            &want.to_vec(),
            1e-9,
            &format!("det {:?}", a.dims()),
        );
    }
}

#[test]
fn cholesky_matches_the_per_matrix_formula() {
    let mut rng = Rng(0xc401_e5c4_c401_e5c4);
    for case in 0..12 {
        let (b, n) = (batch(&mut rng, case), rng.below(5));
        let x = contiguous(&mut rng, &with(&b, &[n, n]), -1., 1.);
        // X Xᵀ + n I: positive definite.
        let spd = x.matmul(&t_view(&x)).add(
            &D::try_from_vec(
                (0..n * n)
                    .map(|e| if e / n == e % n { n as f64 } else { 0. })
                    .collect(),
                &[n, n],
            )
            .unwrap(),
        );
        let a = if case % 2 == 0 { t_view(&spd) } else { spd };
        let w = contiguous(&mut rng, &with(&b, &[n, n]), -1., 1.);
        let p = Var::param(a.share());
        let got = grads(&[&p], &autograd::linalg::cholesky(&p), &w);
        let want = oracle::cholesky_backward(&w, &linalg::cholesky(&a)).unwrap();
        assert_close(
            &got[0],
            &want.to_vec(),
            1e-9,
            &format!("cholesky {:?}", a.dims()),
        );
    }
}

#[test]
fn solve_triangular_matches_the_per_matrix_formula() {
    let mut rng = Rng(0x7a1a_7a1a_7a1a_7a1a);
    for case in 0..16 {
        let (b, n, k) = (batch(&mut rng, case), rng.below(4), rng.below(3));
        let tri = Triangle {
            upper: case % 2 == 0,
            unit: case % 4 >= 2,
        };
        let a = mats(&mut rng, &with(&b, &[n, n]), 3.);
        let bm = mats(&mut rng, &with(&b, &[n, k]), 0.);
        let w = contiguous(&mut rng, &with(&b, &[n, k]), -1., 1.);
        let (pa, pb) = (Var::param(a.share()), Var::param(bm.share()));
        let got = grads(
            &[&pa, &pb],
            &autograd::linalg::solve_triangular(&pa, &pb, tri),
            &w,
        );
        let x = linalg::solve_triangular(&a, &bm, tri);
        let (ga, gb) = oracle::solve_triangular_backward(&w, &a, &x, tri).unwrap();
        let what = format!("solve_triangular {tri:?} {:?} {:?}", a.dims(), bm.dims());
        assert_close(&got[0], &ga.to_vec(), 1e-9, &what);
        assert_close(&got[1], &gb.to_vec(), 1e-9, &what);
    }
}

#[test]
fn lu_matches_the_per_matrix_formula() {
    let mut rng = Rng(0x1u64 << 40 | 0x0bad_cafe);
    for case in 0..18 {
        let b = batch(&mut rng, case);
        let (m, n) = match case % 3 {
            0 => (3, 3),
            1 => (2, 4),
            _ => (4, 2),
        };
        let a = mats(&mut rng, &with(&b, &[m, n]), 2.);
        let p = Var::param(a.share());
        let (pm, l, u) = autograd::linalg::lu(&p);
        let (wl, wu) = (
            contiguous(&mut rng, l.dims(), -1., 1.),
            contiguous(&mut rng, u.dims(), -1., 1.),
        );
        let loss = l
            .mul(&Var::constant(wl.share()))
            .sum()
            .add(&u.mul(&Var::constant(wu.share())).sum());
        let got = loss.backward().wrt(&p).unwrap().to_vec();
        let want = oracle::lu_backward(
            &wl,
            &wu,
            &pm.into_dyn(),
            &l.value().share().into_dyn(),
            &u.value().share().into_dyn(),
        )
        .unwrap();
        assert_close(&got, &want.to_vec(), 1e-9, &format!("lu {:?}", a.dims()));
    }
}

#[test]
fn householder_product_matches_the_per_matrix_formula() {
    let mut rng = Rng(0x4005_e401_4005_e401);
    for case in 0..12 {
        let b = batch(&mut rng, case);
        let (m, n, k) = [(3, 3, 3), (4, 2, 2), (4, 3, 1), (2, 2, 0)][case % 4];
        let a = mats(&mut rng, &with(&b, &[m, n]), 0.);
        let tau = contiguous(&mut rng, &with(&b, &[k]), 0., 2.);
        let w = contiguous(&mut rng, &with(&b, &[m, n]), -1., 1.);
        let (pa, pt) = (Var::param(a.share()), Var::param(tau.share()));
        let got = grads(
            &[&pa, &pt],
            &autograd::linalg::householder_product(&pa, &pt),
            &w,
        );
        let (ga, gt) = oracle::householder_product_backward(&w, &a, &tau).unwrap();
        let what = format!("householder_product {:?} {:?}", a.dims(), tau.dims());
        assert_close(&got[0], &ga.to_vec(), 1e-9, &what);
        assert_close(&got[1], &gt.to_vec(), 1e-9, &what);
    }
}

/// The gradients keep each parameter's own sizes and type when the input
/// is a static tensor.
#[test]
fn static_shapes_keep_their_types() {
    use shaped::Shape;
    let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![4., 1., 1., 3.]));
    let g = autograd::linalg::cholesky(&a)
        .sum()
        .backward()
        .wrt(&a)
        .unwrap();
    let _: &Tensor<f64, Shape![2, 2]> = &g;
    let d = autograd::linalg::det(&a);
    assert_eq!(d.value().to_vec(), vec![11.]);
}
