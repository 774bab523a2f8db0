//! Sums of a 4096x4096 `f32` tensor: over the last dim (each output reduces
//! a contiguous row), over the first dim (each output reduces a column:
//! the outer loop, vectorised across outputs) and to (1, 4096) with
//! `sum_to` (the reduction behind every broadcast gradient). Compare with
//! `benches/compare_reduce.py`, the same in NumPy, run in the same session:
//!
//! ```text
//! cargo bench --bench reduce
//! .venv/bin/python benches/compare_reduce.py
//! ```

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use shaped::{Shape, Tensor};

type Square = Tensor<f32, Shape![4096, 4096]>;

fn sums(c: &mut Criterion) {
    // `deep_copy` allocates through the kernels' allocator, which asks for
    // transparent huge pages on large buffers, as NumPy does for its arrays;
    // a tensor straight from `rand` would sit on 4 KiB pages.
    let t = Square::rand(1).deep_copy();
    let mut g = c.benchmark_group("sum 4096x4096 f32");
    g.sample_size(30);
    g.bench_function("last dim", |b| b.iter(|| black_box(t.sum_dim::<1>())));
    g.bench_function("first dim", |b| b.iter(|| black_box(t.sum_dim::<0>())));
    g.bench_function("sum_to (1, 4096)", |b| {
        b.iter(|| black_box(t.sum_to::<Shape![1, 4096]>()))
    });
    g.bench_function("all", |b| b.iter(|| black_box(t.sum())));
    g.finish();
}

criterion_group!(benches, sums);
criterion_main!(benches);
