//! Timing harness for the elementwise benchmark cases, run side by side with
//! NumPy and PyTorch by `benches/compare_elementwise.py`. Prints one line per
//! case: `name<TAB>median nanoseconds per call`, plus a STREAM-style add
//! bandwidth measured in the same process. The cases after `small_out`
//! (other pointwise kinds, reductions) compare revisions
//! (`scripts/compare_revisions.sh`); of those, the transcendental
//! operations (`exp`, `tanh`, `sigmoid`, `silu`, `gelu`, `softmax`) are
//! timed in PyTorch (and NumPy, where it has them) too.
//!
//! `cargo run --release --example bench_elementwise`

use std::time::Instant;

use rayon::prelude::*;
use shaped::{Shape, Tensor};

/// Calls before timing starts: a 64 MiB output reaches its steady speed
/// only after several passes (the caches settle), in every library.
const WARM_UP: usize = 10;

/// Timed calls of each large case.
const REPS: usize = 30;

/// Median time per call of `f`, in nanoseconds, over `reps` timed batches of
/// `inner` calls each (after `max(inner, WARM_UP)` warm-up calls).
fn median_ns(reps: usize, inner: usize, mut f: impl FnMut()) -> f64 {
    for _ in 0..inner.max(WARM_UP) {
        f();
    }
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let start = Instant::now();
            for _ in 0..inner {
                f();
            }
            start.elapsed().as_nanos() as f64 / inner as f64
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2]
}

/// STREAM's add kernel, `c = a + b`, on 256 MiB arrays with the same threads
/// as the library; returns GB/s counting three arrays of traffic.
fn stream_add_gbs() -> f64 {
    let n = 64 << 20;
    let a = vec![1.0f32; n];
    let b = vec![2.0f32; n];
    let mut c = vec![0.0f32; n];
    let chunk = n / rayon::current_num_threads() / 4;
    let ns = median_ns(7, 1, || {
        c.par_chunks_mut(chunk)
            .zip(a.par_chunks(chunk).zip(b.par_chunks(chunk)))
            .for_each(|(c, (a, b))| {
                for ((c, a), b) in c.iter_mut().zip(a).zip(b) {
                    *c = a + b;
                }
            });
    });
    assert!(c.iter().all(|&x| x == 3.0));
    3.0 * (n * 4) as f64 / ns
}

