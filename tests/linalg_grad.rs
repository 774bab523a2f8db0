//! The gradient oracles of the tests (`common/linalg_oracle.rs`, the
//! per-matrix faer formulas the other linear-algebra gradient tests compare
//! with) against central finite differences in f64, on small batches, and
//! on small worked examples.

use shaped::linalg;
use shaped::{DynRank, Tensor};

mod common;
#[path = "common/linalg_oracle.rs"]
mod oracle;

struct Rng(u64);
impl Rng {
    fn vec(&mut self, n: usize) -> Vec<f64> {
        (0..n)
            .map(|_| {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
            })
            .collect()
    }
}

fn t(data: Vec<f64>, dims: &[usize]) -> Tensor<f64, DynRank> {
    Tensor::try_from_vec(data, dims).unwrap()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

const H: f64 = 1e-6;

/// d/dx_i of `f` at `x`, by central differences.
fn numeric(x: &[f64], i: usize, f: &dyn Fn(&[f64]) -> f64) -> f64 {
    let (mut p, mut m) = (x.to_vec(), x.to_vec());
    p[i] += H;
    m[i] -= H;
    (f(&p) - f(&m)) / (2.0 * H)
}

#[track_caller]
fn close(got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 1e-6 * (1.0 + want.abs()),
        "{got} vs {want}"
    );
}

fn well_conditioned(rng: &mut Rng, batch: usize, n: usize) -> Vec<f64> {
    let mut a = rng.vec(batch * n * n);
    for b in 0..batch {
        for i in 0..n {
            a[b * n * n + i * n + i] += 3.0;
        }
    }
    a
}

#[test]
fn inv_backward_matches_finite_differences() {
    let mut rng = Rng(1);
    let (dims, n) = ([2, 3, 3], 3);
    let a = well_conditioned(&mut rng, 2, n);
    let g = rng.vec(18);
    let f = |x: &[f64]| dot(&g, &linalg::inv(&t(x.to_vec(), &dims)).to_vec());
    let y = linalg::inv(&t(a.clone(), &dims));
    let ga = oracle::inv_backward(&t(g.clone(), &dims), &y)
        .unwrap()
        .to_vec();
    for (i, &g) in ga.iter().enumerate() {
        close(g, numeric(&a, i, &f));
    }
}

#[test]
fn det_backward_matches_finite_differences() {
    let mut rng = Rng(2);
    let dims = [3, 3, 3];
    let a = well_conditioned(&mut rng, 3, 3);
    let g = rng.vec(3);
    let f = |x: &[f64]| dot(&g, &linalg::det(&t(x.to_vec(), &dims)).to_vec());
    let at = t(a.clone(), &dims);
    let d = linalg::det(&at);
    let ga = oracle::det_backward(&t(g.clone(), &[3]), &at, &d)
        .unwrap()
        .to_vec();
    for (i, &g) in ga.iter().enumerate() {
        close(g, numeric(&a, i, &f));
    }
}

#[test]
fn solve_backward_matches_finite_differences() {
    let mut rng = Rng(3);
    let (ad, bd) = ([2, 3, 3], [2, 3, 2]);
    let a = well_conditioned(&mut rng, 2, 3);
    let b = rng.vec(12);
    let g = rng.vec(12);
    let at = t(a.clone(), &ad);
    let x = linalg::solve(&at, &t(b.clone(), &bd));
    let (ga, gb) = oracle::solve_backward(&t(g.clone(), &bd), &at, &x).unwrap();
    let (ga, gb) = (ga.to_vec(), gb.to_vec());
    let fa = |v: &[f64]| {
        dot(
            &g,
            &linalg::solve(&t(v.to_vec(), &ad), &t(b.clone(), &bd)).to_vec(),
        )
    };
    let fb = |v: &[f64]| {
        dot(
            &g,
            &linalg::solve(&t(a.clone(), &ad), &t(v.to_vec(), &bd)).to_vec(),
        )
    };
    for (i, &g) in ga.iter().enumerate() {
        close(g, numeric(&a, i, &fa));
    }
    for (i, &g) in gb.iter().enumerate() {
        close(g, numeric(&b, i, &fb));
    }
}

