//! The backward formulas of `shaped::linalg::grad` against central finite
//! differences in f64, on small batches.

use shaped::linalg::{self, grad};
use shaped::{DynRank, Tensor};

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
    let ga = grad::inv_backward(&t(g.clone(), &dims), &y)
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
    let ga = grad::det_backward(&t(g.clone(), &[3]), &at, &d)
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
    let (ga, gb) = grad::solve_backward(&t(g.clone(), &bd), &at, &x).unwrap();
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
    let ga = grad::cholesky_backward(&t(g.clone(), &dims), &l)
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
        let ga = grad::matrix_power_backward(&t(g.clone(), &dims), &t(a.clone(), &dims), k)
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
    let ga = grad::matrix_exp_backward(&t(g.clone(), &dims), &t(a.clone(), &dims))
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
            grad::solve_triangular_backward(&t(g.clone(), &bdims), &at, &x, tri).unwrap();
        for (i, &gi) in ga.to_vec().iter().enumerate() {
            close(gi, numeric(&a, i, &fa));
        }
        for (i, &gi) in gb.to_vec().iter().enumerate() {
            close(gi, numeric(&b, i, &fb));
        }
    }
}
