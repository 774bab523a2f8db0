#!/usr/bin/env python3
"""Runs the cases of examples/bench_cuda.rs in PyTorch on the same GPU and
prints one table: shaped's and PyTorch's median time per call, their ratio,
and each elementwise case's bandwidth as a fraction of the device-to-device
copy bandwidth that bench_cuda measured in its own run.

Usage, on the GPU machine (see scripts/build_gpu_tests.sh):
    ./bench_cuda > bench_cuda.tsv && python3 compare_cuda.py bench_cuda.tsv
"""
import statistics
import sys
import time

import torch

MiB = 1 << 20


def median_ns(fn, reps=21, inner=10):
    for _ in range(inner):
        fn()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        for _ in range(inner):
            fn()
        torch.cuda.synchronize()
        ts.append((time.perf_counter_ns() - t0) / inner)
    return statistics.median(ts)


def rand(*shape):
    return torch.rand(*shape, device="cuda", dtype=torch.float32)


def torch_cases():
    a, b = rand(4096, 4096), rand(4096, 4096)
    out = torch.empty(4096, 4096, device="cuda")
    col, row, v = rand(4096, 1), rand(1, 4096), rand(4096)
    p, q = rand(256, 1, 1024), rand(1, 256, 1024)
    out3 = torch.empty(256, 256, 1024, device="cuda")
    s, t, o = rand(8, 8), rand(8), torch.empty(8, 8, device="cuda")
    r = {
        "same_alloc": median_ns(lambda: a + b),
        "same_out": median_ns(lambda: torch.add(a, b, out=out)),
        "outer_alloc": median_ns(lambda: col + row),
        "outer_out": median_ns(lambda: torch.add(col, row, out=out)),
        "row_alloc": median_ns(lambda: a + v),
        "row_out": median_ns(lambda: torch.add(a, v, out=out)),
        "batch_alloc": median_ns(lambda: p + q, inner=5),
        "batch_out": median_ns(lambda: torch.add(p, q, out=out3), inner=5),
        "small_alloc": median_ns(lambda: s + t, inner=2000),
        "small_out": median_ns(lambda: torch.add(s, t, out=o), inner=2000),
    }
    c, d, e = rand(4096, 1), rand(4096), rand(4096, 1)
    gelu = torch.nn.functional.gelu
    r["add_fused_out"] = median_ns(lambda: torch.add(a, v, out=out))
    r["chain3_eager"] = median_ns(lambda: torch.relu(a * v + c))
    r["chain6_eager"] = median_ns(lambda: gelu(a * v + c) * d - e)
    r["sum1"] = median_ns(lambda: a.sum(1))
    r["mulsum1_eager"] = median_ns(lambda: (a * v).sum(1))
    # torch.compile (Inductor: one Triton kernel per chain), compile time
    # excluded (each function is warmed up first) and reported.
    f3 = torch.compile(lambda a, b, c: torch.relu(a * b + c))
    f6 = torch.compile(lambda a, b, c, d, e: gelu(a * b + c) * d - e)
    f6m = torch.compile(lambda a, b, c, d, e: (torch.relu(a * b + c) * d - e).abs())
    fs = torch.compile(lambda a, b: (a * b).sum(1))
    t0 = time.perf_counter()
    f3(a, v, c), f6(a, v, c, d, e), f6m(a, v, c, d, e), fs(a, v)
    torch.cuda.synchronize()
    r["inductor_compile_s"] = time.perf_counter() - t0
    r["chain3_fused"] = median_ns(lambda: f3(a, v, c))
    r["chain6_fused"] = median_ns(lambda: f6(a, v, c, d, e))
    r["chain6m_fused_out"] = median_ns(lambda: f6m(a, v, c, d, e))
    r["mulsum1_fused"] = median_ns(lambda: fs(a, v))
    for n in (256, 1024, 2048):
        x, y = rand(n, n), rand(n, n)
        r[f"matmul_{n}"] = median_ns(lambda: x @ y, reps=11, inner=20 if n == 2048 else 100)
    x, y = rand(16, 256, 256), rand(256, 256)
    r["matmul_batched_16x256"] = median_ns(lambda: x @ y, reps=11, inner=100)
    return r


# Bytes each elementwise case moves (reads + writes), for the bandwidth column.
BYTES = {
    "same": 3 * 4096 * 4096 * 4,
    "outer": 4096 * 4096 * 4 + 2 * 4096 * 4,
    "row": 2 * 4096 * 4096 * 4 + 4096 * 4,
    "batch": 256 * 256 * 1024 * 4 + 2 * 256 * 1024 * 4,
    "add_fused": 2 * 4096 * 4096 * 4 + 4096 * 4,
    "chain3_fused": 2 * 4096 * 4096 * 4 + 2 * 4096 * 4,
    "chain6_fused": 2 * 4096 * 4096 * 4 + 4 * 4096 * 4,
    "chain6m_fused": 2 * 4096 * 4096 * 4 + 4 * 4096 * 4,
}


def main():
    shaped = {}
    with open(sys.argv[1]) as f:
        for line in f:
            k, _, v = line.strip().partition("\t")
            shaped[k] = v
    copy_gbps = float(shaped["dtod_copy_GBps"])
    print(f"GPU: {shaped.get('device', '?')} (torch sees {torch.cuda.get_device_name()})")
    print(f"device-to-device copy: {copy_gbps:.1f} GB/s (measured by bench_cuda in its run)")
    theirs = torch_cases()
    print(f"torch.compile: {theirs.pop('inductor_compile_s'):.1f} s to compile the four chains (excluded below)")
    print("fused cases: the torch column is torch.compile (Inductor) for *_fused*, eager PyTorch for *_eager")
    print(f"{'case':24}{'shaped ns':>14}{'torch ns':>14}{'torch/shaped':>14}{'% of copy bw':>14}")
    for k, t in theirs.items():
        if k not in shaped:
            continue
        s = float(shaped[k])
        bw = ""
        base = k.rsplit("_", 1)[0]
        if base in BYTES:
            bw = f"{100 * BYTES[base] / s / copy_gbps:.0f}%"
        print(f"{k:24}{s:14.0f}{t:14.0f}{t / s:14.2f}{bw:>14}")


if __name__ == "__main__":
    main()