fn main() {
    println!("stream_add_GBps\t{:.2}", stream_add_gbs());
    println!("threads\t{}", rayon::current_num_threads());

    let a = Tensor::<f32, Shape![4096, 4096]>::rand(1);
    let b = Tensor::<f32, Shape![4096, 4096]>::rand(2);
    let mut out = Tensor::<f32, Shape![4096, 4096]>::zeros();
    println!("same_alloc\t{:.0}", median_ns(REPS, 1, || drop(&a + &b)));
    println!(
        "same_out\t{:.0}",
        median_ns(REPS, 1, || a.add_out(&b, &mut out).unwrap())
    );

    let col = Tensor::<f32, Shape![4096, 1]>::rand(3);
    let row = Tensor::<f32, Shape![1, 4096]>::rand(4);
    println!(
        "outer_alloc\t{:.0}",
        median_ns(REPS, 1, || drop(&col + &row))
    );
    println!(
        "outer_out\t{:.0}",
        median_ns(REPS, 1, || col.add_out(&row, &mut out).unwrap())
    );

    let v = Tensor::<f32, Shape![4096]>::rand(5);
    println!("row_alloc\t{:.0}", median_ns(REPS, 1, || drop(&a + &v)));
    println!(
        "row_out\t{:.0}",
        median_ns(REPS, 1, || a.add_out(&v, &mut out).unwrap())
    );

    let p = Tensor::<f32, Shape![256, 1, 1024]>::rand(6);
    let q = Tensor::<f32, Shape![1, 256, 1024]>::rand(7);
    let mut out3 = Tensor::<f32, Shape![256, 256, 1024]>::zeros();
    println!("batch_alloc\t{:.0}", median_ns(REPS, 1, || drop(&p + &q)));
    println!(
        "batch_out\t{:.0}",
        median_ns(REPS, 1, || p.add_out(&q, &mut out3).unwrap())
    );

    let s = Tensor::<f32, Shape![8, 8]>::rand(8);
    let t = Tensor::<f32, Shape![8]>::rand(9);
    let mut o = Tensor::<f32, Shape![8, 8]>::zeros();
    println!(
        "small_alloc\t{:.1}",
        median_ns(21, 20_000, || drop(&s + &t))
    );
    println!(
        "small_out\t{:.1}",
        median_ns(21, 20_000, || s.add_out(&t, &mut o).unwrap())
    );
    // The same sum as a plain Rust loop, into a new `Vec` and into an
    // existing one: the yardstick of issue 36's small-op bar.
    let (sv, tv) = (s.to_vec(), t.to_vec());
    println!(
        "small_loop_alloc\t{:.1}",
        median_ns(21, 20_000, || {
            let v: Vec<f32> = (0..64).map(|i| sv[i] + tv[i % 8]).collect();
            drop(std::hint::black_box(v));
        })
    );
    let mut ov = vec![0.0f32; 64];
    println!(
        "small_loop_out\t{:.1}",
        median_ns(21, 20_000, || {
            for (i, o) in ov.iter_mut().enumerate() {
                *o = sv[i] + tv[i % 8];
            }
            std::hint::black_box(&mut ov);
        })
    );

    // Other kinds of pointwise op and the reductions, on the same data
    // (the before/after comparison of the op-table redesign runs these).
    println!("exp_alloc\t{:.0}", median_ns(REPS, 1, || drop(a.exp())));
    // The transcendental operations (the widest vectors), also timed in
    // PyTorch by `compare_elementwise.py`.
    println!("tanh_alloc\t{:.0}", median_ns(REPS, 1, || drop(a.tanh())));
    println!(
        "sigmoid_alloc\t{:.0}",
        median_ns(REPS, 1, || drop(a.sigmoid()))
    );
    println!("silu_alloc\t{:.0}", median_ns(REPS, 1, || drop(a.silu())));
    println!("gelu_alloc\t{:.0}", median_ns(REPS, 1, || drop(a.gelu())));
    println!(
        "softmax_last\t{:.0}",
        median_ns(REPS, 1, || drop(a.softmax_dim::<1>()))
    );
    // `sin`, `cos`, `tan` on [-50, 50) (past the first period, so that the
    // argument reduction works), `pow` and `atan2` on the [0, 1) data.
    let w = (&a - 0.5) * 100.0;
    println!("sin_alloc\t{:.0}", median_ns(REPS, 1, || drop(w.sin())));
    println!("cos_alloc\t{:.0}", median_ns(REPS, 1, || drop(w.cos())));
    println!("tan_alloc\t{:.0}", median_ns(REPS, 1, || drop(w.tan())));
    println!("pow_alloc\t{:.0}", median_ns(REPS, 1, || drop(a.pow(&b))));
    println!(
        "atan2_alloc\t{:.0}",
        median_ns(REPS, 1, || drop(a.atan2(&b)))
    );
    println!("gt_alloc\t{:.0}", median_ns(REPS, 1, || drop(a.gt(&b))));
    println!("scalar_mul\t{:.0}", median_ns(REPS, 1, || drop(&a * 2.0)));
    let mut c = a.clone();
    println!("add_inplace\t{:.0}", median_ns(REPS, 1, || c += &v));
    println!(
        "addcmul\t{:.0}",
        median_ns(REPS, 1, || drop(a.addcmul(&v, &col, 0.5)))
    );
    println!("sum_all\t{:.0}", median_ns(REPS, 1, || drop(a.sum())));
    println!(
        "sum_last\t{:.0}",
        median_ns(REPS, 1, || drop(a.sum_dim::<1>()))
    );
    println!(
        "sum_first\t{:.0}",
        median_ns(REPS, 1, || drop(a.sum_dim::<0>()))
    );
    println!(
        "max_last\t{:.0}",
        median_ns(REPS, 1, || drop(a.max_dim::<1>()))
    );
}
