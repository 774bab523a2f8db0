//! Forward passes of all-MiniLM-L6-v2 in candle (candle-transformers'
//! `BertModel`, f32, CPU) at fixed batch shapes, for
//! benches/compare_bert.py, timed as shaped's examples/bench_bert.rs times
//! its own: the same token ids (`[CLS] words [SEP]` rows, no padding, an
//! all-ones mask), two warm-up passes, then the median of 5 passes (B x T
//! >= 1024) or 50. Prints `bert_BxT<TAB>median ns` and
//! `sum_BxT<TAB>sum of the last hidden state` per shape, then
//! `peak_rss_kib<TAB>VmHWM`.
//!
//! Usage: candle_bert MODEL_DIR [BxT ...]   (default: 32x128 1x16)

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};

/// benches/compare_bert.py's `token_ids` (and shaped's bench_batch.rs).
fn token_ids(b: usize, t: usize) -> Vec<u32> {
    (0..b * t)
        .map(|i| match i % t {
            0 => 101,
            j if j == t - 1 => 102,
            j => 1000 + ((i * 7919 + j * 104729) % 28000) as u32,
        })
        .collect()
}

fn main() -> candle_core::Result<()> {
    let mut args = std::env::args().skip(1);
    let dir =
        std::path::PathBuf::from(args.next().expect("usage: candle_bert MODEL_DIR [BxT ...]"));
    let mut shapes: Vec<(usize, usize)> = args
        .map(|a| {
            let (b, t) = a.split_once('x').expect("BxT");
            (b.parse().expect("B"), t.parse().expect("T"))
        })
        .collect();
    if shapes.is_empty() {
        shapes = vec![(32, 128), (1, 16)];
    }
    let config: Config = serde_json::from_str(
        &std::fs::read_to_string(dir.join("config.json")).expect("config.json"),
    )
    .expect("a BERT config");
    let device = Device::Cpu;
    // SAFETY (candle's contract for memory-mapped weights): the file is
    // not modified while the model lives.
    let vb = unsafe {
        VarBuilder::from_mmaped_safetensors(&[dir.join("model.safetensors")], DType::F32, &device)?
    };
    let model = BertModel::load(vb, &config)?;
    for (b, t) in shapes {
        let ids = Tensor::from_vec(token_ids(b, t), (b, t), &device)?;
        let types = ids.zeros_like()?;
        let mask = ids.ones_like()?;
        let run = || model.forward(&ids, &types, Some(&mask));
        let reps = if b * t >= 1024 { 5 } else { 50 };
        for _ in 0..2 {
            std::hint::black_box(run()?);
        }
        let mut ns = Vec::with_capacity(reps);
        for _ in 0..reps {
            let t0 = std::time::Instant::now();
            std::hint::black_box(run()?);
            ns.push(t0.elapsed().as_nanos());
        }
        ns.sort_unstable();
        println!("bert_{b}x{t}\t{}", ns[ns.len() / 2]);
        let sum = run()?.sum_all()?.to_scalar::<f32>()?;
        println!("sum_{b}x{t}\t{sum}");
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
        let kib: String = line.chars().filter(char::is_ascii_digit).collect();
        println!("peak_rss_kib\t{kib}");
    }
    Ok(())
}
