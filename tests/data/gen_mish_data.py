#!/usr/bin/env python3
"""Generates tests/data/mish_cases.json: `torch.nn.functional.mish` and its
gradient computed by PyTorch on the CPU, in float64 and float32, over
inputs that cover both tails (where softplus saturates at PyTorch's
threshold of 20 and where exp underflows), zero and the region around the
minimum.

Run from the repository root:
    python3 -m venv .venv && .venv/bin/pip install torch
    .venv/bin/python tests/data/gen_mish_data.py

The Rust test `tests/mish.rs` reads the file and compares the eager, fused
and autograd values with these.
"""
import json
import os

import torch

XS = [-100.0, -30.0, -20.5, -5.0, -1.19, -0.5, -1e-3, 0.0, 1e-3, 0.3, 0.7,
      1.0, 1.2, 2.5, 8.0, 19.9, 20.1, 45.0]

cases = []
for dtype in (torch.float64, torch.float32):
    x = torch.tensor(XS, dtype=dtype, requires_grad=True)
    y = torch.nn.functional.mish(x)
    # A gradient that is not all ones, so the upstream factor is checked.
    g = torch.linspace(-1.5, 2.0, len(XS), dtype=dtype)
    (grad,) = torch.autograd.grad(y, x, g)
    cases.append({
        "dtype": str(dtype).removeprefix("torch."),
        "x": [float(v) for v in x.detach()],
        "upstream": [float(v) for v in g],
        "mish": [float(v) for v in y.detach()],
        "grad": [float(v) for v in grad],
    })

out = os.path.join(os.path.dirname(__file__), "mish_cases.json")
with open(out, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, indent=1)
    f.write("\n")
print(f"wrote {out}")
