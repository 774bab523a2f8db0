//! Batched linear algebra checked by reconstruction on random batched,
//! broadcast, non-contiguous and empty inputs, with a naive matrix product
//! written here (independent of the library).

use shaped::linalg::{self, MatrixNorm};
use shaped::{DynRank, Shape, Tensor};

/// A small deterministic generator.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
    fn vec(&mut self, n: usize) -> Vec<f64> {
        (0..n).map(|_| self.next()).collect()
    }
}

fn dynt(data: Vec<f64>, dims: &[usize]) -> Tensor<f64, DynRank> {
    Tensor::try_from_vec(data, dims).unwrap()
}

/// Row-major `m x k` times `k x n`.
fn mm(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            for p in 0..k {
                c[i * n + j] += a[i * k + p] * b[p * n + j];
            }
        }
    }
    c
}

fn tr(a: &[f64], m: usize, n: usize) -> Vec<f64> {
    let mut t = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            t[j * m + i] = a[i * n + j];
        }
    }
    t
}

fn eye(n: usize) -> Vec<f64> {
    let mut e = vec![0.0; n * n];
    for i in 0..n {
        e[i * n + i] = 1.0;
    }
    e
}

#[track_caller]
fn close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len());
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!((x - y).abs() <= tol * (1.0 + y.abs()), "at {i}: {x} vs {y}");
    }
}

/// Matrix `i` of a row-major batch of `r x c` matrices.
fn at(v: &[f64], i: usize, r: usize, c: usize) -> &[f64] {
    &v[i * r * c..(i + 1) * r * c]
}

/// Well-conditioned random square matrices (diagonally shifted).
fn square_batch(rng: &mut Rng, batch: usize, n: usize) -> Vec<f64> {
    let mut v = rng.vec(batch * n * n);
    for b in 0..batch {
        for i in 0..n {
            v[b * n * n + i * n + i] += n as f64;
        }
    }
    v
}

/// Symmetric positive-definite matrices `M Mᵀ + n I`.
fn spd_batch(rng: &mut Rng, batch: usize, n: usize) -> Vec<f64> {
    let mut out = Vec::new();
    for _ in 0..batch {
        let m = rng.vec(n * n);
        let mut a = mm(&m, &tr(&m, n, n), n, n, n);
        for i in 0..n {
            a[i * n + i] += n as f64;
        }
        out.extend(a);
    }
    out
}

#[test]
fn inv_reconstructs_identity_batched() {
    let mut rng = Rng(7);
    let n = 4;
    let data = square_batch(&mut rng, 6, n);
    let a = dynt(data.clone(), &[2, 3, n, n]);
    let ai = linalg::inv(&a);
    assert_eq!(ai.dims(), &[2, 3, n, n]);
    let v = ai.to_vec();
    for b in 0..6 {
        close(
            &mm(at(&data, b, n, n), at(&v, b, n, n), n, n, n),
            &eye(n),
            1e-12,
        );
    }
}

#[test]
fn inv_of_a_transposed_view_is_the_transposed_inverse() {
    let mut rng = Rng(8);
    let a = Tensor::<f64, Shape![3, 4, 4]>::from_vec(square_batch(&mut rng, 3, 4));
    let at_: Tensor<f64, Shape![3, 4, 4]> = a.transpose::<1, 2>();
    let logical = at_.to_vec();
    let inv_t: Tensor<f64, Shape![3, 4, 4]> = linalg::inv(&at_);
    let v = inv_t.to_vec();
    for b in 0..3 {
        close(
            &mm(at(&logical, b, 4, 4), at(&v, b, 4, 4), 4, 4, 4),
            &eye(4),
            1e-12,
        );
    }
    let direct = linalg::inv(&a).to_vec();
    for b in 0..3 {
        close(at(&v, b, 4, 4), &tr(at(&direct, b, 4, 4), 4, 4), 1e-12);
    }
}

