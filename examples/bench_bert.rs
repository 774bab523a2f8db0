//! Forward passes of all-MiniLM-L6-v2 (examples/sentence_embeddings/bert.rs)
//! at fixed batch shapes, for benches/compare_bert.py: prints
//! `bert_BxT<TAB>median ns` and `sum_BxT<TAB>sum of the last hidden state`
//! (which compare_bert.py checks against candle's) per shape, and
//! `peak_rss_kib` at the end.
//!
//! Usage: bench_bert MODEL_DIR [BxT ...]   (default: 32x128 1x16)

#[path = "sentence_embeddings/bench_batch.rs"]
mod bench_batch;
#[path = "sentence_embeddings/bert.rs"]
#[allow(dead_code)] // sentence_embeddings: this bench stops at the hidden state
mod bert;

use shaped::autograd::no_grad;

fn main() {
    let mut args = std::env::args().skip(1);
    let dir = args.next().expect("usage: bench_bert MODEL_DIR [BxT ...]");
    let mut shapes: Vec<(usize, usize)> = args
        .map(|a| {
            let (b, t) = a.split_once('x').expect("BxT");
            (b.parse().expect("B"), t.parse().expect("T"))
        })
        .collect();
    if shapes.is_empty() {
        shapes = vec![(32, 128), (1, 16)];
    }
    let model = bert::Bert::load(&std::path::Path::new(&dir).join("model.safetensors"))
        .expect("model.safetensors");
    let _g = no_grad();
    for (b, t) in shapes {
        let (ids, mask) = bench_batch::ids_and_mask(b, t);
        let reps = if b * t >= 1024 { 5 } else { 50 };
        for _ in 0..2 {
            std::hint::black_box(model.forward(&ids, &mask));
        }
        let mut ns: Vec<u128> = (0..reps)
            .map(|_| {
                let t0 = std::time::Instant::now();
                std::hint::black_box(model.forward(&ids, &mask));
                t0.elapsed().as_nanos()
            })
            .collect();
        ns.sort_unstable();
        println!("bert_{b}x{t}\t{}", ns[ns.len() / 2]);
        println!("sum_{b}x{t}\t{}", model.forward(&ids, &mask).sum().item());
    }
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    if let Some(line) = status.lines().find(|l| l.starts_with("VmHWM:")) {
        let kib: String = line.chars().filter(char::is_ascii_digit).collect();
        println!("peak_rss_kib\t{kib}");
    }
}
