//! Fine-tuning steps of all-MiniLM-L6-v2 with a linear head
//! (examples/finetune_minilm) at a fixed batch shape, for
//! benches/compare_finetune.py: each step is the forward pass (dropout
//! off), cross-entropy, backward, clipping to norm 1 and an AdamW step over
//! all 22.7M parameters. Prints `finetune_step_ns<TAB>median` and
//! `peak_rss_kib`.
//!
//! Usage: bench_finetune MODEL_DIR [B=16] [T=128] [STEPS=5]

#[path = "sentence_embeddings/bench_batch.rs"]
mod bench_batch;
#[path = "sentence_embeddings/bert.rs"]
#[allow(dead_code)] // inference-only helpers
mod bert;
#[path = "finetune_minilm/classifier.rs"]
mod classifier;

use shaped::nn::{Adam, CrossEntropy, Linear, Optimizer, clip_grad_norm};
use shaped::{Dyn, Tensor};

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .expect("usage: bench_finetune MODEL_DIR [B] [T] [STEPS]");
    let mut num = |d: usize| args.next().map_or(d, |a| a.parse().expect("a number"));
    let (b, t, steps) = (num(16), num(128), num(5));
    let (ids, mask) = bench_batch::ids_and_mask(b, t);
    let labels =
        Tensor::<i64, (Dyn,)>::try_from_vec((0..b as i64).map(|i| i % 2).collect(), &[b]).unwrap();
    let mut model =
        classifier::load(std::path::Path::new(&dir), Linear::new(0)).expect("the model");
    let mut opt = Adam::adamw(1e-5f32);
    let mut step = || {
        let t0 = std::time::Instant::now();
        let loss = CrossEntropy::new().loss(&model.forward(&ids, &mask), &labels);
        let mut grads = loss.backward();
        clip_grad_norm(&model, &mut grads, 1.0);
        opt.step(&mut model, &grads);
        std::hint::black_box(loss.item());
        t0.elapsed().as_nanos()
    };
    for _ in 0..2 {
        step();
    }
    let mut ns: Vec<u128> = (0..steps).map(|_| step()).collect();
    ns.sort_unstable();
    println!("finetune_step_ns\t{}", ns[ns.len() / 2]);
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
        let kib: String = line.chars().filter(char::is_ascii_digit).collect();
        println!("peak_rss_kib\t{kib}");
    }
}
