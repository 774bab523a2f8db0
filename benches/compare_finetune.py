#!/usr/bin/env python3
"""Fine-tuning steps of all-MiniLM-L6-v2 with a linear head on its
mean-pooled embedding, in shaped (examples/bench_finetune.rs over
examples/finetune_minilm) and in PyTorch -- eager and torch.compile (the
encoder compiled) -- on the same weights, token ids, labels and thread
count, in one session, with the ratios. A step: forward (dropout off),
cross-entropy, backward, clip_grad_norm_ to 1, AdamW over all 22.7M
parameters. Median step after two warm-up steps; compile time (the first
steps) reported apart. Peak RSS of each engine's process.

Usage (from the repository root):
    scripts/fetch_minilm.sh
    python3 benches/compare_finetune.py [B=16] [T=128] [STEPS=5]
"""
import json
import os
import subprocess
import sys

from compare_bert import MODEL, ROOT, THREADS, cpu_name, ensure_venv, token_ids

ENGINE = r"""
import json, resource, statistics, sys, time
import torch
from transformers import AutoModel
mode, model_dir, b, t, steps, threads = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:7])
ids = torch.tensor(json.loads(sys.argv[7])).view(b, t)
torch.set_num_threads(threads)
torch.manual_seed(0)
bert = AutoModel.from_pretrained(model_dir, hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
bert.train()
head = torch.nn.Linear(384, 2)
params = list(bert.parameters()) + list(head.parameters())
opt = torch.optim.AdamW(params, lr=1e-5)
mask = torch.ones(b, t, dtype=torch.long)
labels = torch.arange(b) % 2
enc = torch.compile(bert) if mode == "compile" else bert
def step():
    out = enc(input_ids=ids, attention_mask=mask).last_hidden_state
    m = mask.unsqueeze(-1).to(out.dtype)
    pooled = (out * m).sum(1) / m.sum(1).clamp(min=1e-9)
    loss = torch.nn.functional.cross_entropy(head(pooled), labels)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    return loss.item()
t0 = time.perf_counter(); step(); first = time.perf_counter() - t0
step()
times = []
for _ in range(steps):
    t0 = time.perf_counter(); step(); times.append(time.perf_counter() - t0)
print(json.dumps({"step_s": statistics.median(times), "first_s": first,
                  "peak_rss_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "torch": torch.__version__}))
"""


def main():
    ensure_venv()
    b, t, steps = (list(map(int, sys.argv[1:4])) + [16, 128, 5][len(sys.argv[1:4]):])[:3]
    subprocess.check_call(
        ["cargo", "build", "--release", "-q", "--features", "safetensors",
         "--example", "bench_finetune"], cwd=ROOT)
    env = dict(os.environ, RAYON_NUM_THREADS=str(THREADS))
    out = subprocess.check_output(
        [os.path.join(ROOT, "target", "release", "examples", "bench_finetune"), MODEL,
         str(b), str(t), str(steps)], env=env, text=True)
    ours = dict(line.split("\t") for line in out.strip().splitlines())
    shaped_s = int(ours["finetune_step_ns"]) / 1e9
    ids = json.dumps(token_ids(b, t))
    res = {}
    for mode in ["eager", "compile"]:
        o = subprocess.check_output(
            [sys.executable, "-c", ENGINE, mode, MODEL, str(b), str(t), str(steps), str(THREADS), ids],
            text=True)
        res[mode] = json.loads(o.strip().splitlines()[-1])
    tokens = b * t
    print(f"all-MiniLM-L6-v2 fine-tune step, batch {b} x {t}, f32, {THREADS} threads, "
          f"{cpu_name()}, torch {res['eager']['torch']}")
    print(f"{'engine':<16}{'step (ms)':>11}{'tokens/s':>10}{'shaped is':>11}{'peak RSS (MiB)':>16}")
    print(f"{'shaped':<16}{shaped_s * 1e3:11.0f}{tokens / shaped_s:10.0f}{'':>11}"
          f"{int(ours['peak_rss_kib']) / 1024:16.0f}")
    for mode, name in [("eager", "PyTorch eager"), ("compile", "torch.compile")]:
        s = res[mode]["step_s"]
        print(f"{name:<16}{s * 1e3:11.0f}{tokens / s:10.0f}{s / shaped_s:10.2f}x"
              f"{res[mode]['peak_rss_kib'] / 1024:16.0f}")
    print(f"torch.compile's first step (compiling): {res['compile']['first_s']:.1f} s")


if __name__ == "__main__":
    main()