#[test]
fn inv_of_expanded_batch() {
    let a = Tensor::<f64, Shape![1, 2, 2]>::from_vec(vec![2., 1., 1., 1.]);
    let e: Tensor<f64, Shape![3, 2, 2]> = a.broadcast_to();
    let v = linalg::inv(&e).to_vec();
    close(
        &v,
        &[1., -1., -1., 2., 1., -1., -1., 2., 1., -1., -1., 2.],
        1e-14,
    );
}

#[test]
fn singular_input_policy() {
    let a = dynt(vec![1., 0., 0., 1., 1., 2., 2., 4.], &[2, 2, 2]);
    assert_eq!(
        linalg::try_inv(&a).unwrap_err().to_string(),
        "linalg.inv: (Batch element 1): The diagonal element 2 is zero, the inversion could not be completed because the input matrix is singular."
    );
    let single = dynt(vec![0., 0., 0., 1.], &[2, 2]);
    assert_eq!(
        linalg::try_inv(&single).unwrap_err().to_string(),
        "linalg.inv: The diagonal element 1 is zero, the inversion could not be completed because the input matrix is singular."
    );
    let b = dynt(vec![1., 1.], &[2, 1]);
    assert_eq!(
        linalg::try_solve(&a, &b).unwrap_err().to_string(),
        "torch.linalg.solve: (Batch element 1): The solver failed because the input matrix is singular."
    );
    assert_eq!(linalg::det(&a).to_vec(), vec![1., 0.]);
    let (s, l) = linalg::slogdet(&a);
    assert_eq!(s.to_vec(), vec![1., 0.]);
    assert_eq!(l.to_vec(), vec![0., f64::NEG_INFINITY]);
    let np = dynt(
        vec![4., 2., 2., 5., 1., 2., 2., 1., 1., 0., 0., 1.],
        &[3, 2, 2],
    );
    assert_eq!(
        linalg::try_cholesky(&np).unwrap_err().to_string(),
        "linalg.cholesky: (Batch element 1): The factorization could not be completed because the input is not positive-definite (the leading minor of order 2 is not positive-definite)."
    );
    let neg = dynt(vec![-1., 0., 0., 1.], &[2, 2]);
    assert_eq!(
        linalg::try_cholesky(&neg).unwrap_err().to_string(),
        "linalg.cholesky: The factorization could not be completed because the input is not positive-definite (the leading minor of order 1 is not positive-definite)."
    );
}

#[test]
#[should_panic(
    expected = "linalg.inv: A must be batches of square matrices, but they are 2 by 3 matrices"
)]
fn inv_panics_with_the_try_message() {
    let a = Tensor::<f64, Shape![2, _]>::try_zeros(&[2, 3]).unwrap();
    let _ = linalg::inv(&a);
}

#[test]
fn run_time_shape_errors() {
    let v = dynt(vec![1., 2.], &[2]);
    assert_eq!(
        linalg::try_inv(&v).unwrap_err().to_string(),
        "linalg.inv: The input tensor A must have at least 2 dimensions."
    );
    let a = dynt(vec![0.; 2 * 9], &[2, 3, 3]);
    let b = dynt(vec![0.; 3 * 3 * 2], &[3, 3, 2]);
    assert_eq!(
        linalg::try_solve(&a, &b).unwrap_err().to_string(),
        "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 0"
    );
    let b4 = dynt(vec![0.; 8], &[4, 2]);
    assert_eq!(
        linalg::try_cholesky_solve(&b4, &a).unwrap_err().to_string(),
        "Incompatible matrix sizes for cholesky_solve: each A matrix is 3 by 3 but each b matrix is 4 by 2"
    );
}

#[test]
fn det_and_slogdet_match_cofactor_expansion() {
    let mut rng = Rng(9);
    let data = rng.vec(5 * 9);
    let a = dynt(data.clone(), &[5, 3, 3]);
    let d = linalg::det(&a).to_vec();
    let (s, l) = linalg::slogdet(&a);
    let (s, l) = (s.to_vec(), l.to_vec());
    for b in 0..5 {
        let m = at(&data, b, 3, 3);
        let want = m[0] * (m[4] * m[8] - m[5] * m[7]) - m[1] * (m[3] * m[8] - m[5] * m[6])
            + m[2] * (m[3] * m[7] - m[4] * m[6]);
        close(&[d[b]], &[want], 1e-12);
        close(&[s[b] * l[b].exp()], &[want], 1e-12);
        assert_eq!(s[b], want.signum());
    }
    let static_a = Tensor::<f32, Shape![2, 2]>::from_vec(vec![1., 2., 3., 4.]);
    let d: Tensor<f32, Shape![]> = linalg::det(&static_a);
    assert!((d.item() + 2.0).abs() < 1e-5);
}

