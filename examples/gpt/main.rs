//! A GPT trained from scratch on real text: the Python source of docutils
//! (1.7 MB, from its pinned PyPI wheel: `scripts/fetch_corpus.sh`), byte
//! by byte, with a held-out tenth, periodic evaluation, a progress bar with
//! tokens/s, and samples from the trained model.
//!
//! ```text
//! scripts/fetch_corpus.sh
//! cargo run --release --example gpt                 # 4 layers, 300 steps
//! cargo run --release --example gpt -- --layers 6 --steps 2000 --batch 8
//! ```
//!
//! The model (examples/gpt/model.rs) is nanoGPT's: 384 wide, 6 heads,
//! block 256, exact GELU, tied output head. Training: AdamW (betas 0.9 and
//! 0.99, weight decay 0.1 on matrices and embeddings only), linear warm-up
//! then cosine decay to a tenth of the rate, gradient clipping to norm 1.
//! At the end the held-out loss is compared with the corpus's unigram
//! entropy (what a model that ignores context would reach).

mod model;

use std::path::PathBuf;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use shaped::autograd::no_grad;
use shaped::nn::{Adam, CrossEntropy, LrScheduler, Optimizer, clip_grad_norm, warmup_cosine};
use shaped::shape::FixedDim;
use shaped::{Dyn, Tensor};

use model::{Block, Gpt, Vocab};

/// Command-line settings.
struct Settings {
    layers: usize,
    steps: usize,
    batch: usize,
    lr: f32,
    eval_every: usize,
    eval_batches: usize,
    sample_tokens: usize,
    seed: u64,
}

impl Settings {
    fn parse() -> Result<Settings, String> {
        let mut s = Settings {
            layers: 4,
            steps: 300,
            batch: 8,
            lr: 1e-3,
            eval_every: 100,
            eval_batches: 8,
            sample_tokens: 300,
            seed: 1337,
        };
        let args: Vec<String> = std::env::args().skip(1).collect();
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let mut value =
                || -> Result<&String, String> { it.next().ok_or(format!("{flag} needs a value")) };
            let num = |v: &String| v.parse::<usize>().map_err(|e| format!("{flag}: {e}"));
            match flag.as_str() {
                "--layers" => s.layers = num(value()?)?,
                "--steps" => s.steps = num(value()?)?,
                "--batch" => s.batch = num(value()?)?,
                "--eval-every" => s.eval_every = num(value()?)?,
                "--eval-batches" => s.eval_batches = num(value()?)?,
                "--sample-tokens" => s.sample_tokens = num(value()?)?,
                "--seed" => s.seed = num(value()?)? as u64,
                "--lr" => s.lr = value()?.parse().map_err(|e| format!("--lr: {e}"))?,
                other => return Err(format!("unknown argument {other}")),
            }
        }
        if s.layers == 0 || s.batch == 0 || s.eval_every == 0 {
            return Err("--layers, --batch and --eval-every must be positive".into());
        }
        Ok(s)
    }
}

/// A small seeded generator (xorshift64*), for batch offsets.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % n as u64) as usize
    }
}

/// Token ids of a batch: `(B, Block)`.
type Ids = Tensor<i64, (Dyn, Block)>;

/// Ids `(B, Block)` and their next tokens `(B, Block)` at `b` random
/// offsets of `data`.
fn batch(data: &[u8], b: usize, rng: &mut Rng) -> (Ids, Ids) {
    let t = Block::N;
    let (mut x, mut y) = (Vec::with_capacity(b * t), Vec::with_capacity(b * t));
    for _ in 0..b {
        let o = rng.below(data.len() - t - 1);
        x.extend(data[o..o + t].iter().map(|&c| i64::from(c)));
        y.extend(data[o + 1..o + t + 1].iter().map(|&c| i64::from(c)));
    }
    (
        Tensor::try_from_vec(x, &[b, t]).expect("(B, Block)"),
        Tensor::try_from_vec(y, &[b, t]).expect("(B, Block)"),
    )
}

/// The entropy of the byte frequencies of `data`, in nats.
fn unigram_entropy(data: &[u8]) -> f64 {
    let mut counts = [0usize; 256];
    for &c in data {
        counts[c as usize] += 1;
    }
    let n = data.len() as f64;
    counts
        .iter()
        .filter(|&&c| c > 0)
        .map(|&c| {
            let p = c as f64 / n;
            -p * p.ln()
        })
        .sum()
}

/// The mean loss over `batches` held-out batches (the same ones each time).
fn evaluate(model: &Gpt, data: &[u8], s: &Settings) -> f32 {
    let _no_grad = no_grad();
    let mut rng = Rng(s.seed ^ 0x5eed);
    let mut total = 0.0;
    for _ in 0..s.eval_batches {
        let (x, y) = batch(data, s.batch, &mut rng);
        total += CrossEntropy::new().loss(&model.forward(&x), &y).item();
    }
    total / s.eval_batches as f32
}

