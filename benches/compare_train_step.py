#!/usr/bin/env python3
"""One training step of a 784-256-10 MLP (ReLU) at batch 256 -- forward,
cross-entropy, backward, Adam -- in shaped (examples/bench_train_step.rs)
and in PyTorch (CPU, float32, same thread count), timed the same way
(median of 50 steps after 10 warm-up steps) in one session, with the ratio;
shaped also runs with its caching allocator off, for what the cache gives.

Usage (from the repository root):  python3 benches/compare_train_step.py [ROUNDS=3]
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
WARM_UP, REPS = 10, 50


def ensure_venv():
    py = os.path.join(VENV, "bin", "python")
    if sys.executable != py:
        if not os.path.exists(py):
            subprocess.check_call(["bash", os.path.join(ROOT, "scripts", "bench_env.sh")])
        os.execv(py, [py] + sys.argv)


def torch_step_ns():
    import torch

    torch.set_num_threads(THREADS)
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 10)
    )
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.rand(256, 784)
    y = torch.arange(256) * 7 % 10

    def step():
        opt.zero_grad(set_to_none=True)
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()

    for _ in range(WARM_UP):
        step()
    ts = []
    for _ in range(REPS):
        t0 = time.perf_counter_ns()
        step()
        ts.append(time.perf_counter_ns() - t0)
    return statistics.median(ts), torch.__version__


def shaped_step_ns(exe, cache=None):
    env = dict(os.environ, RAYON_NUM_THREADS=str(THREADS))
    if cache is not None:
        env["SHAPED_CPU_CACHE_BYTES"] = str(cache)
    out = subprocess.check_output([exe], env=env, text=True)
    name, ns = out.strip().split("\t")
    assert name == "train_step", out
    return float(ns)


def main():
    ensure_venv()
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    subprocess.check_call(
        ["cargo", "build", "--release", "--quiet", "--example", "bench_train_step"], cwd=ROOT
    )
    exe = os.path.join(ROOT, "target", "release", "examples", "bench_train_step")
    print(f"one training step, 784-256-10 MLP, batch 256, Adam; {THREADS} threads")
    print("(shaped uncached: SHAPED_CPU_CACHE_BYTES=0, the caching allocator off)")
    for r in range(rounds):
        ours = shaped_step_ns(exe)
        uncached = shaped_step_ns(exe, cache=0)
        theirs, version = torch_step_ns()
        print(
            f"round {r + 1}: shaped {ours / 1e6:8.3f} ms   uncached {uncached / 1e6:8.3f} ms"
            f"   torch {version} {theirs / 1e6:8.3f} ms   torch/shaped {theirs / ours:5.2f}"
        )


if __name__ == "__main__":
    main()