#[test]
fn solve_broadcasts_batches() {
    let mut rng = Rng(10);
    let (n, k) = (4, 2);
    let ad = square_batch(&mut rng, 2, n);
    let bd = rng.vec(3 * n * k);
    let a = Tensor::<f64, Shape![2, 1, 4, 4]>::from_vec(ad.clone());
    let b = Tensor::<f64, Shape![3, 4, 2]>::from_vec(bd.clone());
    let x: Tensor<f64, Shape![2, 3, 4, 2]> = linalg::solve(&a, &b);
    let xv = x.to_vec();
    for i in 0..2 {
        for j in 0..3 {
            let ax = mm(at(&ad, i, n, n), at(&xv, i * 3 + j, n, k), n, n, k);
            close(&ax, at(&bd, j, n, k), 1e-12);
        }
    }
    let bv = Tensor::<f64, Shape![3, 1, 4]>::from_vec(rng.vec(12));
    let xv: Tensor<f64, Shape![3, 2, 4]> =
        linalg::solve_vec(&Tensor::<f64, Shape![2, 4, 4]>::from_vec(ad.clone()), &bv);
    let (xd, bd2) = (xv.to_vec(), bv.to_vec());
    for j in 0..3 {
        for i in 0..2 {
            let ax = mm(at(&ad, i, n, n), at(&xd, j * 2 + i, n, 1), n, n, 1);
            close(&ax, at(&bd2, j, n, 1), 1e-12);
        }
    }
}

#[test]
fn cholesky_and_cholesky_solve() {
    let mut rng = Rng(11);
    let n = 5;
    let data = spd_batch(&mut rng, 6, n);
    let a = dynt(data.clone(), &[2, 3, n, n]);
    let l = linalg::cholesky(&a);
    let lv = l.to_vec();
    for b in 0..6 {
        let lb = at(&lv, b, n, n);
        for i in 0..n {
            for j in i + 1..n {
                assert_eq!(lb[i * n + j], 0.0);
            }
        }
        close(&mm(lb, &tr(lb, n, n), n, n, n), at(&data, b, n, n), 1e-12);
    }
    let bd = rng.vec(n * 3);
    let b = dynt(bd.clone(), &[n, 3]);
    let x = linalg::cholesky_solve(&b, &l).to_vec();
    for i in 0..6 {
        close(
            &mm(at(&data, i, n, n), at(&x, i, n, 3), n, n, 3),
            &bd,
            1e-12,
        );
    }
}

fn check_qr(m: usize, n: usize, seed: u64) {
    let mut rng = Rng(seed);
    let data = rng.vec(2 * m * n);
    let a = dynt(data.clone(), &[2, m, n]);
    let k = m.min(n);
    let (q, r) = linalg::qr(&a);
    assert_eq!((q.dims(), r.dims()), (&[2, m, k][..], &[2, k, n][..]));
    let (qv, rv) = (q.to_vec(), r.to_vec());
    let (qc, rc) = linalg::qr_complete(&a);
    assert_eq!((qc.dims(), rc.dims()), (&[2, m, m][..], &[2, m, n][..]));
    let (qcv, rcv) = (qc.to_vec(), rc.to_vec());
    for b in 0..2 {
        let (qb, rb) = (at(&qv, b, m, k), at(&rv, b, k, n));
        close(&mm(qb, rb, m, k, n), at(&data, b, m, n), 1e-12);
        close(&mm(&tr(qb, m, k), qb, k, m, k), &eye(k), 1e-12);
        for i in 0..k {
            for j in 0..i.min(n) {
                assert_eq!(rb[i * n + j], 0.0);
            }
        }
        let (qb, rb) = (at(&qcv, b, m, m), at(&rcv, b, m, n));
        close(&mm(qb, rb, m, m, n), at(&data, b, m, n), 1e-12);
        close(&mm(&tr(qb, m, m), qb, m, m, m), &eye(m), 1e-12);
    }
}

