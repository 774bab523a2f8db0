#!/usr/bin/env python3
"""GPT training steps (nanoGPT's shape: 384 wide, 6 heads, block 256, exact
GELU, tied head; f32) in shaped (examples/bench_gpt.rs) and in PyTorch --
eager and torch.compile -- on the same byte batches and the same thread
count, in one session, with the ratios. A step is the forward pass,
cross-entropy, backward, clip_grad_norm_ to 1 and an AdamW step. Median
step time after two warm-up steps; torch.compile's compile time (its first
steps) is reported apart. Peak RSS of each engine's process.

Usage (from the repository root):
    python3 benches/compare_gpt.py [LAYERS=6] [BATCH=8] [STEPS=6]
Creates .venv with numpy and torch on first use (scripts/bench_env.sh, through
compare_bert.py's ensure_venv).
"""
import json
import os
import subprocess
import sys

from compare_bert import ROOT, THREADS, cpu_name, ensure_venv

# One engine per process, so that each one's peak RSS is its own.
ENGINE = r"""
import json, math, resource, statistics, sys, time
import torch
import torch.nn as nn
import torch.nn.functional as F
mode, layers, batch, steps, threads = sys.argv[1], *map(int, sys.argv[2:6])
torch.set_num_threads(threads)
torch.manual_seed(0)
W, H, T, V = 384, 6, 256, 256

class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(W), nn.LayerNorm(W)
        self.c_attn, self.c_proj = nn.Linear(W, 3 * W), nn.Linear(W, W)
        self.fc, self.proj = nn.Linear(W, 4 * W), nn.Linear(4 * W, W)
    def forward(self, x):
        B, T_, C = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(W, dim=2)
        q, k, v = (z.view(B, T_, H, C // H).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.c_proj(y.transpose(1, 2).contiguous().view(B, T_, C))
        return x + self.proj(F.gelu(self.fc(self.ln_2(x))))

class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(V, W), nn.Embedding(T, W)
        self.h = nn.ModuleList([Block() for _ in range(layers)])
        self.ln_f = nn.LayerNorm(W)
    def forward(self, idx):
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for b in self.h:
            x = b(x)
        return self.ln_f(x) @ self.wte.weight.t()

bytes_ = [32 + (i * 7919 + 13) % 95 for i in range(batch * (T + 1))]
data = torch.tensor(bytes_).view(batch, T + 1)
x, y = data[:, :T].contiguous(), data[:, 1:].contiguous()
model = GPT()
opt = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.99), weight_decay=0.1)
def step():
    loss = F.cross_entropy(fwd(x).view(-1, V), y.view(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return loss.item()
fwd = torch.compile(model) if mode == "compile" else model
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
    layers, batch, steps = (list(map(int, sys.argv[1:4])) + [6, 8, 6][len(sys.argv[1:4]):])[:3]
    subprocess.check_call(
        ["cargo", "build", "--release", "-q", "--example", "bench_gpt"], cwd=ROOT
    )
    env = dict(os.environ, RAYON_NUM_THREADS=str(THREADS), SHAPED_NUM_THREADS=str(THREADS))
    out = subprocess.check_output(
        [os.path.join(ROOT, "target", "release", "examples", "bench_gpt"),
         str(layers), str(batch), str(steps)], env=env, text=True)
    ours = dict(line.split("\t") for line in out.strip().splitlines())
    shaped_s = int(ours["gpt_step_ns"]) / 1e9
    res = {}
    for mode in ["eager", "compile"]:
        o = subprocess.check_output(
            [sys.executable, "-c", ENGINE, mode, str(layers), str(batch), str(steps), str(THREADS)],
            text=True)
        res[mode] = json.loads(o.strip().splitlines()[-1])
    tokens = batch * 256
    print(f"GPT training step, {layers} layers, batch {batch} x 256, f32, {THREADS} threads, "
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