#[test]
fn cholesky_backward_matches_symmetric_finite_differences() {
    let mut rng = Rng(4);
    let n = 4;
    let dims = [2, n, n];
    let m = rng.vec(2 * n * n);
    let mut a = vec![0.0; 2 * n * n];
    for b in 0..2 {
        for i in 0..n {
            for j in 0..n {
                let s: f64 = (0..n)
                    .map(|k| m[b * 16 + i * n + k] * m[b * 16 + j * n + k])
                    .sum();
                a[b * 16 + i * n + j] = s + if i == j { n as f64 } else { 0.0 };
            }
        }
    }
    let g = rng.vec(2 * n * n);
    // Perturb symmetrically: cholesky reads only the lower triangle, and the
    // gradient is the symmetric one.
    let f = |x: &[f64]| dot(&g, &linalg::cholesky(&t(x.to_vec(), &dims)).to_vec());
    let l = linalg::cholesky(&t(a.clone(), &dims));
    let ga = oracle::cholesky_backward(&t(g.clone(), &dims), &l)
        .unwrap()
        .to_vec();
    for b in 0..2 {
        for i in 0..n {
            for j in 0..=i {
                let (ij, ji) = (b * 16 + i * n + j, b * 16 + j * n + i);
                let sym = |x: &[f64]| {
                    let mut y = x.to_vec();
                    let d = y[ij] - a[ij];
                    if ij != ji {
                        y[ji] += d;
                    }
                    f(&y)
                };
                let want = numeric(&a, ij, &sym);
                let got = if ij == ji { ga[ij] } else { ga[ij] + ga[ji] };
                close(got, want);
            }
        }
    }
}

#[test]
fn matrix_power_backward_matches_finite_differences() {
    let mut rng = Rng(7);
    let dims = [2, 3, 3];
    // Entries of size about 1/3 around the identity: powers stay moderate.
    let a: Vec<f64> = well_conditioned(&mut rng, 2, 3)
        .iter()
        .map(|x| x / 3.0)
        .collect();
    let g = rng.vec(18);
    for k in [1, 2, 7, 13, -1, -6] {
        let f = |x: &[f64]| dot(&g, &linalg::matrix_power(&t(x.to_vec(), &dims), k).to_vec());
        let ga = oracle::matrix_power_backward(&t(g.clone(), &dims), &t(a.clone(), &dims), k)
            .unwrap()
            .to_vec();
        for (i, &gi) in ga.iter().enumerate() {
            close(gi, numeric(&a, i, &f));
        }
    }
}

#[test]
fn matrix_exp_backward_matches_finite_differences() {
    let mut rng = Rng(8);
    let dims = [2, 3, 3];
    let a = rng.vec(18);
    let g = rng.vec(18);
    let f = |x: &[f64]| dot(&g, &linalg::matrix_exp(&t(x.to_vec(), &dims)).to_vec());
    let ga = oracle::matrix_exp_backward(&t(g.clone(), &dims), &t(a.clone(), &dims))
        .unwrap()
        .to_vec();
    for (i, &gi) in ga.iter().enumerate() {
        close(gi, numeric(&a, i, &f));
    }
}

#[test]
fn solve_triangular_backward_matches_finite_differences() {
    let mut rng = Rng(9);
    let (adims, bdims) = ([2, 3, 3], [2, 3, 2]);
    let a = well_conditioned(&mut rng, 2, 3);
    let b = rng.vec(12);
    let g = rng.vec(12);
    for (upper, unit) in [(true, false), (false, true)] {
        let tri = linalg::Triangle { upper, unit };
        let fa = |x: &[f64]| {
            let y = linalg::solve_triangular(&t(x.to_vec(), &adims), &t(b.clone(), &bdims), tri);
            dot(&g, &y.to_vec())
        };
        let fb = |x: &[f64]| {
            let y = linalg::solve_triangular(&t(a.clone(), &adims), &t(x.to_vec(), &bdims), tri);
            dot(&g, &y.to_vec())
        };
        let at = t(a.clone(), &adims);
        let x = linalg::solve_triangular(&at, &t(b.clone(), &bdims), tri);
        let (ga, gb) =
            oracle::solve_triangular_backward(&t(g.clone(), &bdims), &at, &x, tri).unwrap();
        for (i, &gi) in ga.to_vec().iter().enumerate() {
            close(gi, numeric(&a, i, &fa));
        }
        for (i, &gi) in gb.to_vec().iter().enumerate() {
            close(gi, numeric(&b, i, &fb));
        }
    }
}

// Worked examples, small enough to check by hand.

/// `t`'s elements within `tol` of `want`.
#[track_caller]
fn near(got: &Tensor<f64, DynRank>, want: &[f64], tol: f64) {
    let got = got.to_vec();
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    assert!(
        got.iter().zip(want).all(|(x, y)| (x - y).abs() < tol),
        "{got:?} vs {want:?}"
    );
}

#[test]
fn inv_backward_of_a_scalar_matrix() {
    // A = [[2]], Y = [[0.5]]: -Yᵀ G Yᵀ = -0.25.
    let ga = oracle::inv_backward(&t(vec![1.], &[1, 1]), &t(vec![0.5], &[1, 1])).unwrap();
    assert_eq!(ga.to_vec(), vec![-0.25]);
}

#[test]
fn det_backward_is_the_transposed_adjugate_also_where_singular() {
    let g = t(vec![1.], &[]);
    let a = t(vec![2., 0., 0., 3.], &[2, 2]);
    let ga = oracle::det_backward(&g, &a, &linalg::det(&a)).unwrap();
    assert_eq!(ga.to_vec(), vec![3., 0., 0., 2.]);
    // Singular: the adjugate [[4, -2], [-2, 1]] of [[1, 2], [2, 4]], as PyTorch.
    let s = t(vec![1., 2., 2., 4.], &[2, 2]);
    let gs = oracle::det_backward(&g, &s, &linalg::det(&s)).unwrap();
    near(&gs, &[4., -2., -2., 1.], 1e-12);
}

