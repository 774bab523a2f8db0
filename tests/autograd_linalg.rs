//! Gradients of `autograd::linalg`'s `inv`, `det`, `solve` and `cholesky`
//! checked by central finite differences in `f64` on random batch shapes
//! (for `solve`, batch dimensions that broadcast, and inputs that are
//! expanded stride-0 views), plus small exact cases. The helpers are those
//! of `tests/common/grad.rs`.

use shaped::autograd::{Var, linalg};
use shaped::{DynRank, Shape, Tensor};

mod common;

use common::Rng;
use common::grad::{D, Gen, V, check};

/// `c` times the identity, broadcast to batches of `n × n` matrices.
fn eye(n: usize, c: f64) -> D {
    let v = (0..n * n)
        .map(|i| if i % (n + 1) == 0 { c } else { 0. })
        .collect();
    D::try_from_vec(v, &[n, n]).unwrap()
}

/// A well-conditioned batch of `n × n` matrices of batch sizes `batch`:
/// random entries in `[-1, 1)` plus `n + 1` on the diagonal.
fn matrices(rng: &mut Rng, batch: &[usize], n: usize) -> D {
    let mut dims = batch.to_vec();
    dims.extend([n, n]);
    rng.tensor(&dims, -1.0, 1.0).add(&eye(n, n as f64 + 1.))
}

/// The matrices of `v` symmetrised, plus `2n` on the diagonal (positive
/// definite for entries in `[-1, 1)`).
fn spd(v: &V, n: usize) -> V {
    let r = v.dims().len() as isize;
    let mut perm: Vec<isize> = (0..r).collect();
    perm.swap(r as usize - 2, r as usize - 1);
    v.add(&v.permute::<DynRank>(&perm).unwrap())
        .mul_scalar(0.5)
        .add(&Var::constant(eye(n, 2. * n as f64)))
}

#[test]
fn inv_and_det_fd() {
    let mut rng = Rng(0x3141_5926_5358_9793);
    for _ in 0..12 {
        let batch = rng.dims(2);
        let n = 1 + rng.below(4);
        let a = matrices(&mut rng, &batch, n);
        let a = if rng.below(2) == 0 { a } else { a.contiguous() };
        check("inv", &mut rng, std::slice::from_ref(&a), &|v| {
            linalg::inv(&v[0])
        });
        check("det", &mut rng, &[a], &|v| linalg::det(&v[0]));
    }
}

#[test]
fn solve_fd_broadcasting() {
    let mut rng = Rng(0x2718_2818_2845_9045);
    for _ in 0..12 {
        let out = rng.dims(2);
        let ab = rng.broadcastable(&out);
        let bb = rng.broadcastable(&out);
        let (n, k) = (1 + rng.below(4), 1 + rng.below(3));
        let a = matrices(&mut rng, &ab, n);
        let mut bd = bb.clone();
        bd.extend([n, k]);
        let b = rng.tensor(&bd, -2.0, 2.0);
        check("solve", &mut rng, &[a, b], &|v| linalg::solve(&v[0], &v[1]));
    }
}

#[test]
fn solve_fd_expanded_b() {
    // B expanded (stride 0) over a batch that A does not have.
    let mut rng = Rng(0x1618_0339_8874_9894);
    let a = matrices(&mut rng, &[2], 3);
    let b = D::try_from_vec((0..6).map(|i| i as f64 - 2.).collect(), &[1, 3, 2])
        .unwrap()
        .try_broadcast_to(&[2, 3, 2])
        .unwrap();
    check("solve expanded", &mut rng, &[a, b], &|v| {
        linalg::solve(&v[0], &v[1])
    });
}

#[test]
fn solve_fd_vector_rhs() {
    // B a batch of vectors (PyTorch's rule for a dynamic-rank B): `(n,)`
    // and `A`'s sizes without the last.
    let mut rng = Rng(0x3141_5926_5358_9793);
    for (batch, one) in [(vec![], true), (vec![2], false), (vec![2, 3], false)] {
        let n = 3;
        let a = matrices(&mut rng, &batch, n);
        let bd = if one {
            vec![n]
        } else {
            batch.iter().copied().chain([n]).collect()
        };
        let b = rng.tensor(&bd, -2.0, 2.0);
        check("solve vector", &mut rng, &[a, b], &|v| {
            linalg::solve(&v[0], &v[1])
        });
    }
}

