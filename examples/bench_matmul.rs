//! Times `matmul` on the cases of `benches/matmul.rs` and prints GFLOP/s,
//! one case per line, for `benches/compare_matmul.py` to set beside NumPy
//! and PyTorch.
//!
//! Each case runs until it has taken about `SECONDS` (at least 3 runs,
//! after one warm-up), and reports the best and the median run; the output
//! is allocated by each run, as `torch.matmul` without `out=` does.
//!
//! ```text
//! cargo run --release --example bench_matmul [SECONDS [CASE...]]
//! case f32_256 best_gflops 150.2 median_gflops 140.7
//! ```
//!
//! With case names, only those cases run.

use std::time::Instant;

use shaped::{DynRank, Tensor};

/// (name, left sizes, right sizes)
const CASES: &[(&str, &[usize], &[usize])] = &[
    ("f32_256", &[256, 256], &[256, 256]),
    ("f32_1024", &[1024, 1024], &[1024, 1024]),
    ("f32_2048", &[2048, 2048], &[2048, 2048]),
    ("f32_batched_16x256", &[16, 256, 256], &[256, 256]),
    // The products of a BERT-small layer at batch 32 x 128 tokens
    // (all-MiniLM-L6-v2: projections 384 -> 384, FFN 384 -> 1536 -> 384).
    ("f32_4096x384x384", &[4096, 384], &[384, 384]),
    ("f32_4096x384x1536", &[4096, 384], &[384, 1536]),
    ("f32_4096x1536x384", &[4096, 1536], &[1536, 384]),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let seconds: f64 = args.first().map_or(2.0, |s| s.parse().expect("seconds"));
    let only = &args[args.len().min(1)..];
    for (name, ad, bd) in CASES {
        if !only.is_empty() && !only.iter().any(|o| o == name) {
            continue;
        }
        let a = Tensor::<f32, DynRank>::try_rand(ad, 1).expect("sizes");
        let b = Tensor::<f32, DynRank>::try_rand(bd, 2).expect("sizes");
        let (m, k) = (ad[ad.len() - 2], ad[ad.len() - 1]);
        let batch: usize = ad[..ad.len() - 2].iter().product();
        let flops = 2.0 * (batch * m * k * bd[1]) as f64;
        let _ = a.matmul(&b);
        let mut times = Vec::new();
        let start = Instant::now();
        while times.len() < 3 || (start.elapsed().as_secs_f64() < seconds && times.len() < 1000) {
            let t = Instant::now();
            let c = a.matmul(&b);
            times.push(t.elapsed().as_secs_f64());
            assert_eq!(c.dims()[c.rank() - 1], bd[1]);
        }
        times.sort_by(f64::total_cmp);
        let gflops = |t: f64| flops / t / 1e9;
        println!(
            "case {name} best_gflops {:.1} median_gflops {:.1}",
            gflops(times[0]),
            gflops(times[times.len() / 2])
        );
    }
}
