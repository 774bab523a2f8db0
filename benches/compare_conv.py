#!/usr/bin/env python3
"""Convolutions in shaped (examples/bench_conv.rs) and in PyTorch (CPU,
float32, oneDNN, same thread count), timed the same way (median of REPS
runs after 2 warm-up runs) in one session, each case in shaped and then
in PyTorch back to back, with the ratio: a ResNet-18
basic block (conv3x3-BN-ReLU-conv3x3-BN + residual, ReLU; 64 channels,
56x56, batch 8) forward under no_grad and forward + backward, and a
depthwise 3x3 convolution (64 channels, groups 64) forward and forward +
backward.

Usage (from the repository root):  python3 benches/compare_conv.py [ROUNDS=2] [REPS=10]
Creates .venv with numpy and torch on first use (scripts/bench_env.sh).
"""
import os
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".venv")
THREADS = int(os.environ.get("BENCH_THREADS", os.cpu_count() or 2))


def ensure_venv():
    py = os.path.join(VENV, "bin", "python")
    if sys.executable != py:
        if not os.path.exists(py):
            subprocess.check_call(["bash", os.path.join(ROOT, "scripts", "bench_env.sh")])
        os.execv(py, [py] + sys.argv)


def median_ns(reps, f):
    f()
    f()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        f()
        ts.append(time.perf_counter_ns() - t0)
    return statistics.median(ts)


def torch_cases(reps):
    """PyTorch's cases, by name: each a function to time."""
    import torch
    import torch.nn as nn

    torch.set_num_threads(THREADS)
    torch.manual_seed(0)

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = nn.Conv2d(64, 64, 3, padding=1, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.conv2 = nn.Conv2d(64, 64, 3, padding=1, bias=False)
            self.bn2 = nn.BatchNorm2d(64)

        def forward(self, x):
            h = torch.relu(self.bn1(self.conv1(x)))
            return torch.relu(self.bn2(self.conv2(h)) + x)

    block = Block()
    x = torch.randn(8, 64, 56, 56, requires_grad=True)
    w = torch.randn(64, 1, 3, 3, requires_grad=True)

    def block_forward():
        with torch.no_grad():
            block(x)

    def block_train():
        block(x).sum().backward()

    def dw_forward():
        with torch.no_grad():
            torch.nn.functional.conv2d(x, w, padding=1, groups=64)

    def dw_train():
        torch.nn.functional.conv2d(x, w, padding=1, groups=64).sum().backward()

    cases = {
        "block_forward": block_forward,
        "block_train": block_train,
        "depthwise_forward": dw_forward,
        "depthwise_train": dw_train,
    }
    return cases, torch.__version__


def shaped_case(exe, reps, name):
    """shaped's median for the case `name` (bench_conv runs only it)."""
    env = dict(os.environ, RAYON_NUM_THREADS=str(THREADS))
    out = subprocess.check_output([exe, str(reps), name], env=env, text=True)
    return {n: float(ns) for n, ns in (l.split("\t") for l in out.strip().splitlines())}[name]


def main():
    ensure_venv()
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    subprocess.check_call(
        ["cargo", "build", "--release", "--quiet", "--example", "bench_conv"], cwd=ROOT
    )
    exe = os.path.join(ROOT, "target", "release", "examples", "bench_conv")
    print(f"convolutions, float32, {THREADS} threads, median of {reps}")
    cases, version = torch_cases(reps)
    for r in range(rounds):
        # Each case timed in shaped and then in PyTorch, back to back, so
        # that a slow minute on this machine falls on both engines rather
        # than on all of one engine's cases.
        for name, f in cases.items():
            ours = shaped_case(exe, reps, name)
            theirs = median_ns(reps, f)
            print(
                f"round {r + 1}  {name:18} shaped {ours / 1e6:9.2f} ms"
                f"   torch {version} {theirs / 1e6:9.2f} ms"
                f"   torch/shaped {theirs / ours:5.2f}"
            )


if __name__ == "__main__":
    main()
