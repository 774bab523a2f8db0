//! Criterion benchmarks for `matmul`: f32 256^3, 1024^3 and 2048^3, and a
//! batch (16, 256, 256) @ (256, 256) whose right operand broadcasts.
//! Throughput counts floating-point operations (`2 m k n`), so criterion's
//! "Gelem/s" reads as GFLOP/s; `benches/README.md` gives
//! GFLOP/s side by side with NumPy and PyTorch (`compare_matmul.py`).

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use shaped::{DynRank, Tensor};

fn square(c: &mut Criterion) {
    let mut group = c.benchmark_group("matmul_f32");
    group.sample_size(10);
    for n in [256usize, 1024, 2048] {
        let a = Tensor::<f32, DynRank>::try_rand(&[n, n], 1).unwrap();
        let b = Tensor::<f32, DynRank>::try_rand(&[n, n], 2).unwrap();
        group.throughput(Throughput::Elements((2 * n * n * n) as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |bench, _| {
            bench.iter(|| a.matmul(&b))
        });
    }
    group.finish();
}

fn batched(c: &mut Criterion) {
    let mut group = c.benchmark_group("matmul_f32_batched");
    group.sample_size(10);
    let a = Tensor::<f32, DynRank>::try_rand(&[16, 256, 256], 1).unwrap();
    let b = Tensor::<f32, DynRank>::try_rand(&[256, 256], 2).unwrap();
    group.throughput(Throughput::Elements(2 * 16 * 256 * 256 * 256));
    group.bench_function("16x256x256@256x256", |bench| bench.iter(|| a.matmul(&b)));
    // The same batch with a batched right operand: no folding, one product
    // per batch entry, in parallel.
    let bb = Tensor::<f32, DynRank>::try_rand(&[16, 256, 256], 3).unwrap();
    group.bench_function("16x256x256@16x256x256", |bench| {
        bench.iter(|| a.matmul(&bb))
    });
    group.finish();
}

criterion_group!(benches, square, batched);
criterion_main!(benches);