#[test]
fn qr_reconstructs_tall_wide_square() {
    check_qr(5, 3, 12);
    check_qr(3, 5, 13);
    check_qr(4, 4, 14);
}

fn check_svd(m: usize, n: usize, seed: u64) {
    let mut rng = Rng(seed);
    let data = rng.vec(3 * m * n);
    let a = dynt(data.clone(), &[3, m, n]);
    let k = m.min(n);
    let (u, s, vh) = linalg::svd(&a);
    assert_eq!(
        (u.dims(), s.dims(), vh.dims()),
        (&[3, m, k][..], &[3, k][..], &[3, k, n][..])
    );
    let (uv, sv, vv) = (u.to_vec(), s.to_vec(), vh.to_vec());
    let (uf, sf, vf) = linalg::svd_full(&a);
    assert_eq!((uf.dims(), vf.dims()), (&[3, m, m][..], &[3, n, n][..]));
    close(&sf.to_vec(), &sv, 1e-12);
    close(&linalg::svdvals(&a).to_vec(), &sv, 1e-12);
    let (ufv, vfv) = (uf.to_vec(), vf.to_vec());
    for b in 0..3 {
        let sb = at(&sv, b, 1, k);
        assert!(sb.windows(2).all(|w| w[0] >= w[1]) && sb.iter().all(|&x| x >= 0.0));
        let mut us = at(&uv, b, m, k).to_vec();
        for i in 0..m {
            for j in 0..k {
                us[i * k + j] *= sb[j];
            }
        }
        close(
            &mm(&us, at(&vv, b, k, n), m, k, n),
            at(&data, b, m, n),
            1e-12,
        );
        let ub = at(&ufv, b, m, m);
        close(&mm(&tr(ub, m, m), ub, m, m, m), &eye(m), 1e-12);
        let vb = at(&vfv, b, n, n);
        close(&mm(vb, &tr(vb, n, n), n, n, n), &eye(n), 1e-12);
    }
}

#[test]
fn svd_reconstructs() {
    check_svd(5, 3, 15);
    check_svd(3, 6, 16);
    check_svd(4, 4, 17);
}

#[test]
fn eigh_diagonalizes() {
    let mut rng = Rng(18);
    let n = 6;
    let m = rng.vec(4 * n * n);
    let mut data = Vec::new();
    for b in 0..4 {
        let x = at(&m, b, n, n);
        let t = tr(x, n, n);
        data.extend(x.iter().zip(&t).map(|(p, q)| p + q));
    }
    let a = dynt(data.clone(), &[2, 2, n, n]);
    let (w, v) = linalg::eigh(&a);
    assert_eq!((w.dims(), v.dims()), (&[2, 2, n][..], &[2, 2, n, n][..]));
    let (wv, vv) = (w.to_vec(), v.to_vec());
    close(&linalg::eigvalsh(&a).to_vec(), &wv, 1e-12);
    for b in 0..4 {
        let (wb, vb) = (at(&wv, b, 1, n), at(&vv, b, n, n));
        assert!(wb.windows(2).all(|p| p[0] <= p[1]));
        let av = mm(at(&data, b, n, n), vb, n, n, n);
        let mut vw = vb.to_vec();
        for i in 0..n {
            for j in 0..n {
                vw[i * n + j] *= wb[j];
            }
        }
        close(&av, &vw, 1e-11);
        close(&mm(&tr(vb, n, n), vb, n, n, n), &eye(n), 1e-12);
    }
}

