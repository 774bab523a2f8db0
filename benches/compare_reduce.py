"""The NumPy side of benches/reduce.rs: the same sums of a 4096x4096 float32
array, timed the same way (best of several repeats of many calls), so that
the two can be compared in one session on the same machine.

    .venv/bin/python benches/compare_reduce.py
"""
import timeit

import numpy as np

a = np.random.default_rng(1).random((4096, 4096), dtype=np.float32)

cases = {
    "last dim": lambda: a.sum(axis=1),
    "first dim": lambda: a.sum(axis=0),
    "sum_to (1, 4096)": lambda: a.sum(axis=0, keepdims=True),
    "all": lambda: a.sum(),
}

print(f"numpy {np.__version__}")
for name, f in cases.items():
    n = 20
    best = min(timeit.repeat(f, number=n, repeat=7)) / n
    print(f"sum 4096x4096 f32/{name:18s} {best * 1e3:8.3f} ms")