#[test]
fn solve_backward_of_a_scalar_system() {
    // X = B / A for A = [[2]], B = [[6]]: ∂B = 1/2, ∂A = -X/A = -1.5.
    let (a, x, g) = (
        t(vec![2.], &[1, 1]),
        t(vec![3.], &[1, 1]),
        t(vec![1.], &[1, 1]),
    );
    let (ga, gb) = oracle::solve_backward(&g, &a, &x).unwrap();
    assert_eq!((ga.to_vec(), gb.to_vec()), (vec![-1.5], vec![0.5]));
    let tri = linalg::Triangle {
        upper: true,
        unit: false,
    };
    let (ga, gb) = oracle::solve_triangular_backward(&g, &a, &x, tri).unwrap();
    assert_eq!((ga.to_vec(), gb.to_vec()), (vec![-1.5], vec![0.5]));
}

#[test]
fn cholesky_backward_of_a_scalar_matrix() {
    // A = [[4]], L = sqrt(A) = [[2]]: dL/dA = 1 / (2 sqrt(A)) = 0.25.
    let ga = oracle::cholesky_backward(&t(vec![1.], &[1, 1]), &t(vec![2.], &[1, 1])).unwrap();
    assert_eq!(ga.to_vec(), vec![0.25]);
}

#[test]
fn matrix_power_and_exp_backward_of_a_scalar_matrix() {
    let (g, a) = (t(vec![1.], &[1, 1]), t(vec![2.], &[1, 1]));
    // d(a³)/da = 3a² = 12; d(a⁻¹)/da = -1/a² = -0.25.
    assert_eq!(
        oracle::matrix_power_backward(&g, &a, 3).unwrap().to_vec(),
        vec![12.]
    );
    assert_eq!(
        oracle::matrix_power_backward(&g, &a, -1).unwrap().to_vec(),
        vec![-0.25]
    );
    let e = oracle::matrix_exp_backward(&g, &t(vec![1.], &[1, 1])).unwrap();
    near(&e, &[1f64.exp()], 1e-14);
}

#[test]
fn svdvals_backward_gives_each_singular_direction() {
    let a = t(vec![3., 0., 0., -2.], &[2, 2]);
    let d = oracle::svdvals_backward(&t(vec![1., 1.], &[2]), &a).unwrap();
    // The sign of each singular value's direction.
    near(&d, &[1., 0., 0., -1.], 1e-12);
}

#[test]
fn lstsq_backward_of_a_scalar_system() {
    // x = b / 2 for A = [[2]]: ∂x/∂b = 1/2, ∂x/∂a = -b / 4.
    let (ga, gb) = oracle::lstsq_backward(
        &t(vec![1.], &[1, 1]),
        &t(vec![2.], &[1, 1]),
        &t(vec![6.], &[1, 1]),
    )
    .unwrap();
    near(&gb, &[0.5], 1e-12);
    near(&ga, &[-1.5], 1e-12);
}

#[test]
fn householder_product_backward_of_one_reflector() {
    // One reflector with v = (1, a), a = 0: Σ H = 2 - τ (1 + a)², so
    // ∂/∂τ = -1 and ∂/∂a = -2τ.
    let (ga, gt) = oracle::householder_product_backward(
        &t(vec![1.; 4], &[2, 2]),
        &t(vec![5., 5., 0., 5.], &[2, 2]),
        &t(vec![0.5], &[1]),
    )
    .unwrap();
    assert_eq!(gt.to_vec(), vec![-1.]);
    assert_eq!(ga.to_vec(), vec![0., 0., -1., 0.]);
}

#[test]
fn lu_backward_without_upstream_gradients_is_zero() {
    let a = t(vec![2., 1., 4., 3.], &[2, 2]);
    let (p, l, u) = linalg::lu(&a);
    let z = t(vec![0.; 4], &[2, 2]);
    // L and U unused: no gradient.
    let g = oracle::lu_backward(&z, &z, &p, &l, &u).unwrap();
    assert_eq!(g.to_vec(), vec![0.; 4]);
}

#[test]
fn eig_backward_of_a_diagonal_matrix() {
    // A = diag(1, 2): the gradient of λ₁ + 3 λ₂ is diag(1, 3).
    let (l, z2) = (t(vec![1., 2.], &[2]), t(vec![0.; 2], &[2]));
    let (v, z4) = (t(vec![1., 0., 0., 1.], &[2, 2]), t(vec![0.; 4], &[2, 2]));
    let g = oracle::eig_backward(
        [&t(vec![1., 3.], &[2]), &z2],
        [&z4, &z4],
        [&l, &z2],
        [&v, &z4],
    )
    .unwrap();
    assert_eq!(g.to_vec(), vec![1., 0., 0., 3.]);
}
