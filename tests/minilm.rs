//! all-MiniLM-L6-v2 end to end against Hugging Face `transformers`: the
//! token ids of the model's own tokenizer and the sentence embeddings of a
//! padded batch (mixed lengths, an empty string, accents, CJK, a sentence
//! longer than 128 tokens) match data/minilm/reference.json, produced by
//! scripts/minilm_reference.py with torch and transformers.
//!
//! The model comes from scripts/fetch_minilm.sh (target/minilm/model, or
//! `SHAPED_MINILM_DIR`). Without it the tests say "skipped"; CI fetches it
//! and sets `SHAPED_REQUIRE_MINILM=1`, under which a missing model fails.

#[path = "../examples/sentence_embeddings/bert.rs"]
#[allow(dead_code)]
mod bert;
#[path = "../examples/sentence_embeddings/tokenize.rs"]
mod tokenize;

use std::path::PathBuf;

use shaped::autograd::no_grad;
use shaped::io::safetensors::SafeTensorsFile;
use shaped::nn::{LoadOptions, load_safetensors};

fn model_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("SHAPED_MINILM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target/minilm/model"));
    if dir.join("model.safetensors").is_file() {
        return Some(dir);
    }
    if std::env::var_os("SHAPED_REQUIRE_MINILM").is_some() {
        panic!(
            "SHAPED_REQUIRE_MINILM is set but {} has no model.safetensors (run scripts/fetch_minilm.sh)",
            dir.display()
        );
    }
    println!(
        "skipped: no all-MiniLM-L6-v2 in {} (scripts/fetch_minilm.sh)",
        dir.display()
    );
    None
}

fn reference() -> serde_json::Value {
    let text = include_str!("../data/minilm/reference.json");
    serde_json::from_str(text).expect("reference.json")
}

fn sentences(r: &serde_json::Value) -> Vec<String> {
    r["sentences"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn token_ids_are_the_python_tokenizers() {
    let Some(dir) = model_dir() else { return };
    let r = reference();
    let sentences = sentences(&r);
    let refs: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let tok = tokenize::load(&dir).unwrap();
    let batch = tokenize::batch(&tok, &refs).unwrap();
    let t = batch.ids.dims()[1];
    let (ids, mask) = (batch.ids.to_vec(), batch.mask.to_vec());
    for (i, want) in r["input_ids"].as_array().unwrap().iter().enumerate() {
        let want: Vec<i64> = want
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        let got: Vec<i64> = (0..t)
            .filter(|&j| mask[i * t + j])
            .map(|j| ids[i * t + j])
            .collect();
        assert_eq!(got, want, "sentence {i}: {:?}", sentences[i]);
    }
    // The long sentence is cut at 128 tokens, [SEP] last.
    assert_eq!(t, 128);
}

#[test]
fn embeddings_match_transformers() {
    let Some(dir) = model_dir() else { return };
    let r = reference();
    let sentences = sentences(&r);
    let refs: Vec<&str> = sentences.iter().map(String::as_str).collect();
    let model = bert::Bert::load(&dir.join("model.safetensors")).unwrap();
    let tok = tokenize::load(&dir).unwrap();
    let batch = tokenize::batch(&tok, &refs).unwrap();
    let _g = no_grad();
    let hidden = model.forward(&batch.ids, &batch.mask);

    // Below the pooling: the first sentence's last hidden state.
    let h = hidden.value().to_vec();
    let t = batch.ids.dims()[1];
    for (j, row) in r["hidden_first"].as_array().unwrap().iter().enumerate() {
        for (c, want) in row.as_array().unwrap().iter().enumerate() {
            let (got, want) = (h[j * 384 + c], want.as_f64().unwrap() as f32);
            assert!(
                (got - want).abs() <= 1e-4,
                "hidden[0, {j}, {c}]: {got} vs {want}"
            );
        }
    }
    assert_eq!(h.len(), sentences.len() * t * 384);

    let emb = bert::sentence_embeddings(&hidden, &batch.mask)
        .value()
        .to_vec();
    let mut worst = 0f32;
    for (i, want) in r["embeddings"].as_array().unwrap().iter().enumerate() {
        for (c, w) in want.as_array().unwrap().iter().enumerate() {
            let err = (emb[i * 384 + c] - w.as_f64().unwrap() as f32).abs();
            worst = worst.max(err);
        }
    }
    println!("max abs error against transformers: {worst:e}");
    assert!(worst <= 1e-5, "max abs error {worst:e} > 1e-5");
}

#[test]
fn the_checkpoint_loads_strictly_by_name() {
    let Some(dir) = model_dir() else { return };
    let file = SafeTensorsFile::open(dir.join("model.safetensors")).unwrap();
    let model = bert::Bert::zeros();
    // Strict without ignoring the pooler: PyTorch's message names the extra keys.
    let e = load_safetensors(&model, &file, &LoadOptions::new()).unwrap_err();
    assert_eq!(
        e.to_string(),
        "Error(s) in loading state_dict for Bert:\n\tUnexpected key(s) in state_dict: \"embeddings.position_ids\", \"pooler.dense.bias\", \"pooler.dense.weight\". "
    );
    // A wrong rename: every layer's LayerNorm is missing, nothing is written.
    let before = model.encoder_norm_weight();
    let e = load_safetensors(
        &model,
        &file,
        &LoadOptions::new()
            .rename("LayerNorm", "layer_norm")
            .ignore("pooler.")
            .ignore("embeddings.position_ids"),
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("Error(s) in loading state_dict for Bert:\n\tMissing key(s) in state_dict: \"embeddings.layer_norm.weight\", \"embeddings.layer_norm.bias\", "), "{e}");
    assert!(
        e.contains("\n\tUnexpected key(s) in state_dict: \"embeddings.LayerNorm.bias\", "),
        "{e}"
    );
    assert_eq!(model.encoder_norm_weight(), before);
}