#[test]
fn lu_factor_and_lu_solve_broadcast() {
    let mut rng = Rng(19);
    let n = 5;
    let ad = rng.vec(3 * n * n); // not diagonally dominant: pivoting matters
    let a = dynt(ad.clone(), &[3, 1, n, n]);
    let (lu, piv) = linalg::lu_factor(&a);
    assert_eq!((lu.dims(), piv.dims()), (&[3, 1, n, n][..], &[3, 1, n][..]));
    let bd = rng.vec(2 * n * 2);
    let b = dynt(bd.clone(), &[2, n, 2]);
    let x = linalg::lu_solve(&lu, &piv, &b);
    assert_eq!(x.dims(), &[3, 2, n, 2]);
    let xv = x.to_vec();
    for i in 0..3 {
        for j in 0..2 {
            let ax = mm(at(&ad, i, n, n), at(&xv, i * 2 + j, n, 2), n, n, 2);
            close(&ax, at(&bd, j, n, 2), 1e-10);
        }
    }
    // P A = L U with LAPACK's sequential swaps.
    let (luv, pv) = (lu.to_vec(), piv.to_vec());
    for b in 0..3 {
        let f = at(&luv, b, n, n);
        let mut l = eye(n);
        let mut u = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                if i > j {
                    l[i * n + j] = f[i * n + j];
                } else {
                    u[i * n + j] = f[i * n + j];
                }
            }
        }
        let mut pa = at(&ad, b, n, n).to_vec();
        for (r, &p) in pv[b * n..(b + 1) * n].iter().enumerate() {
            for c in 0..n {
                pa.swap(r * n + c, (p as usize - 1) * n + c);
            }
        }
        close(&mm(&l, &u, n, n, n), &pa, 1e-12);
    }
}

#[test]
fn lstsq_matches_normal_equations_and_pinv_is_a_pseudo_inverse() {
    let mut rng = Rng(20);
    let (m, n, k) = (7, 3, 2);
    let ad = rng.vec(2 * m * n);
    let bd = rng.vec(m * k);
    let a = dynt(ad.clone(), &[2, m, n]);
    let b = dynt(bd.clone(), &[1, m, k]);
    let x = linalg::lstsq(&a, &b).solution;
    assert_eq!(x.dims(), &[2, n, k]);
    let xv = x.to_vec();
    let p = linalg::pinv(&a);
    assert_eq!(p.dims(), &[2, n, m]);
    let pv = p.to_vec();
    for i in 0..2 {
        let ab = at(&ad, i, m, n);
        let at_ = tr(ab, m, n);
        let lhs = mm(&mm(&at_, ab, n, m, n), at(&xv, i, n, k), n, n, k);
        close(&lhs, &mm(&at_, &bd, n, m, k), 1e-11);
        let pb = at(&pv, i, n, m);
        close(&mm(&mm(ab, pb, m, n, m), ab, m, m, n), ab, 1e-12);
        close(&mm(&mm(pb, ab, n, m, n), pb, n, n, m), pb, 1e-12);
    }
}

#[test]
fn matrix_norms_match_definitions() {
    let mut rng = Rng(21);
    let (m, n) = (3, 4);
    let d = rng.vec(2 * m * n);
    let a = dynt(d.clone(), &[2, m, n]);
    let sv = linalg::svdvals(&a).to_vec();
    let get = |o| linalg::matrix_norm(&a, o).to_vec();
    for b in 0..2 {
        let x = at(&d, b, m, n);
        let fro = x.iter().map(|v| v * v).sum::<f64>().sqrt();
        let cols: Vec<f64> = (0..n)
            .map(|j| (0..m).map(|i| x[i * n + j].abs()).sum())
            .collect();
        let rows: Vec<f64> = (0..m)
            .map(|i| (0..n).map(|j| x[i * n + j].abs()).sum())
            .collect();
        let mx = |v: &[f64]| v.iter().cloned().fold(f64::MIN, f64::max);
        let mn = |v: &[f64]| v.iter().cloned().fold(f64::MAX, f64::min);
        let s = at(&sv, b, 1, 3);
        close(&[get(MatrixNorm::Fro)[b]], &[fro], 1e-14);
        close(&[get(MatrixNorm::One)[b]], &[mx(&cols)], 1e-14);
        close(&[get(MatrixNorm::NegOne)[b]], &[mn(&cols)], 1e-14);
        close(&[get(MatrixNorm::Inf)[b]], &[mx(&rows)], 1e-14);
        close(&[get(MatrixNorm::NegInf)[b]], &[mn(&rows)], 1e-14);
        close(&[get(MatrixNorm::Two)[b]], &[s[0]], 1e-14);
        close(&[get(MatrixNorm::NegTwo)[b]], &[s[2]], 1e-14);
        close(&[get(MatrixNorm::Nuc)[b]], &[s.iter().sum()], 1e-14);
        // Frobenius is also the root of the sum of squared singular values.
        close(
            &[fro],
            &[s.iter().map(|v| v * v).sum::<f64>().sqrt()],
            1e-12,
        );
    }
}

