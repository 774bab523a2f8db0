#!/usr/bin/env python3
"""Writes tests/data/safetensors/all_dtypes.safetensors with the reference
`safetensors` package (from PyTorch tensors), one tensor per dtype shaped
supports (bool, uint8-64, int8-64, float16, bfloat16, float32, float64),
and expected.json with each tensor's dtype, shape and row-major elements
as PyTorch holds them.

Run from the repository root:
    python3 -m venv .venv && .venv/bin/pip install torch safetensors
    .venv/bin/python tests/data/safetensors/gen_safetensors.py

The Rust test `tests/io_safetensors.rs` loads each tensor and compares it.
"""
import json
import os

import torch
from safetensors.torch import save_file

HERE = os.path.dirname(os.path.abspath(__file__))
g = torch.Generator().manual_seed(0)

tensors = {}
for dt in [torch.uint8, torch.uint16, torch.uint32, torch.uint64,
           torch.int8, torch.int16, torch.int32, torch.int64]:
    info = torch.iinfo(dt)
    # (uint64's maximum does not fit torch.tensor's int64 path; 2**63 - 1 does.)
    hi = min(info.max, 2**63 - 1)
    vals = [info.min, hi, 0, 1, 2, hi // 3]
    tensors[str(dt).replace("torch.", "")] = torch.tensor(vals, dtype=torch.int64).to(dt).reshape(2, 3) \
        if dt == torch.uint64 else torch.tensor(vals, dtype=dt).reshape(2, 3)
for dt in [torch.float16, torch.bfloat16, torch.float32, torch.float64]:
    x = (torch.randn(3, 2, generator=g) * 100).to(dt)
    x[0, 0] = torch.finfo(dt).max
    x[0, 1] = -0.0
    tensors[str(dt).replace("torch.", "")] = x
tensors["bool"] = torch.tensor([[True, False], [False, True]])
tensors["scalar"] = torch.tensor(1.5, dtype=torch.float32)
tensors["empty"] = torch.zeros(0, 4, dtype=torch.int32)

save_file(tensors, os.path.join(HERE, "all_dtypes.safetensors"), metadata={"by": "gen_safetensors.py"})


def elements(t):
    flat = t.reshape(-1)
    if t.dtype == torch.bfloat16 or t.dtype == torch.float16:
        flat = flat.double()
    return [bool(v) if t.dtype == torch.bool else v for v in flat.tolist()]


expected = {name: {"dtype": str(t.dtype).replace("torch.", ""), "shape": list(t.shape),
                   "data": elements(t)} for name, t in tensors.items()}
with open(os.path.join(HERE, "expected.json"), "w") as fh:
    json.dump({"torch": torch.__version__, "tensors": expected}, fh, indent=1)
    fh.write("\n")
print(f"wrote {len(tensors)} tensors")
