"""Runs examples/bench_linalg.rs and the same batched 64x64 operations in
NumPy (batch 256, float64) in one session, and prints the times and the
ratios shaped / NumPy (below 1: shaped is faster).

From the repository root: .venv/bin/python benches/compare_linalg.py
"""

import os
import subprocess
import time

import numpy as np


def median_ms(f, reps=15):
    f()
    times = []
    for _ in range(reps):
        s = time.perf_counter()
        f()
        times.append((time.perf_counter() - s) * 1e3)
    return sorted(times)[reps // 2]


def numpy_times():
    batch, n, k = 256, 64, 64
    rng = np.random.default_rng(1)
    a = rng.standard_normal((batch, n, n)) + n * np.eye(n)
    b = rng.standard_normal((batch, n, k))
    return {
        "inv": median_ms(lambda: np.linalg.inv(a)),
        "solve": median_ms(lambda: np.linalg.solve(a, b)),
        "svd": median_ms(lambda: np.linalg.svd(a, full_matrices=False)),
    }


def shaped_times():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run(
        ["cargo", "run", "--release", "--quiet", "--example", "bench_linalg"],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return {line.split()[0]: float(line.split()[1]) for line in out.splitlines() if line.strip()}


def main():
    s = shaped_times()
    n = numpy_times()
    print(f"numpy {np.__version__}, {os.cpu_count()} cpus")
    print(f"{'op':<8}{'shaped ms':>12}{'numpy ms':>12}{'ratio':>8}")
    for op in ["inv", "solve", "svd"]:
        print(f"{op:<8}{s[op]:>12.3f}{n[op]:>12.3f}{s[op] / n[op]:>8.2f}")


if __name__ == "__main__":
    main()
