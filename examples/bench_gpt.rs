//! Training steps of the GPT of examples/gpt (nanoGPT's shape: 384 wide, 6
//! heads, block 256, tied head) for benches/compare_gpt.py: each step is
//! the forward pass, cross-entropy, backward, clipping to norm 1 and an
//! AdamW step, on fixed byte batches. Prints `gpt_step_ns<TAB>median`,
//! `compile_free_first_step_ns` and `peak_rss_kib`.
//!
//! Usage: bench_gpt [LAYERS=6] [BATCH=8] [STEPS=6]

#[path = "gpt/model.rs"]
mod model;

use shaped::Tensor;
use shaped::nn::{Adam, CrossEntropy, Optimizer, clip_grad_norm};
use shaped::shape::FixedDim;

use model::{Block, Gpt};

fn main() {
    let mut args = std::env::args()
        .skip(1)
        .map(|a| a.parse::<usize>().expect("a number"));
    let layers = args.next().unwrap_or(6);
    let batch = args.next().unwrap_or(8);
    let steps = args.next().unwrap_or(6);
    let t = Block::N;
    // Deterministic bytes in the printable range, as compare_gpt.py makes them.
    let bytes: Vec<i64> = (0..batch * (t + 1))
        .map(|i| 32 + ((i * 7919 + 13) % 95) as i64)
        .collect();
    let (mut x, mut y) = (Vec::new(), Vec::new());
    for b in 0..batch {
        let row = &bytes[b * (t + 1)..(b + 1) * (t + 1)];
        x.extend_from_slice(&row[..t]);
        y.extend_from_slice(&row[1..]);
    }
    let x = Tensor::<i64, (shaped::Dyn, Block)>::try_from_vec(x, &[batch, t]).unwrap();
    let y = Tensor::<i64, (shaped::Dyn, Block)>::try_from_vec(y, &[batch, t]).unwrap();
    let mut model = Gpt::new(layers, 0);
    let mut opt = Adam::adamw(3e-4f32).betas(0.9, 0.99).weight_decay(0.1);
    let mut step = || {
        let t0 = std::time::Instant::now();
        let loss = CrossEntropy::new().loss(&model.forward(&x), &y);
        let mut grads = loss.backward();
        clip_grad_norm(&model, &mut grads, 1.0);
        opt.step(&mut model, &grads);
        std::hint::black_box(loss.item());
        t0.elapsed().as_nanos()
    };
    let first = step();
    step();
    let mut ns: Vec<u128> = (0..steps).map(|_| step()).collect();
    ns.sort_unstable();
    println!("gpt_step_ns\t{}", ns[ns.len() / 2]);
    println!("params\t{}", model.num_params());
    println!("first_step_ns\t{first}");
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
        let kib: String = line.chars().filter(char::is_ascii_digit).collect();
        println!("peak_rss_kib\t{kib}");
    }
}
