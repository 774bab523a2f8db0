//! The backward passes of `det`, `cholesky`, `solve_triangular`, `lu` and
//! `householder_product` on the CPU, each two ways on the same batch
//! (`f64`): the device-composed rule that autograd runs (`linalg/vjp.rs`:
//! batched inverses, triangular solves and matrix products over the whole
//! batch, the same code CUDA runs) and the per-matrix faer formula that
//! autograd ran before, now the tests' oracle
//! (`tests/common/linalg_oracle.rs`, one matrix per rayon task). Both
//! include the same forward pass. Compare with
//! `benches/compare_linalg_grad.py`, the same gradients in PyTorch, run in
//! the same session:
//!
//! ```text
//! cargo bench --bench linalg_grad
//! .venv/bin/python benches/compare_linalg_grad.py
//! ```

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use shaped::autograd::{Var, linalg as ag};
use shaped::linalg::{self, Triangle};
use shaped::{DynRank, Tensor};

#[path = "../tests/common/linalg_oracle.rs"]
mod oracle;

type D = Tensor<f64, DynRank>;

/// Matrices `(batch, m, n)`: a fixed pseudo-random pattern in `[-1, 1)`
/// plus `diag` on the main diagonal.
fn mats(batch: usize, m: usize, n: usize, diag: f64) -> D {
    let mut s = 0x9e37_79b9_7f4a_7c15_u64;
    let v = (0..batch * m * n)
        .map(|e| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let u = (s >> 11) as f64 / (1u64 << 53) as f64 * 2. - 1.;
            if (e / n) % m == e % n { u + diag } else { u }
        })
        .collect();
    D::try_from_vec(v, &[batch, m, n]).unwrap()
}

/// The gradient of `Σ out` with respect to `p`, through autograd.
fn backward(p: &Var<f64, DynRank>, out: &Var<f64, DynRank>) -> D {
    out.sum().backward().wrt(p).unwrap()
}

fn grads(c: &mut Criterion) {
    for (batch, n) in [(256, 8), (64, 64)] {
        let a = mats(batch, n, n, n as f64);
        let spd = a.matmul(&a.permute::<DynRank>(&[0, 2, 1]).unwrap());
        let b = mats(batch, n, n, 0.);
        let tri = Triangle {
            upper: true,
            unit: false,
        };
        let ones = |d: &[usize]| D::try_from_vec(vec![1.; d.iter().product()], d).unwrap();
        let tau = mats(1, batch, n, 0.)
            .try_reshape::<DynRank>(&[batch as isize, n as isize])
            .unwrap();
        let mut g = c.benchmark_group(format!("linalg backward {batch}x{n}x{n} f64"));
        g.sample_size(20);
        let p = Var::param(a.share());
        g.bench_function("det composed", |bn| {
            bn.iter(|| black_box(backward(&p, &ag::det(&p))))
        });
        g.bench_function("det per-matrix", |bn| {
            bn.iter(|| {
                let d = linalg::det(&a);
                black_box(oracle::det_backward(&ones(d.dims()), &a, &d).unwrap())
            })
        });
        let ps = Var::param(spd.share());
        g.bench_function("cholesky composed", |bn| {
            bn.iter(|| black_box(backward(&ps, &ag::cholesky(&ps))))
        });
        g.bench_function("cholesky per-matrix", |bn| {
            bn.iter(|| {
                let l = linalg::cholesky(&spd);
                black_box(oracle::cholesky_backward(&ones(l.dims()), &l).unwrap())
            })
        });
        let pb = Var::param(b.share());
        g.bench_function("solve_triangular composed", |bn| {
            bn.iter(|| black_box(backward(&pb, &ag::solve_triangular(&p, &pb, tri))))
        });
        g.bench_function("solve_triangular per-matrix", |bn| {
            bn.iter(|| {
                let x = linalg::solve_triangular(&a, &b, tri);
                black_box(oracle::solve_triangular_backward(&ones(x.dims()), &a, &x, tri).unwrap())
            })
        });
        g.bench_function("lu composed", |bn| {
            bn.iter(|| {
                let (_, l, u) = ag::lu(&p);
                black_box(l.sum().add(&u.sum()).backward().wrt(&p).unwrap())
            })
        });
        g.bench_function("lu per-matrix", |bn| {
            bn.iter(|| {
                let (pm, l, u) = linalg::lu(&a);
                let (l, u) = (l.into_dyn(), u.into_dyn());
                black_box(
                    oracle::lu_backward(&ones(l.dims()), &ones(u.dims()), &pm.into_dyn(), &l, &u)
                        .unwrap(),
                )
            })
        });
        let pt = Var::param(tau.share());
        g.bench_function("householder_product composed", |bn| {
            bn.iter(|| black_box(backward(&pt, &ag::householder_product(&p, &pt))))
        });
        g.bench_function("householder_product per-matrix", |bn| {
            bn.iter(|| {
                let q = linalg::householder_product(&a, &tau);
                black_box(oracle::householder_product_backward(&ones(q.dims()), &a, &tau).unwrap())
            })
        });
        g.finish();
    }
}

criterion_group!(benches, grads);
criterion_main!(benches);
