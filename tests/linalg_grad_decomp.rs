//! Gradients of `autograd::linalg`'s `vector_norm` (all elements),
//! `svdvals`, `matrix_norm`, `norm`, `cond`, `multi_dot`, `lstsq`,
//! `householder_product`, `lu` and `eig` / `eigvals` checked by central
//! finite differences in `f64` on random batches (the helpers of
//! `tests/common/grad.rs`); PyTorch's values are checked in
//! `tests/linalg_torch.rs`.

use shaped::DynRank;
use shaped::autograd::linalg;
use shaped::linalg::{MatrixNorm, NormOrd};

mod common;

use common::Rng;
use common::grad::{D, Gen, V, check, contiguous};

fn with(batch: &[usize], tail: &[usize]) -> Vec<usize> {
    let mut d = batch.to_vec();
    d.extend_from_slice(tail);
    d
}

/// A 0-d result as a `DynRank` one.
fn scalar(v: shaped::autograd::Var<f64, ()>) -> V {
    v.try_reshape::<DynRank>(&[]).unwrap()
}

#[test]
fn vector_norm_and_norm_fd() {
    let mut rng = Rng(0x0bad_cafe_1234_5678);
    for _ in 0..6 {
        let dims = rng.dims(3);
        let x = contiguous(&mut rng, &dims, -2.0, 2.0);
        for ord in [2., 1., 3., f64::INFINITY, -1.5] {
            check("vector_norm", &mut rng, std::slice::from_ref(&x), &|v| {
                scalar(linalg::vector_norm(&v[0], ord))
            });
        }
        check("norm None", &mut rng, std::slice::from_ref(&x), &|v| {
            scalar(linalg::norm(&v[0], None))
        });
    }
    let v = contiguous(&mut rng, &[5], -2.0, 2.0);
    check("norm vector 3", &mut rng, &[v], &|v| {
        scalar(linalg::norm(&v[0], Some(NormOrd::Num(3.))))
    });
    let m = contiguous(&mut rng, &[3, 4], -2.0, 2.0);
    for ord in [
        NormOrd::Fro,
        NormOrd::Nuc,
        NormOrd::Num(1.),
        NormOrd::Num(-1.),
        NormOrd::Num(2.),
        NormOrd::Num(-2.),
        NormOrd::Num(f64::INFINITY),
        NormOrd::Num(f64::NEG_INFINITY),
    ] {
        check("norm matrix", &mut rng, std::slice::from_ref(&m), &|v| {
            scalar(linalg::norm(&v[0], Some(ord)))
        });
    }
}

#[test]
fn svdvals_matrix_norm_and_cond_fd() {
    let mut rng = Rng(0x5151_7a7a_0101_9898);
    for _ in 0..6 {
        let batch = rng.dims(2);
        let (m, n) = (1 + rng.below(4), 1 + rng.below(4));
        let a = contiguous(&mut rng, &with(&batch, &[m, n]), -1.0, 1.0);
        check("svdvals", &mut rng, std::slice::from_ref(&a), &|v| {
            linalg::svdvals(&v[0])
        });
        for ord in [
            MatrixNorm::Fro,
            MatrixNorm::Nuc,
            MatrixNorm::One,
            MatrixNorm::NegOne,
            MatrixNorm::Two,
            MatrixNorm::NegTwo,
            MatrixNorm::Inf,
            MatrixNorm::NegInf,
        ] {
            check("matrix_norm", &mut rng, std::slice::from_ref(&a), &|v| {
                linalg::matrix_norm(&v[0], ord)
            });
        }
        check("cond", &mut rng, std::slice::from_ref(&a), &|v| {
            linalg::cond(&v[0], None)
        });
        let sq = contiguous(&mut rng, &with(&batch, &[n, n]), -1.0, 1.0);
        for ord in [
            None,
            Some(MatrixNorm::NegTwo),
            Some(MatrixNorm::Fro),
            Some(MatrixNorm::Nuc),
            Some(MatrixNorm::One),
            Some(MatrixNorm::NegInf),
        ] {
            check("cond square", &mut rng, std::slice::from_ref(&sq), &|v| {
                linalg::cond(&v[0], ord)
            });
        }
    }
}

#[test]
fn multi_dot_fd() {
    let mut rng = Rng(0x7777_1111_2222_3333);
    for _ in 0..6 {
        let k = 2 + rng.below(3);
        let sizes: Vec<usize> = (0..=k).map(|_| 1 + rng.below(4)).collect();
        let mut inputs: Vec<D> = (0..k)
            .map(|i| contiguous(&mut rng, &[sizes[i], sizes[i + 1]], -1.0, 1.0))
            .collect();
        // Sometimes a 1-d first or last operand.
        if rng.below(2) == 0 {
            inputs[0] = contiguous(&mut rng, &[sizes[1]], -1.0, 1.0);
        }
        if rng.below(2) == 0 {
            inputs[k - 1] = contiguous(&mut rng, &[sizes[k - 1]], -1.0, 1.0);
        }
        check("multi_dot", &mut rng, &inputs, &|v| {
            let refs: Vec<&V> = v.iter().collect();
            linalg::multi_dot(&refs)
        });
    }
}

