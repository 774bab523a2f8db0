//! Times batched 64x64 `inv`, `solve` and `svd` (batch 256, f64) and prints
//! one line per operation: `name median_ms`. `benches/compare_linalg.py`
//! runs the same in NumPy and prints the ratios.
//!
//! `cargo run --release --example bench_linalg`

use std::time::Instant;

use shaped::{DynRank, Tensor, linalg};

fn median_ms(mut f: impl FnMut(), reps: usize) -> f64 {
    f();
    let mut t: Vec<f64> = (0..reps)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_secs_f64() * 1e3
        })
        .collect();
    t.sort_by(f64::total_cmp);
    t[reps / 2]
}

fn main() {
    let (batch, n, k) = (256, 64, 64);
    let mut a = Tensor::<f64, DynRank>::try_randn(&[batch, n, n], 1)
        .unwrap()
        .to_vec();
    for b in 0..batch {
        for i in 0..n {
            a[b * n * n + i * n + i] += n as f64;
        }
    }
    let a = Tensor::<f64, DynRank>::try_from_vec(a, &[batch, n, n]).unwrap();
    let b = Tensor::<f64, DynRank>::try_randn(&[batch, n, k], 2).unwrap();
    let reps = 15;
    println!("inv {:.3}", median_ms(|| drop(linalg::inv(&a)), reps));
    println!(
        "solve {:.3}",
        median_ms(|| drop(linalg::solve(&a, &b)), reps)
    );
    println!("svd {:.3}", median_ms(|| drop(linalg::svd(&a)), reps));
}
