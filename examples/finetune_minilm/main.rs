//! Fine-tuning all-MiniLM-L6-v2, every one of its 22.7M parameters, with a
//! linear head on its mean-pooled embedding: cross-entropy, AdamW with
//! weight decay (none on biases and LayerNorm weights), gradient clipping to
//! global norm 1, and a linear warm-up then cosine learning-rate schedule.
//!
//! ```text
//! scripts/fetch_minilm.sh && scripts/fetch_vader.sh
//! cargo run --release --features safetensors --example finetune_minilm
//! ```
//!
//! The task: the sentiment of the 7,520 entries of the VADER lexicon
//! (words, slang, emoticons; positive when their mean human rating is above
//! zero), one entry in five held out. Hidden-state dropout 0.1 is on.
//!
//! `--check FILE` instead replays PyTorch's run of
//! scripts/minilm_finetune_reference.py (data/minilm/finetune_reference.json:
//! the same model, head, batches and hyper-parameters, dropout off) and
//! fails unless every step's loss and gradient norm, and every parameter's
//! gradient at step 1 (its norm, sum and first values), are within 1e-4
//! (relative) of PyTorch's.

#[path = "../sentence_embeddings/bert.rs"]
mod bert;
mod classifier;
#[path = "../sentence_embeddings/tokenize.rs"]
mod tokenize;

use std::path::{Path, PathBuf};
use std::time::Instant;

use shaped::autograd::no_grad;
use shaped::nn::{
    Adam, CrossEntropy, Linear, LrScheduler, Optimizer, Parameters, accuracy, clip_grad_norm,
    warmup_cosine,
};
use shaped::{Dyn, Tensor};

use classifier::{Classifier, load};

/// One batch: token ids and mask `(B, T)` padded to the longest, labels.
struct Batch {
    ids: Tensor<i64, (Dyn, Dyn)>,
    mask: Tensor<bool, (Dyn, Dyn)>,
    labels: Tensor<i64, (Dyn,)>,
}

impl Batch {
    /// A padded batch of token-id rows (pad id 0).
    fn new(rows: &[Vec<i64>], labels: Vec<i64>) -> Batch {
        let (b, t) = (rows.len(), rows.iter().map(Vec::len).max().unwrap_or(0));
        let mut ids = vec![0i64; b * t];
        let mut mask = vec![false; b * t];
        for (i, row) in rows.iter().enumerate() {
            ids[i * t..i * t + row.len()].copy_from_slice(row);
            mask[i * t..i * t + row.len()].fill(true);
        }
        Batch {
            ids: Tensor::try_from_vec(ids, &[b, t]).expect("(B, T) ids"),
            mask: Tensor::try_from_vec(mask, &[b, t]).expect("(B, T) mask"),
            labels: Tensor::try_from_vec(labels, &[b]).expect("(B,) labels"),
        }
    }
}

/// The hyper-parameters of a run.
struct Hyper {
    lr: f32,
    weight_decay: f32,
    max_norm: f32,
    warmup: usize,
    steps: usize,
}

/// What one step reports.
struct StepReport {
    loss: f32,
    grad_norm: f32,
}

/// Trains `model` for `hyper.steps` steps over `batch(step)`; `inspect` sees
/// each step's gradients before clipping.
fn train(
    model: &mut Classifier,
    hyper: &Hyper,
    mut batch: impl FnMut(usize) -> Batch,
    mut inspect: impl FnMut(usize, &Classifier, &shaped::autograd::Gradients<f32>),
    mut report: impl FnMut(usize, &StepReport),
) {
    let mut opt = Adam::adamw(hyper.lr)
        .weight_decay(hyper.weight_decay)
        .no_decay(&*model, |name| {
            name.ends_with("bias") || name.contains("LayerNorm")
        });
    let mut schedule = LrScheduler::new(&mut opt, warmup_cosine(hyper.warmup, hyper.steps));
    for step in 0..hyper.steps {
        let b = batch(step);
        let loss = CrossEntropy::new().loss(&model.forward(&b.ids, &b.mask), &b.labels);
        let mut grads = loss.backward();
        inspect(step, model, &grads);
        let grad_norm = clip_grad_norm(&*model, &mut grads, hyper.max_norm);
        opt.step(model, &grads);
        schedule.step(&mut opt);
        report(
            step,
            &StepReport {
                loss: loss.item(),
                grad_norm,
            },
        );
    }
}

