#!/usr/bin/env python3
"""PyTorch's trajectory of a fine-tune of all-MiniLM-L6-v2, for
`examples/finetune_minilm --check` (data/minilm/finetune_reference.json).

Usage: python3 scripts/minilm_finetune_reference.py MODEL_DIR > data/minilm/finetune_reference.json

The run: BertModel (dropout off) with mean pooling and a linear head
384 -> 2 (seeded initialisation, stored here), cross-entropy, AdamW
(lr 1e-4, weight decay 0.01, none on biases and LayerNorm weights), gradient
clipping to global norm 1.0, transformers' get_cosine_schedule_with_warmup
(2 warm-up steps of 20), on fixed batches of labelled sentences (tokenized
here; the ids are stored, so the check does not depend on a tokenizer).
Recorded: the loss of every step, the global gradient norm of every step
(before clipping), and every parameter's gradient norm, sum and first
values at step 1. f32 throughout, 2 threads.
"""
import json
import sys

import torch
from transformers import AutoModel, AutoTokenizer, get_cosine_schedule_with_warmup

STEPS = 20
LR = 1e-4
WEIGHT_DECAY = 0.01
MAX_NORM = 1.0
WARMUP = 2

# Fixed labelled batches (1: positive, 0: negative), cycled over the steps.
BATCHES = [
    [("a wonderful, warm and funny film", 1), ("the plot was dull and far too long", 0),
     ("I loved every minute of it", 1), ("a tedious mess", 0)],
    [("brilliant acting and a clever script", 1), ("the worst meal I have had in years", 0),
     ("what a delightful surprise", 1), ("boring, predictable and badly written", 0)],
    [("service was quick and friendly", 1), ("the room was dirty and noisy", 0),
     ("great value, would come again", 1), ("never again: rude staff and cold food", 0)],
]


def main():
    model_dir = sys.argv[1]
    torch.manual_seed(0)
    torch.set_num_threads(2)
    tok = AutoTokenizer.from_pretrained(model_dir)
    bert = AutoModel.from_pretrained(
        model_dir, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0
    )
    bert.train()
    head = torch.nn.Linear(384, 2)
    # The pooler is not used (sentence-transformers pools the hidden states).
    named = [("bert." + n, p) for n, p in bert.named_parameters() if "pooler" not in n] + [
        ("head." + n, p) for n, p in head.named_parameters()
    ]
    no_decay = [n for n, _ in named if n.endswith("bias") or "LayerNorm" in n]
    groups = [
        {"params": [p for n, p in named if n not in no_decay], "weight_decay": WEIGHT_DECAY},
        {"params": [p for n, p in named if n in no_decay], "weight_decay": 0.0},
    ]
    opt = torch.optim.AdamW(groups, lr=LR)
    sched = get_cosine_schedule_with_warmup(opt, WARMUP, STEPS)
    head_init = {
        "weight": head.weight.detach().reshape(-1).tolist(),
        "bias": head.bias.detach().tolist(),
    }

    encoded = []
    for batch in BATCHES:
        enc = tok([s for s, _ in batch], padding=True, return_tensors="pt")
        labels = torch.tensor([y for _, y in batch])
        encoded.append((enc, labels))

    losses, norms, lrs = [], [], []
    step1 = None
    for step in range(STEPS):
        enc, labels = encoded[step % len(encoded)]
        out = bert(
            input_ids=enc["input_ids"],
            attention_mask=enc["attention_mask"],
            token_type_ids=torch.zeros_like(enc["input_ids"]),
        ).last_hidden_state
        mask = enc["attention_mask"].unsqueeze(-1).to(out.dtype)
        pooled = (out * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        loss = torch.nn.functional.cross_entropy(head(pooled), labels)
        opt.zero_grad()
        loss.backward()
        if step == 0:
            step1 = {
                n: {
                    "numel": p.numel(),
                    "norm": float(p.grad.norm()),
                    "sum": float(p.grad.sum()),
                    "first": [float(x) for x in p.grad.reshape(-1)[:4]],
                }
                for n, p in named
            }
        total = torch.nn.utils.clip_grad_norm_([p for _, p in named], MAX_NORM)
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
        losses.append(float(loss))
        norms.append(float(total))

    json.dump(
        {
            "steps": STEPS,
            "lr": LR,
            "weight_decay": WEIGHT_DECAY,
            "max_norm": MAX_NORM,
            "warmup": WARMUP,
            "batches": [
                {
                    "input_ids": enc["input_ids"].tolist(),
                    "attention_mask": enc["attention_mask"].tolist(),
                    "labels": labels.tolist(),
                }
                for enc, labels in encoded
            ],
            "head": head_init,
            "losses": losses,
            "grad_norms": norms,
            "lrs": lrs,
            "step1_grads": step1,
            "versions": {"torch": torch.__version__},
        },
        sys.stdout,
    )
    print()


if __name__ == "__main__":
    main()