#[test]
fn zero_size_batches() {
    let a = dynt(vec![], &[0, 3, 3]);
    assert_eq!(linalg::inv(&a).dims(), &[0, 3, 3]);
    assert_eq!(linalg::det(&a).dims(), &[0]);
    let b = dynt(vec![0.; 6], &[3, 2]);
    assert_eq!(linalg::solve(&a, &b).dims(), &[0, 3, 2]);
    let (u, s, vh) = linalg::svd(&dynt(vec![], &[2, 0, 4, 3]));
    assert_eq!(
        (u.dims(), s.dims(), vh.dims()),
        (&[2, 0, 4, 3][..], &[2, 0, 3][..], &[2, 0, 3, 3][..])
    );
    let (w, v) = linalg::eigh(&a);
    assert_eq!((w.dims(), v.dims()), (&[0, 3][..], &[0, 3, 3][..]));
    assert_eq!(linalg::pinv(&dynt(vec![], &[0, 2, 5])).dims(), &[0, 5, 2]);
}

#[test]
fn f32_inputs() {
    let mut rng = Rng(22);
    let n = 8;
    let d = square_batch(&mut rng, 4, n);
    let a = Tensor::<f32, DynRank>::try_from_vec(d.iter().map(|&x| x as f32).collect(), &[4, n, n])
        .unwrap();
    let ai = linalg::inv(&a).to_vec();
    let l = linalg::cholesky(
        &Tensor::<f32, DynRank>::try_from_vec(
            spd_batch(&mut rng, 1, n)
                .iter()
                .map(|&x| x as f32)
                .collect(),
            &[n, n],
        )
        .unwrap(),
    );
    assert_eq!(l.dims(), &[n, n]);
    for b in 0..4 {
        let inv: Vec<f64> = ai[b * n * n..(b + 1) * n * n]
            .iter()
            .map(|&x| x as f64)
            .collect();
        close(&mm(at(&d, b, n, n), &inv, n, n, n), &eye(n), 1e-4);
    }
}

#[test]
fn static_result_types() {
    let a = Tensor::<f64, Shape![2, 3, 3]>::zeros();
    let _: Tensor<f64, Shape![2]> = linalg::det(&a);
    let (w, v) = linalg::eigh(&a);
    let _: Tensor<f64, Shape![2, 3]> = w;
    let _: Tensor<f64, Shape![2, 3, 3]> = v;
    let r = Tensor::<f64, Shape![4, 2]>::zeros();
    let _: Tensor<f64, Shape![2, 4]> = linalg::pinv(&r);
    let _: Tensor<f64, Shape![]> = linalg::matrix_norm(&r, MatrixNorm::Fro);
    let b = Tensor::<f64, Shape![_, 4, 5]>::try_zeros(&[3, 4, 5]).unwrap();
    let r1 = Tensor::<f64, Shape![1, 4, 2]>::zeros();
    let _: Tensor<f64, Shape![_, 2, 5]> = linalg::lstsq(&r1, &b).solution;
    // A `Dyn` size next to a static one is checked at run time.
    let sq = Tensor::<f64, Shape![3, _]>::try_from_vec(
        vec![1., 0., 0., 0., 1., 0., 0., 0., 1.],
        &[3, 3],
    )
    .unwrap();
    let i: Tensor<f64, Shape![3, _]> = linalg::inv(&sq);
    assert_eq!(i.to_vec(), sq.to_vec());
}