fn model_dir() -> PathBuf {
    std::env::var_os("SHAPED_MINILM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/minilm/model"))
}

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().collect();
    match args.iter().position(|a| a == "--check") {
        Some(i) => {
            let file = args.get(i + 1).ok_or("--check needs a reference file")?;
            check(Path::new(file))
        }
        None => finetune(),
    }
}

/// The sentiment task: `(entry, positive)` pairs of the VADER lexicon.
fn vader() -> Result<Vec<(String, bool)>, String> {
    let path = std::env::var_os("SHAPED_VADER")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("target/vader/vader_lexicon.txt"));
    let text = std::fs::read_to_string(&path)
        .map_err(|e| format!("{}: {e} (run scripts/fetch_vader.sh)", path.display()))?;
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            let mut cols = l.split('\t');
            let (Some(word), Some(score)) = (cols.next(), cols.next()) else {
                return Err(format!("{}: malformed line {l:?}", path.display()));
            };
            let score: f64 = score
                .parse()
                .map_err(|e| format!("{}: {e} in {l:?}", path.display()))?;
            Ok((word.to_string(), score > 0.0))
        })
        .collect()
}

fn finetune() -> Result<(), String> {
    let dir = model_dir();
    let tok = tokenize::load(&dir).map_err(|e| format!("{e} (run scripts/fetch_minilm.sh)"))?;
    let data = vader()?;
    let encode = |items: &[&(String, bool)]| -> Result<Batch, String> {
        let texts: Vec<&str> = items.iter().map(|(w, _)| w.as_str()).collect();
        let t = tokenize::batch(&tok, &texts).map_err(|e| e.to_string())?;
        let labels = items.iter().map(|&&(_, y)| y as i64).collect();
        Ok(Batch {
            ids: t.ids,
            mask: t.mask,
            labels: Tensor::try_from_vec(labels, &[items.len()]).map_err(|e| e.to_string())?,
        })
    };
    // One entry in five held out, by position (the lexicon is sorted).
    let (held, train_set): (Vec<_>, Vec<_>) =
        data.iter().enumerate().partition(|(i, _)| i % 5 == 0);
    let held: Vec<&(String, bool)> = held.into_iter().map(|(_, x)| x).collect();
    let train_set: Vec<&(String, bool)> = train_set.into_iter().map(|(_, x)| x).collect();
    let batch_size = 32;
    let steps = std::env::var("FINETUNE_STEPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(train_set.len() / batch_size);
    let hyper = Hyper {
        lr: 5e-5,
        weight_decay: 0.01,
        max_norm: 1.0,
        warmup: steps / 10,
        steps,
    };
    // A seeded shuffle of the training entries (one epoch).
    let mut order: Vec<usize> = (0..train_set.len()).collect();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    for i in (1..order.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        order.swap(i, (state % (i as u64 + 1)) as usize);
    }

    let mut model = load(&dir, Linear::new(0))?;
    let evaluate = |model: &mut Classifier| -> Result<f64, String> {
        model.bert.eval();
        let _no_grad = no_grad();
        let mut correct = 0.0;
        for chunk in held.chunks(256) {
            let b = encode(chunk)?;
            let logits = model.forward(&b.ids, &b.mask);
            correct += accuracy(logits.value(), &b.labels) * chunk.len() as f64;
        }
        Ok(correct / held.len() as f64)
    };
    println!(
        "held-out accuracy before fine-tuning (random head): {:.1}%",
        100.0 * evaluate(&mut model)?
    );
    model.bert.train(0.1, 1);
    let start = Instant::now();
    let mut failure = None;
    train(
        &mut model,
        &hyper,
        |step| {
            let items: Vec<&(String, bool)> = order[step * batch_size..(step + 1) * batch_size]
                .iter()
                .map(|&i| train_set[i])
                .collect();
            encode(&items).unwrap_or_else(|e| {
                failure = Some(e);
                Batch::new(&[], vec![])
            })
        },
        |_, _, _| {},
        |step, r| {
            if step % 20 == 0 || step + 1 == hyper.steps {
                println!(
                    "step {step:4}/{}  loss {:.4}  grad norm {:.3}  {:.2} s/step",
                    hyper.steps,
                    r.loss,
                    r.grad_norm,
                    start.elapsed().as_secs_f64() / (step + 1) as f64
                );
            }
        },
    );
    if let Some(e) = failure {
        return Err(e);
    }
    println!(
        "held-out accuracy after {} steps: {:.1}% ({} entries)",
        hyper.steps,
        100.0 * evaluate(&mut model)?,
        held.len()
    );
    Ok(())
}

/// The reference run's data.
fn floats(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .map(|a| a.iter().filter_map(serde_json::Value::as_f64).collect())
        .unwrap_or_default()
}

/// The rows of a JSON array of integer arrays.
fn integers(v: &serde_json::Value) -> Vec<Vec<i64>> {
    let row = |r: &serde_json::Value| {
        r.as_array()
            .into_iter()
            .flatten()
            .filter_map(serde_json::Value::as_i64)
            .collect()
    };
    v.as_array().into_iter().flatten().map(row).collect()
}

/// Replays PyTorch's run and compares.
fn check(file: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let r: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let num = |k: &str| r[k].as_f64().ok_or(format!("{k} missing"));
    let hyper = Hyper {
        lr: num("lr")? as f32,
        weight_decay: num("weight_decay")? as f32,
        max_norm: num("max_norm")? as f32,
        warmup: num("warmup")? as usize,
        steps: num("steps")? as usize,
    };
    let batches: Vec<Batch> = r["batches"]
        .as_array()
        .ok_or("batches missing")?
        .iter()
        .map(|b| {
            let (ids, mask) = (integers(&b["input_ids"]), integers(&b["attention_mask"]));
            // Keep each row's real tokens: `Batch::new` pads them again.
            let rows: Vec<Vec<i64>> = ids
                .iter()
                .zip(&mask)
                .map(|(r, m)| {
                    r.iter()
                        .zip(m)
                        .filter(|&(_, &m)| m == 1)
                        .map(|(&t, _)| t)
                        .collect()
                })
                .collect();
            let labels = b["labels"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| x.as_i64())
                .collect();
            Batch::new(&rows, labels)
        })
        .collect();
    let head = Linear::from_tensors(
        Tensor::from_vec(
            floats(&r["head"]["weight"])
                .iter()
                .map(|&x| x as f32)
                .collect(),
        ),
        Some(Tensor::from_vec(
            floats(&r["head"]["bias"])
                .iter()
                .map(|&x| x as f32)
                .collect(),
        )),
    );
    let mut model = load(&model_dir(), head)?;
    model.bert.train(0.0, 0);

    let mut worst: Vec<(String, f64)> = Vec::new();
    let mut fails = Vec::new();
    let (losses, norms) = (floats(&r["losses"]), floats(&r["grad_norms"]));
    // A difference is relative to the reference value, or, where that is
    // smaller, to the size the global gradient gives such a quantity: its
    // root mean square per element (norm / √22.7M, about 7e-4 at step 1)
    // for one element, times √n for the norm or sum of n elements (as
    // torch.testing's `atol` beside its `rtol`). The key projections'
    // biases need it: their gradient is exactly zero in exact arithmetic (a
    // constant added to every key's score cancels in the softmax), so both
    // sides hold only rounding noise there (about 1e-9).
    let total_params: usize = r["step1_grads"].as_object().map_or(1, |o| {
        o.values()
            .map(|v| v["numel"].as_u64().unwrap_or(0) as usize)
            .sum()
    });
    let rms = norms.first().copied().unwrap_or(1.0) / (total_params.max(1) as f64).sqrt();
    let mut judge = |what: String, ours: f64, theirs: f64, scale: f64| {
        let rel = (ours - theirs).abs() / scale.max(f64::MIN_POSITIVE);
        if rel > 1e-4 {
            fails.push(format!(
                "{what}: {ours} vs PyTorch {theirs} (relative {rel:.1e})"
            ));
        }
        worst.push((what, rel));
    };
    let step1 = &r["step1_grads"];
    let mut grads_checked = 0;
    let start = Instant::now();
    let mut rows = Vec::new();
    train(
        &mut model,
        &hyper,
        |step| {
            let b = &batches[step % batches.len()];
            Batch {
                ids: b.ids.clone(),
                mask: b.mask.clone(),
                labels: b.labels.clone(),
            }
        },
        |step, model, grads| {
            if step != 0 {
                return;
            }
            model.visit_named_params("", &mut |name, p| {
                let (Some(g), Some(want)) = (grads.wrt(p), step1.get(name)) else {
                    judge(format!("gradient of {name}"), 0.0, f64::NAN, 1.0);
                    return;
                };
                let g: Vec<f64> = g.to_vec().into_iter().map(f64::from).collect();
                let norm = g.iter().map(|x| x * x).sum::<f64>().sqrt();
                let want_norm = want["norm"].as_f64().unwrap_or(f64::NAN);
                let floor = rms * (g.len() as f64).sqrt();
                judge(
                    format!("|grad {name}|"),
                    norm,
                    want_norm,
                    want_norm.max(floor),
                );
                let sum: f64 = g.iter().sum();
                let want_sum = want["sum"].as_f64().unwrap_or(f64::NAN);
                judge(
                    format!("sum grad {name}"),
                    sum,
                    want_sum,
                    want_sum.abs().max(floor),
                );
                for (i, w) in floats(&want["first"]).into_iter().enumerate() {
                    judge(format!("grad {name}[{i}]"), g[i], w, w.abs().max(rms));
                }
                grads_checked += 1;
            });
        },
        |step, rep| {
            rows.push((step, rep.loss, losses[step], rep.grad_norm, norms[step]));
        },
    );
    let elapsed = start.elapsed();
    println!("step  loss (shaped)  loss (PyTorch)  grad norm (shaped)  grad norm (PyTorch)");
    for &(step, l, lt, n, nt) in &rows {
        println!("{:4}  {l:13.7}  {lt:14.7}  {n:18.6}  {nt:19.6}", step + 1);
        judge(
            format!("loss at step {}", step + 1),
            f64::from(l),
            lt,
            lt.abs(),
        );
        judge(
            format!("grad norm at step {}", step + 1),
            f64::from(n),
            nt,
            nt.abs(),
        );
    }
    worst.sort_by(|a, b| b.1.total_cmp(&a.1));
    println!(
        "{} steps in {:.1} s; {grads_checked} parameters' gradients checked at step 1; largest relative differences:",
        hyper.steps,
        elapsed.as_secs_f64()
    );
    for (what, rel) in worst.iter().take(5) {
        println!("  {rel:.2e}  {what}");
    }
    if grads_checked != step1.as_object().map_or(0, |o| o.len()) {
        fails.push(format!(
            "{grads_checked} parameters checked, the reference has {}",
            step1.as_object().map_or(0, |o| o.len())
        ));
    }
    if fails.is_empty() {
        println!("ok: every loss, gradient norm and step-1 gradient within 1e-4 of PyTorch");
        Ok(())
    } else {
        Err(format!(
            "{} differences over 1e-4:\n{}",
            fails.len(),
            fails.join("\n")
        ))
    }
}
