#!/usr/bin/env python3
"""Generates tests/data/sort_cases.json: torch.sort(stable=True) ascending
and descending, torch.topk(largest=True, sorted=True), torch.tril and
torch.triu, computed by PyTorch on float64 and int64 inputs of several
ranks, with NaN, +-inf, -0.0 and ties; and PyTorch's error messages for
topk, tril/triu and multinomial.

Run from the repository root with a Python that has torch:
    /work/pyref/venv/bin/python tests/data/gen_sort_data.py

The Rust test `tests/sort_torch.rs` reads the file and compares each case.
topk's indices are recorded only where the values of a row have no ties
(PyTorch leaves the order of ties unspecified).
"""
import json
import os

import torch

g = torch.Generator().manual_seed(0)


def enc(x):
    """A float as JSON: the strings "nan", "inf", "-inf", "-0" where JSON has
    no number for it."""
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    if x == 0 and str(x).startswith("-"):
        return "-0"
    return x


def tensor_json(t):
    data = t.reshape(-1).tolist()
    if t.dtype.is_floating_point:
        data = [enc(x) for x in data]
    return {"shape": list(t.shape), "data": data}


def floats(shape, specials):
    """Small integers (many ties) as float64, with some NaN, inf, -0.0."""
    t = torch.randint(-4, 5, shape, generator=g).double()
    flat = t.reshape(-1)
    n = flat.numel()
    if specials and n > 0:
        for v in [float("nan"), float("inf"), float("-inf"), -0.0, float("nan")]:
            i = int(torch.randint(0, n, (1,), generator=g))
            flat[i] = v
    return flat.reshape(shape)


def ints(shape):
    return torch.randint(-50, 50, shape, generator=g)


def no_ties(values):
    """Whether no row (last axis) of `values` holds a repeated value."""
    if values.numel() == 0:
        return True
    rows = values.reshape(-1, values.shape[-1])
    for r in rows.tolist():
        keys = ["nan" if x != x else x for x in r]
        if len(set(keys)) != len(keys):
            return False
    return True


cases = []
shapes = [(7,), (3, 6), (2, 3, 5), (4, 1), (2, 0), (0, 3), (1, 9), (2, 2, 2, 4)]
for shape in shapes:
    for kind in ["f64", "f64-special", "i64"]:
        x = ints(shape) if kind == "i64" else floats(shape, kind == "f64-special")
        for descending in [False, True]:
            v, i = torch.sort(x, dim=-1, descending=descending, stable=True)
            cases.append({"op": "sort", "dtype": kind[:3], "descending": descending,
                          "input": tensor_json(x), "values": tensor_json(v), "indices": tensor_json(i)})
        n = shape[-1]
        for k in sorted({k for k in (0, 1, n // 2, n) if k <= n}):
            v, i = torch.topk(x, k, dim=-1, largest=True, sorted=True)
            case = {"op": "topk", "dtype": kind[:3], "k": k,
                    "input": tensor_json(x), "values": tensor_json(v)}
            if no_ties(x):
                case["indices"] = tensor_json(i)
            cases.append(case)

# Distinct values: topk's indices are defined, and checked.
for shape in [(5, 8), (16,)]:
    x = torch.randn(shape, generator=g, dtype=torch.float64)
    for k in [1, 3, shape[-1]]:
        v, i = torch.topk(x, k, dim=-1)
        cases.append({"op": "topk", "dtype": "f64", "k": k, "input": tensor_json(x),
                      "values": tensor_json(v), "indices": tensor_json(i)})

for shape in [(4, 4), (3, 5), (5, 3), (2, 3, 4), (2, 1, 3, 3), (0, 3), (3, 0)]:
    x = floats(shape, False)
    for diagonal in [-6, -2, -1, 0, 1, 2, 6]:
        for op in ["tril", "triu"]:
            y = getattr(torch, op)(x, diagonal)
            cases.append({"op": op, "dtype": "f64", "diagonal": diagonal,
                          "input": tensor_json(x), "values": tensor_json(y)})


def message(f):
    try:
        f()
    except Exception as e:
        return str(e).split("\n")[0]
    raise AssertionError("no error")


errors = {
    "topk k > n": message(lambda: torch.topk(torch.ones(2, 3), 4)),
    "tril 1-d": message(lambda: torch.tril(torch.ones(3))),
    "triu 1-d": message(lambda: torch.triu(torch.ones(3))),
    "multinomial negative": message(lambda: torch.multinomial(torch.tensor([0.5, -0.1]), 1)),
    "multinomial inf": message(lambda: torch.multinomial(torch.tensor([0.5, float("inf")]), 1)),
    "multinomial nan": message(lambda: torch.multinomial(torch.tensor([[1.0, 1.0], [0.5, float("nan")]]), 1, True)),
    "multinomial zero sum": message(lambda: torch.multinomial(torch.tensor([0.0, 0.0]), 1, True)),
    "multinomial n > V": message(lambda: torch.multinomial(torch.tensor([0.5, 0.5]), 3)),
    "multinomial n = 0": message(lambda: torch.multinomial(torch.tensor([0.5, 0.5]), 0, True)),
    "multinomial 3-d": message(lambda: torch.multinomial(torch.ones(2, 2, 2), 1)),
}

out = os.path.join(os.path.dirname(__file__), "sort_cases.json")
with open(out, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases, "errors": errors}, f)
print(f"{len(cases)} cases -> {out}")