#[test]
fn cholesky_fd() {
    let mut rng = Rng(0x5772_1566_4901_5328);
    for _ in 0..12 {
        let batch = rng.dims(2);
        let n = 1 + rng.below(4);
        let mut dims = batch.clone();
        dims.extend([n, n]);
        let m = rng.tensor(&dims, -1.0, 1.0);
        check("cholesky", &mut rng, &[m], &|v| {
            linalg::cholesky(&spd(&v[0], n))
        });
    }
}

#[test]
fn exact_small_cases() {
    // inv of diag(2, 4): d/dA Σ inv(A) = -(A⁻ᵀ 1 1ᵀ A⁻ᵀ).
    let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![2., 0., 0., 4.]));
    let g = linalg::inv(&a).sum().backward().wrt(&a).unwrap();
    assert_eq!(g.to_vec(), vec![-0.25, -0.125, -0.125, -0.0625]);

    // det of [[1, 2], [3, 4]]: the cofactor matrix.
    let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]));
    let d = linalg::det(&a);
    assert!((d.value().item() + 2.).abs() < 1e-12);
    let g = d.backward().wrt(&a).unwrap().to_vec();
    let want = [4., -3., -2., 1.];
    assert!(
        g.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-12),
        "{g:?}"
    );

    // solve with A broadcast over B's batch of 2: A's gradient is summed.
    let a = Var::param(Tensor::<f64, Shape![1, 1]>::from_vec(vec![2.]));
    let b = Var::param(Tensor::<f64, Shape![2, 1, 1]>::from_vec(vec![2., 6.]));
    let x: Var<f64, Shape![2, 1, 1]> = linalg::solve(&a, &b);
    assert_eq!(x.value().to_vec(), vec![1., 3.]);
    let g = x.sum().backward();
    let ga: Tensor<f64, Shape![1, 1]> = g.wrt(&a).unwrap();
    assert_eq!(ga.to_vec(), vec![-2.]); // -(0.5·1 + 0.5·3)
    assert_eq!(g.wrt(&b).unwrap().to_vec(), vec![0.5, 0.5]);

    // cholesky of diag(4, 9): L = diag(2, 3), dΣL/dA symmetric.
    let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![4., 0., 0., 9.]));
    let l = linalg::cholesky(&a);
    assert_eq!(l.value().to_vec(), vec![2., 0., 0., 3.]);
    let g = l.sum().backward().wrt(&a).unwrap().to_vec();
    // Φ(LᵀG) = [[1, 0], [3, 1.5]], S = L⁻ᵀ Φ L⁻¹ = [[1/4, 0], [1/2, 1/6]], (S + Sᵀ)/2.
    let want = [0.25, 0.25, 0.25, 1. / 6.];
    assert!(
        g.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-12),
        "{g:?}"
    );
}

#[test]
fn errors_pass_through() {
    let a = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![1., 2., 2., 4.]));
    assert!(linalg::try_inv(&a).is_err());
    let b = Var::param(Tensor::<f64, Shape![2, 2]>::from_vec(vec![-1., 0., 0., 1.]));
    assert!(linalg::try_cholesky(&b).is_err());
}

/// The gradient of `det` at singular matrices is the transposed adjugate,
/// never a panic. Values from PyTorch 2.15
/// (`torch.autograd.grad(det(a).sum(), a, create_graph=True)`, its exact
/// formula; without `create_graph` PyTorch approximates it by 0).
#[test]
fn det_gradient_at_singular_matrices_is_the_adjugate() {
    let a = Var::param(Tensor::<f64, Shape![3, 2, 2]>::from_vec(vec![
        1., 2., 2., 4., 0., 0., 0., 1., 2., 1., 1., 3.,
    ]));
    let g = linalg::det(&a)
        .sum()
        .try_backward_with(&Tensor::full(1.))
        .unwrap();
    let g = g.wrt(&a).unwrap().to_vec();
    let want = [4., -2., -2., 1., 1., 0., 0., 0., 3., -1., -1., 2.];
    assert!(
        g.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-12),
        "{g:?}"
    );
    // Rank 2 of 3: the adjugate has rank 1; rank 1 of 3: it is 0.
    let b = Var::param(Tensor::<f64, Shape![2, 3, 3]>::from_vec(vec![
        1., 2., 3., 2., 4., 6., 1., 0., 1., 1., 2., 3., 2., 4., 6., 3., 6., 9.,
    ]));
    let g = linalg::det(&b).sum().backward().wrt(&b).unwrap().to_vec();
    let want = [
        4., 4., -4., -2., -2., 2., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,
    ];
    assert!(
        g.iter().zip(want).all(|(x, y)| (x - y).abs() < 1e-12),
        "{g:?}"
    );
}