#[test]
fn lstsq_fd() {
    let mut rng = Rng(0x4242_4242_1717_1717);
    for _ in 0..8 {
        let out = rng.dims(2);
        let ab = rng.broadcastable(&out);
        // Same rank, as PyTorch wants: pad the shorter batch with 1s.
        let mut bb = rng.broadcastable(&out);
        let mut ab = ab;
        while ab.len() < out.len() {
            ab.insert(0, 1);
        }
        while bb.len() < out.len() {
            bb.insert(0, 1);
        }
        let (m, n, k) = (1 + rng.below(4), 1 + rng.below(4), 1 + rng.below(3));
        let a = contiguous(&mut rng, &with(&ab, &[m, n]), -1.0, 1.0);
        let b = contiguous(&mut rng, &with(&bb, &[m, k]), -1.0, 1.0);
        check("lstsq", &mut rng, &[a.share(), b], &|v| {
            linalg::lstsq(&v[0], &v[1])
        });
        // A vector right-hand side: A's sizes without the last.
        let bv = contiguous(&mut rng, &with(&ab, &[m]), -1.0, 1.0);
        check("lstsq vector", &mut rng, &[a, bv], &|v| {
            linalg::lstsq(&v[0], &v[1])
        });
    }
}

#[test]
fn householder_product_fd() {
    let mut rng = Rng(0x9999_8888_7777_6666);
    for _ in 0..8 {
        let batch = rng.dims(2);
        let m = 1 + rng.below(4);
        let n = 1 + rng.below(m);
        let k = rng.below(n + 1);
        let a = contiguous(&mut rng, &with(&batch, &[m, n]), -1.0, 1.0);
        let tau = contiguous(&mut rng, &with(&batch, &[k]), 0.0, 2.0);
        check("householder_product", &mut rng, &[a, tau], &|v| {
            linalg::householder_product(&v[0], &v[1])
        });
    }
}

#[test]
fn lu_fd() {
    let mut rng = Rng(0x1357_2468_1357_2468);
    for _ in 0..10 {
        let batch = rng.dims(2);
        let (m, n) = (1 + rng.below(4), 1 + rng.below(4));
        let a = contiguous(&mut rng, &with(&batch, &[m, n]), -1.0, 1.0);
        check("lu L", &mut rng, std::slice::from_ref(&a), &|v| {
            linalg::lu(&v[0]).1
        });
        check("lu U", &mut rng, std::slice::from_ref(&a), &|v| {
            linalg::lu(&v[0]).2
        });
        check("lu L and U", &mut rng, &[a], &|v| {
            let (_, l, u) = linalg::lu(&v[0]);
            l.try_matmul(&u).unwrap()
        });
    }
}

#[test]
fn eig_and_eigvals_fd() {
    // Losses that do not depend on the eigenvectors' phases: the
    // eigenvalues' parts and |V_ij|².
    let mut rng = Rng(0x2468_ace0_1357_9bdf);
    for _ in 0..8 {
        let batch = rng.dims(1);
        let n = 1 + rng.below(4);
        let a = contiguous(&mut rng, &with(&batch, &[n, n]), -1.0, 1.0);
        check("eigvals re", &mut rng, std::slice::from_ref(&a), &|v| {
            linalg::eigvals(&v[0]).re
        });
        check("eigvals im", &mut rng, std::slice::from_ref(&a), &|v| {
            linalg::eigvals(&v[0]).im
        });
        check("eig |V|²", &mut rng, std::slice::from_ref(&a), &|v| {
            let (_, vecs) = linalg::eig(&v[0]);
            vecs.re.square().add(&vecs.im.square())
        });
        check("eig values", &mut rng, &[a], &|v| {
            let (vals, _) = linalg::eig(&v[0]);
            vals.re.mul(&vals.im).add(&vals.re)
        });
    }
}

#[test]
fn empty_inputs_give_empty_or_zero_gradients() {
    use shaped::autograd::Var;
    let z = |d: &[usize]| Var::param(D::try_zeros(d).unwrap());
    let ones = |d: &[usize]| D::try_ones(d).unwrap();
    // A 0 × 3 matrix: norm 0 (PyTorch), an empty gradient.
    let a = z(&[0, 3]);
    let n = linalg::matrix_norm(&a, MatrixNorm::One);
    assert_eq!(n.value().to_vec(), vec![0.]);
    let g = n.try_backward_with(&ones(&[])).unwrap();
    assert_eq!(g.wrt(&a).unwrap().dims(), &[0, 3]);
    // Empty batches.
    let a = z(&[0, 3, 3]);
    let (_, l, u) = linalg::lu(&a);
    let g = l.sum().add(&u.sum()).backward();
    assert_eq!(g.wrt(&a).unwrap().dims(), &[0, 3, 3]);
    let (vals, _) = linalg::eig(&a);
    assert_eq!(vals.re.sum().backward().wrt(&a).unwrap().dims(), &[0, 3, 3]);
    let c = linalg::cond(&a, None);
    assert_eq!(c.sum().backward().wrt(&a).unwrap().dims(), &[0, 3, 3]);
    // No reflectors: Q is the first columns of I, with zero gradients.
    let (h, tau) = (z(&[2, 3, 2]), z(&[2, 0]));
    let q = linalg::householder_product(&h, &tau);
    let g = q.sum().backward();
    assert_eq!(g.wrt(&h).unwrap().to_vec(), vec![0.; 12]);
    assert_eq!(g.wrt(&tau).unwrap().dims(), &[2, 0]);
}
