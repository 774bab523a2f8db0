#!/usr/bin/env python3
"""Runs the elementwise benchmark cases in shaped, NumPy and PyTorch (CPU) in
one session and prints the table with ratios and the fraction of the STREAM
add bandwidth measured in the same run.

Usage (from the repository root):  python3 benches/compare_elementwise.py
Creates .venv with numpy and torch on first use.
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
            subprocess.check_call([sys.executable, "-m", "venv", VENV])
            subprocess.check_call([py, "-m", "pip", "install", "-q", "numpy", "torch"])
        os.execv(py, [py] + sys.argv)


def median_ns(fn, reps=9, inner=1):
    for _ in range(inner):
        fn()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        for _ in range(inner):
            fn()
        ts.append((time.perf_counter_ns() - t0) / inner)
    return statistics.median(ts)


def cases(lib):
    if lib == "numpy":
        import numpy as np
        rand = lambda *s: np.random.default_rng(0).random(s, dtype=np.float32)
        add = np.add
        empty = lambda *s: np.empty(s, dtype=np.float32)
        out = lambda f, a, b, o: f(a, b, out=o)
    else:
        import torch
        torch.set_num_threads(THREADS)
        rand = lambda *s: torch.rand(*s, dtype=torch.float32)
        add = torch.add
        empty = lambda *s: torch.empty(*s, dtype=torch.float32)
        out = lambda f, a, b, o: f(a, b, out=o)
    a, b = rand(4096, 4096), rand(4096, 4096)
    o = empty(4096, 4096)
    col, row, v = rand(4096, 1), rand(1, 4096), rand(4096)
    p, q = rand(256, 1, 1024), rand(1, 256, 1024)
    o3 = empty(256, 256, 1024)
    s, t = rand(8, 8), rand(8)
    o8 = empty(8, 8)
    r = {}
    r["same_alloc"] = median_ns(lambda: a + b)
    r["same_out"] = median_ns(lambda: out(add, a, b, o))
    r["outer_alloc"] = median_ns(lambda: col + row)
    r["outer_out"] = median_ns(lambda: out(add, col, row, o))
    r["row_alloc"] = median_ns(lambda: a + v)
    r["row_out"] = median_ns(lambda: out(add, a, v, o))
    r["batch_alloc"] = median_ns(lambda: p + q)
    r["batch_out"] = median_ns(lambda: out(add, p, q, o3))
    r["small_alloc"] = median_ns(lambda: s + t, reps=21, inner=20000)
    r["small_out"] = median_ns(lambda: out(add, s, t, o8), reps=21, inner=20000)
    return r


# Bytes each case must move at least (f32): two inputs read, one output written.
MIB = 4096 * 4096 * 4
BYTES = {
    "same": 3 * MIB,
    "outer": MIB + 2 * 4096 * 4,
    "row": 2 * MIB + 4096 * 4,
    "batch": 256 * 256 * 1024 * 4 + 2 * 256 * 1024 * 4,
}


def main():
    ensure_venv()
    env = dict(os.environ, RAYON_NUM_THREADS=str(THREADS))
    subprocess.check_call(["cargo", "build", "--release", "--example", "bench_elementwise"], cwd=ROOT)
    exe = os.path.join(ROOT, "target", "release", "examples", "bench_elementwise")
    text = subprocess.check_output([exe], env=env, text=True)
    ours = {k: float(v) for k, v in (line.split("\t") for line in text.strip().splitlines())}
    np_r = cases("numpy")
    th_r = cases("torch")
    stream = ours["stream_add_GBps"]
    import numpy, torch
    print(f"threads: {THREADS}; numpy {numpy.__version__}; torch {torch.__version__}; STREAM add: {stream:.1f} GB/s")
    print(f"{'case':<12} {'shaped':>12} {'numpy':>12} {'torch':>12} {'np/shaped':>9} {'torch/shaped':>12} {'% STREAM':>9}")
    for k in ["same_alloc", "same_out", "outer_alloc", "outer_out", "row_alloc", "row_out",
              "batch_alloc", "batch_out", "small_alloc", "small_out"]:
        unit = "ns" if k.startswith("small") else "ms"
        scale = 1 if unit == "ns" else 1e6
        bw = ""
        fam = k.split("_")[0]
        if fam in BYTES:
            bw = f"{100 * BYTES[fam] / ours[k] / stream:.0f}%"
        print(f"{k:<12} {ours[k] / scale:>10.3f}{unit} {np_r[k] / scale:>10.3f}{unit} {th_r[k] / scale:>10.3f}{unit} "
              f"{np_r[k] / ours[k]:>9.2f} {th_r[k] / ours[k]:>12.2f} {bw:>9}")


if __name__ == "__main__":
    main()
