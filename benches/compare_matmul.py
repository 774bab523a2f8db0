#!/usr/bin/env python3
"""GFLOP/s of f32 matmul in shaped, NumPy (OpenBLAS) and PyTorch (CPU),
side by side, on 2 threads.

Runs the cases of benches/matmul.rs: 256^3, 1024^3, 2048^3 and the batch
(16, 256, 256) @ (256, 256). shaped's numbers come from
`cargo run --release --example bench_matmul`, run from here in the same
session. For each case the three libraries take turns, ROUNDS times (the
order rotating), each turn about SECONDS long, so that load from other
processes on this shared machine falls on all of them alike; each turn
gives the best and the median run, and the table keeps, per case and
library, the highest best and the highest median over the rounds.

    bash scripts/bench_env.sh          # once: .venv with numpy and torch
    .venv/bin/python benches/compare_matmul.py [ROUNDS] [SECONDS]
"""

import os
import platform
import subprocess
import sys
import time

THREADS = "2"
for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "RAYON_NUM_THREADS"):
    os.environ[var] = THREADS

import numpy as np  # noqa: E402  (after the thread settings)
import torch  # noqa: E402

torch.set_num_threads(int(THREADS))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CASES = [
    ("f32_256", (256, 256), (256, 256)),
    ("f32_1024", (1024, 1024), (1024, 1024)),
    ("f32_2048", (2048, 2048), (2048, 2048)),
    ("f32_batched_16x256", (16, 256, 256), (256, 256)),
]


def flops(ad, bd):
    batch = 1
    for d in ad[:-2]:
        batch *= d
    return 2.0 * batch * ad[-2] * ad[-1] * bd[-1]


def time_it(fn, work, seconds):
    """(best, median) GFLOP/s of `fn`: one warm-up, then at least 3 runs
    and about `seconds` in all."""
    fn()
    times = []
    start = time.perf_counter()
    while len(times) < 3 or (time.perf_counter() - start < seconds and len(times) < 1000):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    times.sort()
    return work / times[0] / 1e9, work / times[len(times) // 2] / 1e9


def inputs(module, ad, bd):
    if module == "numpy":
        rng = np.random.default_rng(0)
        return rng.random(ad, dtype=np.float32), rng.random(bd, dtype=np.float32)
    torch.manual_seed(0)
    return torch.rand(ad, dtype=torch.float32), torch.rand(bd, dtype=torch.float32)


def run_numpy(case, seconds):
    _, ad, bd = case
    a, b = inputs("numpy", ad, bd)
    return time_it(lambda: np.matmul(a, b), flops(ad, bd), seconds)


def run_torch(case, seconds):
    _, ad, bd = case
    a, b = inputs("torch", ad, bd)
    with torch.inference_mode():
        return time_it(lambda: torch.matmul(a, b), flops(ad, bd), seconds)


def build_shaped():
    subprocess.run(
        ["cargo", "build", "--release", "--quiet", "--example", "bench_matmul"],
        cwd=ROOT,
        check=True,
    )


def run_shaped(case, seconds):
    exe = os.path.join(ROOT, "target", "release", "examples", "bench_matmul")
    text = subprocess.run(
        [exe, str(seconds), case[0]], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    for line in text.splitlines():
        f = line.split()
        if len(f) == 6 and f[0] == "case" and f[1] == case[0]:
            return float(f[3]), float(f[5])
    raise RuntimeError(f"bench_matmul printed no result for {case[0]}: {text!r}")


def machine():
    model = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} logical CPUs, {THREADS} threads"


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 6
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 1.0
    build_shaped()
    libs = {"shaped": run_shaped, "numpy": run_numpy, "torch": run_torch}
    names = list(libs)
    best = {lib: {} for lib in libs}
    for case in CASES:
        for r in range(rounds):
            for lib in names[r % 3:] + names[: r % 3]:
                b, m = libs[lib](case, seconds)
                ob, om = best[lib].get(case[0], (0.0, 0.0))
                best[lib][case[0]] = (max(ob, b), max(om, m))
        print(f"{case[0]} done", file=sys.stderr)
    print(f"machine: {machine()}")
    print(f"numpy {np.__version__}, torch {torch.__version__}; GFLOP/s, best / median run")
    print()
    print("| case | shaped | NumPy | PyTorch | shaped / best other (best, median) |")
    print("|---|---|---|---|---|")
    for name, _, _ in CASES:
        s, n, t = best["shaped"][name], best["numpy"][name], best["torch"][name]
        rb = s[0] / max(n[0], t[0])
        rm = s[1] / max(n[1], t[1])
        cell = lambda x: f"{x[0]:.1f} / {x[1]:.1f}"  # noqa: E731
        print(f"| {name} | {cell(s)} | {cell(n)} | {cell(t)} | {rb:.2f}, {rm:.2f} |")


if __name__ == "__main__":
    main()
