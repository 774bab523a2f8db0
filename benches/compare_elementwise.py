#!/usr/bin/env python3
"""Runs the elementwise benchmark cases in shaped, NumPy and PyTorch (CPU) in
one session and prints the table with ratios and the fraction of the STREAM
add bandwidth measured in the same run.

Usage (from the repository root):  python3 benches/compare_elementwise.py [ROUNDS=5]
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


def median_ns(fn, reps=30, inner=1):
    """Median time per call over `reps` batches of `inner` calls, after
    max(inner, 10) warm-up calls (as examples/bench_elementwise.rs does: a
    64 MiB output reaches its steady speed only after several passes)."""
    for _ in range(max(inner, 10)):
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
    # The transcendental operations, each into a new tensor (NumPy has
    # only `exp`, `tanh`, the trigonometric ones and `pow` of them); `sin`,
    # `cos`, `tan` on [-50, 50).
    if lib == "numpy":
        r["exp_alloc"] = median_ns(lambda: np.exp(a))
        r["tanh_alloc"] = median_ns(lambda: np.tanh(a))
        w = (a - 0.5) * 100
        r["sin_alloc"] = median_ns(lambda: np.sin(w))
        r["cos_alloc"] = median_ns(lambda: np.cos(w))
        r["tan_alloc"] = median_ns(lambda: np.tan(w))
        r["pow_alloc"] = median_ns(lambda: np.power(a, b))
        r["atan2_alloc"] = median_ns(lambda: np.arctan2(a, b))
    else:
        F = torch.nn.functional
        r["exp_alloc"] = median_ns(lambda: torch.exp(a))
        r["tanh_alloc"] = median_ns(lambda: torch.tanh(a))
        r["sigmoid_alloc"] = median_ns(lambda: torch.sigmoid(a))
        r["silu_alloc"] = median_ns(lambda: F.silu(a))
        r["gelu_alloc"] = median_ns(lambda: F.gelu(a))
        r["softmax_last"] = median_ns(lambda: torch.softmax(a, 1))
        w = (a - 0.5) * 100
        r["sin_alloc"] = median_ns(lambda: torch.sin(w))
        r["cos_alloc"] = median_ns(lambda: torch.cos(w))
        r["tan_alloc"] = median_ns(lambda: torch.tan(w))
        r["pow_alloc"] = median_ns(lambda: torch.pow(a, b))
        r["atan2_alloc"] = median_ns(lambda: torch.atan2(a, b))
    return r


# Bytes each case moves through memory (f32), counting, as the hardware
# does, a read of every output line before it is written (write-allocate:
# plain stores first fetch the line). STREAM's own figure leaves that read
# out (it counts 3 arrays for `c = a + b`, while 4 cross the bus), so the
# bandwidth is recomputed here with the same accounting: STREAM add moves
# 4 arrays. Reported both ways: "% STREAM" uses this accounting, "% STREAM
# (as STREAM counts)" counts only the bytes the operation names.
MIB = 4096 * 4096 * 4
BYTES = {  # (named by the operation, moved including write-allocate)
    "same": (3 * MIB, 4 * MIB),
    "outer": (MIB + 2 * 4096 * 4, 2 * MIB + 2 * 4096 * 4),
    "row": (2 * MIB + 4096 * 4, 3 * MIB + 4096 * 4),
    "batch": (256 * 256 * 1024 * 4 + 2 * 256 * 1024 * 4, 2 * 256 * 256 * 1024 * 4 + 2 * 256 * 1024 * 4),
}
TRANSCENDENTAL = ["exp_alloc", "tanh_alloc", "sigmoid_alloc", "silu_alloc", "gelu_alloc",
                  "softmax_last", "sin_alloc", "cos_alloc", "tan_alloc", "pow_alloc",
                  "atan2_alloc"]
KEYS = ["same_alloc", "same_out", "outer_alloc", "outer_out", "row_alloc", "row_out",
        "batch_alloc", "batch_out", "small_alloc", "small_out"]


def run_shaped(exe, env):
    text = subprocess.check_output([exe], env=env, text=True)
    return {k: float(v) for k, v in (line.split("\t") for line in text.strip().splitlines())}


def main():
    ensure_venv()
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    env = dict(os.environ, RAYON_NUM_THREADS=str(THREADS))
    subprocess.check_call(["cargo", "build", "--release", "--quiet", "--example", "bench_elementwise"], cwd=ROOT)
    exe = os.path.join(ROOT, "target", "release", "examples", "bench_elementwise")
    # Rounds interleave the three libraries (the order rotating), so load
    # from other processes falls on all of them alike.
    runs = {"shaped": [], "numpy": [], "torch": []}
    libs = ["shaped", "numpy", "torch"]
    for r in range(rounds):
        for lib in libs[r % 3:] + libs[:r % 3]:
            runs[lib].append(run_shaped(exe, env) if lib == "shaped" else cases(lib))
    best = {lib: {k: min(run[k] for run in rs) for k in rs[0]} for lib, rs in runs.items()}
    med = {lib: {k: statistics.median(run[k] for run in rs) for k in rs[0]} for lib, rs in runs.items()}
    stream_named = max(run["stream_add_GBps"] for run in runs["shaped"])
    stream_moved = stream_named * 4 / 3
    import numpy, torch
    print(f"threads: {THREADS}; rounds: {rounds}; numpy {numpy.__version__}; torch {torch.__version__}")
    print(f"STREAM add (best round): {stream_named:.1f} GB/s as STREAM counts, {stream_moved:.1f} GB/s moved")
    print("per case: best round (median round) of each library; ratios of best rounds")
    print(f"| case | shaped | NumPy | PyTorch | NumPy/shaped | PyTorch/shaped | % STREAM | % STREAM (as STREAM counts) |")
    print("|---|---|---|---|---|---|---|---|")
    for k in KEYS:
        unit = "ns" if k.startswith("small") else "ms"
        scale = 1 if unit == "ns" else 1e6
        cell = lambda lib: f"{best[lib][k] / scale:.3g} ({med[lib][k] / scale:.3g}) {unit}"
        bw = bw_named = ""
        fam = k.split("_")[0]
        if fam in BYTES:
            named, moved = BYTES[fam]
            bw = f"{100 * moved / best['shaped'][k] / stream_moved:.0f}%"
            bw_named = f"{100 * named / best['shaped'][k] / stream_named:.0f}%"
        print(f"| {k} | {cell('shaped')} | {cell('numpy')} | {cell('torch')} | "
              f"{best['numpy'][k] / best['shaped'][k]:.2f} | {best['torch'][k] / best['shaped'][k]:.2f} | {bw} | {bw_named} |")
    loop = lambda k: f"{best['shaped'][k]:.3g} ({med['shaped'][k]:.3g}) ns"
    print(f"the small case as a plain Rust loop, same runs (best (median) round): "
          f"new Vec {loop('small_loop_alloc')}, existing {loop('small_loop_out')}")
    print()
    print("transcendental operations, 4096x4096 f32 into a new tensor: best round (median round), ms")
    print("| case | shaped | NumPy | PyTorch | NumPy/shaped | PyTorch/shaped |")
    print("|---|---|---|---|---|---|")
    for k in TRANSCENDENTAL:
        cell = lambda lib: f"{best[lib][k] / 1e6:.3g} ({med[lib][k] / 1e6:.3g})" if k in best[lib] else "-"
        ratio = lambda lib: f"{best[lib][k] / best['shaped'][k]:.2f}" if k in best[lib] else "-"
        print(f"| {k} | {cell('shaped')} | {cell('numpy')} | {cell('torch')} | {ratio('numpy')} | {ratio('torch')} |")


if __name__ == "__main__":
    main()
