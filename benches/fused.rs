//! Fused pointwise chains against the same chains op by op, for the cases
//! of issue 23. Side-by-side ratios against NumPy, PyTorch, numexpr,
//! `torch.compile` and JAX come from `benches/compare_fused.py`, which runs
//! `examples/bench_fused.rs` with the same cases in one session.

use criterion::{Criterion, criterion_group, criterion_main};
use shaped::{Shape, Tensor};

fn fused(c: &mut Criterion) {
    let mut g = c.benchmark_group("fused_f32");
    g.sample_size(10);
    let a = Tensor::<f32, Shape![4096, 4096]>::rand(1);
    let b = Tensor::<f32, Shape![4096]>::rand(2);
    let cc = Tensor::<f32, Shape![4096, 1]>::rand(3);
    let d = Tensor::<f32, Shape![4096]>::rand(4);
    let e = Tensor::<f32, Shape![4096, 1]>::rand(5);
    let mut out = Tensor::<f32, Shape![4096, 4096]>::zeros();
    g.bench_function("a + b (eager, the floor)", |t| t.iter(|| a.add(&b)));
    g.bench_function("relu(a*b+c) eager", |t| {
        t.iter(|| a.mul(&b).add(&cc).relu())
    });
    g.bench_function("relu(a*b+c) fused", |t| {
        t.iter(|| (a.lazy() * &b + &cc).relu().eval())
    });
    g.bench_function("relu(a*b+c) fused out", |t| {
        t.iter(|| (a.lazy() * &b + &cc).relu().eval_into(&mut out).unwrap())
    });
    g.bench_function("gelu(a*b+c)*d-e eager", |t| {
        t.iter(|| a.mul(&b).add(&cc).gelu().mul(&d).sub(&e))
    });
    g.bench_function("gelu(a*b+c)*d-e fused", |t| {
        t.iter(|| ((a.lazy() * &b + &cc).gelu() * &d - &e).eval())
    });
    g.bench_function("|relu(a*b+c)*d-e| fused", |t| {
        t.iter(|| ((a.lazy() * &b + &cc).relu() * &d - &e).abs().eval())
    });
    g.bench_function("|relu(a*b+c)*d-e| fused out", |t| {
        t.iter(|| {
            ((a.lazy() * &b + &cc).relu() * &d - &e)
                .abs()
                .eval_into(&mut out)
                .unwrap()
        })
    });
    g.bench_function("(a*b).sum(1) eager", |t| {
        t.iter(|| a.mul(&b).sum_dim::<1>())
    });
    g.bench_function("(a*b).sum(1) fused", |t| {
        t.iter(|| (a.lazy() * &b).sum_dim::<1>())
    });
    g.finish();
}

criterion_group!(benches, fused);
criterion_main!(benches);
