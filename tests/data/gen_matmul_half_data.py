#!/usr/bin/env python3
"""Generates tests/data/matmul_half_cases.json: matrix products of float16
and bfloat16 tensors computed by PyTorch on the CPU (mm, matmul, addmm,
baddbmm, addbmm, addmv, addr, and the in-place addmm_), with a long inner
dimension (k = 4096) where accumulating in the 16-bit type would be far from
PyTorch's result: PyTorch's CPU kernels accumulate half-precision products
in float32.

The operands are not stored: an operand with salt s takes its elements, in
row-major order, from SplitMix64 seeded with s (the generator of
tests/common/mod.rs): each is ((x >> 56) - 96) / 128 for the next output x, a
multiple of 1/128 in [-0.75, 1.25), exact in both float16 and bfloat16. Only the results are stored, as
float64 (every float16 and bfloat16 value is exact in float64).

Run from the repository root:
    python3 -m venv .venv && .venv/bin/pip install torch numpy
    .venv/bin/python tests/data/gen_matmul_half_data.py

The Rust test `tests/matmul_half.rs` reads the file and compares each case.
"""
import json
import os

import torch

DTYPES = {"f16": torch.float16, "bf16": torch.bfloat16}
K = 4096


MASK = (1 << 64) - 1


def splitmix(state):
    """SplitMix64's outputs from `state`, as `SplitMix` in tests/common."""
    while True:
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        yield z ^ (z >> 31)


def operand(shape, salt, dtype):
    n = 1
    for s in shape:
        n *= s
    gen = splitmix(salt)
    v = [((next(gen) >> 56) - 96) / 128 for _ in range(n)]
    return torch.tensor(v, dtype=torch.float64).reshape(shape).to(dtype)


def tensor_json(t):
    return {"shape": list(t.shape), "data": t.double().reshape(-1).tolist()}


# (op, [(shape, salt) of each tensor argument], beta, alpha); the first
# argument of the fused products is the added input.
CASES = [
    ("mm", [((3, K), 1), ((K, 5), 2)], None, None),
    ("matmul", [((2, 3, K), 3), ((K, 4), 4)], None, None),
    ("addmm", [((5,), 5), ((3, K), 6), ((K, 5), 7)], 0.5, 1.5),
    ("addmm", [((3, 5), 8), ((3, K), 9), ((K, 5), 10)], -2.0, 0.25),
    ("addmm_", [((3, 5), 11), ((3, K), 12), ((K, 5), 13)], 0.75, 1.0),
    ("baddbmm", [((1, 5), 14), ((2, 3, K), 15), ((2, K, 5), 16)], 0.5, 1.5),
    ("addbmm", [((3, 1), 17), ((2, 3, K), 18), ((2, K, 5), 19)], 1.0, 0.5),
    ("addmv", [((1,), 20), ((3, K), 21), ((K,), 22)], 0.5, 1.5),
    ("addr", [((3, 5), 23), ((3,), 24), ((5,), 25)], 0.5, 1.5),
]


def run(op, args, beta, alpha):
    if op == "mm":
        return torch.mm(*args)
    if op == "matmul":
        return torch.matmul(*args)
    if op == "addmm_":
        c = args[0].clone()
        c.addmm_(args[1], args[2], beta=beta, alpha=alpha)
        return c
    return getattr(torch, op)(*args, beta=beta, alpha=alpha)


def main():
    cases = []
    for name, dtype in DTYPES.items():
        for op, specs, beta, alpha in CASES:
            args = [operand(shape, salt, dtype) for shape, salt in specs]
            out = run(op, args, beta, alpha)
            assert out.dtype == dtype
            cases.append({
                "dtype": name,
                "op": op,
                "args": [{"shape": list(shape), "salt": salt} for shape, salt in specs],
                "beta": beta,
                "alpha": alpha,
                "out": tensor_json(out),
            })
    path = os.path.join(os.path.dirname(__file__), "matmul_half_cases.json")
    with open(path, "w") as f:
        json.dump({"torch": torch.__version__, "k": K, "cases": cases}, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
