//! Elementwise f32 additions, allocating (`&a + &b`) and into a preallocated
//! output (`add_out`), for the cases of issue 3. Side-by-side ratios against
//! NumPy and PyTorch come from `benches/compare_elementwise.py`, which runs
//! `examples/bench_elementwise.rs` with the same cases in one session.

use criterion::{Criterion, criterion_group, criterion_main};
use shaped::{Shape, Tensor};

fn elementwise(c: &mut Criterion) {
    let mut g = c.benchmark_group("add_f32");
    g.sample_size(10);
    let a = Tensor::<f32, Shape![4096, 4096]>::rand(1);
    let b = Tensor::<f32, Shape![4096, 4096]>::rand(2);
    let mut out = Tensor::<f32, Shape![4096, 4096]>::zeros();
    g.bench_function("4096x4096+4096x4096 alloc", |t| t.iter(|| &a + &b));
    g.bench_function("4096x4096+4096x4096 out", |t| {
        t.iter(|| a.add_out(&b, &mut out).unwrap())
    });
    let col = Tensor::<f32, Shape![4096, 1]>::rand(3);
    let row = Tensor::<f32, Shape![1, 4096]>::rand(4);
    g.bench_function("(4096,1)+(1,4096) alloc", |t| t.iter(|| &col + &row));
    g.bench_function("(4096,1)+(1,4096) out", |t| {
        t.iter(|| col.add_out(&row, &mut out).unwrap())
    });
    let v = Tensor::<f32, Shape![4096]>::rand(5);
    g.bench_function("(4096,4096)+(4096,) alloc", |t| t.iter(|| &a + &v));
    g.bench_function("(4096,4096)+(4096,) out", |t| {
        t.iter(|| a.add_out(&v, &mut out).unwrap())
    });
    let p = Tensor::<f32, Shape![256, 1, 1024]>::rand(6);
    let q = Tensor::<f32, Shape![1, 256, 1024]>::rand(7);
    let mut out3 = Tensor::<f32, Shape![256, 256, 1024]>::zeros();
    g.bench_function("(256,1,1024)+(1,256,1024) alloc", |t| t.iter(|| &p + &q));
    g.bench_function("(256,1,1024)+(1,256,1024) out", |t| {
        t.iter(|| p.add_out(&q, &mut out3).unwrap())
    });
    g.finish();
    let s = Tensor::<f32, Shape![8, 8]>::rand(8);
    let r = Tensor::<f32, Shape![8]>::rand(9);
    let mut o = Tensor::<f32, Shape![8, 8]>::zeros();
    c.bench_function("add_f32 (8,8)+(8,) alloc", |t| t.iter(|| &s + &r));
    c.bench_function("add_f32 (8,8)+(8,) out", |t| {
        t.iter(|| s.add_out(&r, &mut o).unwrap())
    });
}

criterion_group!(benches, elementwise);
criterion_main!(benches);