/// `n` bytes sampled after `prompt`: temperature 0.8, the 40 most likely
/// bytes (`topk`), then `multinomial`.
fn sample(model: &Gpt, prompt: &[u8], n: usize, seed: u64) -> Vec<u8> {
    let _no_grad = no_grad();
    let mut text = prompt.to_vec();
    for i in 0..n {
        let start = text.len().saturating_sub(Block::N);
        let context: Vec<i64> = text[start..].iter().map(|&c| i64::from(c)).collect();
        let t = context.len();
        let ids =
            Tensor::<i64, (shaped::One, Dyn)>::try_from_vec(context, &[1, t]).expect("(1, T)");
        let logits = model.forward(&ids).into_value();
        // The last position's logits, over the vocabulary.
        let last: Tensor<f32, (Vocab,)> =
            Tensor::from_vec(logits.to_vec()[(t - 1) * Vocab::N..].to_vec());
        let (top, index) = (&last / 0.8).topk(40);
        let probs = top.softmax_dim::<0>();
        let pick = probs
            .multinomial(1, false, seed.wrapping_add(i as u64))
            .to_vec()[0];
        text.push(index.to_vec()[pick as usize] as u8);
    }
    text
}

fn corpus() -> Result<Vec<u8>, String> {
    let path = std::env::var_os("SHAPED_CORPUS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/corpus/docutils.txt"));
    let data = std::fs::read(&path)
        .map_err(|e| format!("{}: {e} (run scripts/fetch_corpus.sh)", path.display()))?;
    if data.len() < 20 * Block::N {
        return Err(format!(
            "{}: too short for block size {}",
            path.display(),
            Block::N
        ));
    }
    Ok(data)
}

fn main() -> Result<(), String> {
    let s = Settings::parse()?;
    let data = corpus()?;
    let split = data.len() * 9 / 10;
    let (train, held) = (&data[..split], &data[split..]);
    let entropy = unigram_entropy(train);

    let mut model = Gpt::new(s.layers, s.seed);
    println!(
        "GPT: {} layers, {:.2}M parameters; corpus {} bytes ({} held out), unigram entropy {entropy:.3} nats",
        s.layers,
        model.num_params() as f64 / 1e6,
        data.len(),
        held.len()
    );
    let mut opt = Adam::adamw(s.lr)
        .betas(0.9, 0.99)
        .weight_decay(0.1)
        .no_decay(&model, |name| {
            name.ends_with("bias") || name.contains("ln_")
        });
    let warmup = (s.steps / 10).max(1);
    let cosine = warmup_cosine(warmup, s.steps);
    let mut schedule = LrScheduler::new(&mut opt, move |step| 0.1 + 0.9 * cosine(step));

    let bar = ProgressBar::new(s.steps as u64);
    bar.set_style(
        ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}").map_err(|e| e.to_string())?,
    );
    let mut rng = Rng(s.seed);
    let start = Instant::now();
    let mut tokens = 0usize;
    let mut held_loss = f32::NAN;
    for step in 0..s.steps {
        let (x, y) = batch(train, s.batch, &mut rng);
        let loss = CrossEntropy::new().loss(&model.forward(&x), &y);
        let mut grads = loss.backward();
        clip_grad_norm(&model, &mut grads, 1.0);
        opt.step(&mut model, &grads);
        schedule.step(&mut opt);
        tokens += s.batch * Block::N;
        let rate = tokens as f64 / start.elapsed().as_secs_f64();
        bar.set_message(format!(
            "loss {:.3}  lr {:.1e}  {rate:.0} tokens/s",
            loss.item(),
            schedule.last_lr()
        ));
        bar.inc(1);
        if (step + 1) % s.eval_every == 0 || step + 1 == s.steps {
            held_loss = evaluate(&model, held, &s);
            // (`suspend`, not `bar.println`: the line shows when the bar is
            // hidden too, as under CI.)
            bar.suspend(|| {
                println!(
                    "step {:5}: train loss {:.3}, held-out loss {held_loss:.3} nats/byte",
                    step + 1,
                    loss.item()
                )
            });
        }
    }
    bar.finish();
    println!(
        "held-out loss {held_loss:.3} nats/byte = {:.2} x the unigram entropy ({entropy:.3}); {:.0} tokens/s",
        f64::from(held_loss) / entropy,
        tokens as f64 / start.elapsed().as_secs_f64()
    );
    let text = sample(&model, b"def ", s.sample_tokens, s.seed);
    println!("--- sample ---\n{}\n---", String::from_utf8_lossy(&text));
    Ok(())
}
