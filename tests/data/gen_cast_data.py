#!/usr/bin/env python3
"""Generates tests/data/cast_cases.json: `tensor.to(dtype)` computed by
PyTorch on the CPU for every pair of the element types shaped supports
(bool, uint8/16/32/64, int8/16/32/64, float16, bfloat16, float32, float64).

Float inputs stay where PyTorch's result is defined (finite, |x| < 2**31):
beyond that (NaN, inf, values out of range) C++ leaves the conversion
undefined and PyTorch's answer depends on the platform; shaped's rule there
(saturate to the 64-bit range, NaN -> 0) is tested on its own in
tests/cast.rs.

Run from the repository root:
    python3 -m venv .venv && .venv/bin/pip install torch numpy
    .venv/bin/python tests/data/gen_cast_data.py

The Rust test `tests/cast.rs` reads the file and compares every case.
"""
import json
import math
import os

import torch

DTYPES = [
    torch.bool, torch.uint8, torch.uint16, torch.uint32, torch.uint64,
    torch.int8, torch.int16, torch.int32, torch.int64,
    torch.float16, torch.bfloat16, torch.float32, torch.float64,
]

FLOATS = [0.0, -0.0, 0.1, 1.5, -2.7, 3.99, -3.7, 100.25, -128.5, 127.5, 255.9,
          256.0, 300.5, -129.9, 1000.0, 65504.0, 65519.0, 70000.0, 1e9, -2e9,
          3.14159265358979, 1e-8, -1e-30, 2.5, 3.5]
INTS = [0, 1, -1, 2, 127, -128, 128, 255, 256, -129, 300, 32767, -32768, 65535,
        65536, 70000, 2**31 - 1, -2**31, 2**32 + 3, 2**40 + 1, 2**53 + 1,
        -2**60 - 7, 2**63 - 1, -2**63]
UINTS = [0, 1, 2, 127, 128, 255, 256, 300, 65535, 65536, 2**31, 2**32 - 1,
         2**32 + 3, 2**53 + 1, 2**63 + 5, 2**64 - 1]


def source_values(dtype):
    if dtype == torch.bool:
        return torch.tensor([True, False, True], dtype=dtype)
    if dtype.is_floating_point:
        # Round the inputs to the source type first (they are what it holds).
        # (float16 overflows to inf on the largest; those are left out.)
        x = torch.tensor(FLOATS, dtype=torch.float64).to(dtype)
        return x[torch.isfinite(x)]
    if dtype in (torch.uint16, torch.uint32, torch.uint64):
        info = torch.iinfo(dtype)
        vals = [v for v in UINTS if v <= info.max]
        # torch.tensor cannot build large uint64 values from Python ints
        # directly; go through int64 bit patterns.
        return torch.tensor([v - 2**64 if v >= 2**63 else v for v in vals],
                            dtype=torch.int64).to(dtype) if dtype == torch.uint64 \
            else torch.tensor(vals, dtype=dtype)
    info = torch.iinfo(dtype)
    return torch.tensor([v for v in INTS if info.min <= v <= info.max], dtype=dtype)


def as_json(t):
    if t.dtype == torch.uint64:
        # tolist() of a uint64 tensor gives Python ints (exact).
        return [int(v) for v in t.tolist()]
    out = []
    for v in t.tolist():
        if isinstance(v, float) and math.isinf(v):
            out.append("inf" if v > 0 else "-inf")
        else:
            out.append(v)
    return out


def name(dtype):
    return str(dtype).replace("torch.", "")


cases = []
for src in DTYPES:
    x = source_values(src)
    for dst in DTYPES:
        cases.append({"from": name(src), "to": name(dst),
                      "input": as_json(x), "output": as_json(x.to(dst))})

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cast_cases.json")
with open(path, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, indent=0)
    f.write("\n")
print(f"wrote {len(cases)} cases to {path}")
