#!/usr/bin/env python3
"""Generates tests/data/index_cases.json: gather / scatter / scatter_add /
take_along_dim / index_select / index_add_ / index_copy_ cases computed by
PyTorch, with index shapes smaller than the input away from `dim`, zero-size
dimensions, negative `dim`, expanded (stride-0) indices, and the error
messages PyTorch gives for bad input.

Run from the repository root:
    python3 -m venv .venv && .venv/bin/pip install torch numpy
    .venv/bin/python tests/data/gen_index_data.py

The Rust test `tests/index_torch.rs` reads the file and compares each case
(contiguous, and again with every input made non-contiguous).
"""
import json
import os

import torch

torch.manual_seed(0)
g = torch.Generator().manual_seed(0)


def tensor_json(t):
    return {"shape": list(t.shape), "data": t.reshape(-1).tolist()}


def values(shape):
    # Small integers stored as float64, so that sums are exact.
    return torch.randint(-9, 10, shape, generator=g).double()


def smaller(shape, dim, along):
    """A shape no larger than `shape` away from `dim`, `along` at `dim`."""
    out = []
    for d, s in enumerate(shape):
        if d == dim % len(shape):
            out.append(along)
        else:
            out.append(int(torch.randint(0, s + 1, (1,), generator=g)) if s > 0 else 0)
    return out


def random_index(shape, upper):
    return torch.randint(0, max(upper, 1), shape, generator=g) if upper > 0 else torch.zeros(shape, dtype=torch.long)


def unique_index(shape, dim, upper):
    """Indices without repeats along `dim` (needs shape[dim] <= upper)."""
    d = dim % len(shape)
    full = list(shape)
    full[d] = upper
    keys = torch.rand(full, generator=g)
    return torch.argsort(keys, dim=d).narrow(d, 0, shape[d])


cases = []


def record(case, fn):
    try:
        out = fn()
        case["expected"] = tensor_json(out)
    except Exception as e:  # noqa: BLE001 - the message is the data
        case["error"] = str(e).split("\n")[0]
    cases.append(case)


SHAPES = [[5], [4, 3], [3, 4, 2], [2, 3, 2, 3], [3, 0, 2], [0, 3]]

for shape in SHAPES:
    rank = len(shape)
    for dim in range(-rank, rank):
        d = dim % rank
        # gather
        src = values(shape)
        ishape = smaller(shape, d, int(torch.randint(0, 5, (1,), generator=g)))
        idx = random_index(ishape, shape[d])
        record({"op": "gather", "dim": dim, "self": tensor_json(src), "index": tensor_json(idx)},
               lambda: torch.gather(src, dim, idx))
        # scatter_add (repeats allowed) and scatter (no repeats along dim)
        base = values(shape)
        ishape = smaller(shape, d, int(torch.randint(0, 5, (1,), generator=g)))
        sshape = [i + int(torch.randint(0, 2, (1,), generator=g)) for i in ishape]
        srcv = values(sshape)
        idx = random_index(ishape, shape[d])
        record({"op": "scatter_add", "dim": dim, "self": tensor_json(base), "index": tensor_json(idx),
                "src": tensor_json(srcv)},
               lambda: base.clone().scatter_add_(dim, idx, srcv))
        ishape_u = list(ishape)
        ishape_u[d] = min(ishape_u[d], shape[d])
        idx_u = unique_index(ishape_u, d, shape[d]) if shape[d] > 0 else torch.zeros(ishape_u, dtype=torch.long)
        srcv_u = values([i + 1 for i in ishape_u])
        record({"op": "scatter", "dim": dim, "self": tensor_json(base), "index": tensor_json(idx_u),
                "src": tensor_json(srcv_u)},
               lambda: base.clone().scatter_(dim, idx_u, srcv_u))
        if dim < 0:
            continue
        # take_along_dim: indices broadcast against self away from dim.
        tshape = [1 if (k != d and torch.rand(1, generator=g) < 0.5) else s for k, s in enumerate(shape)]
        tshape[d] = int(torch.randint(0, 4, (1,), generator=g))
        tidx = random_index(tshape, shape[d])
        src2 = values([1 if (k != d and torch.rand(1, generator=g) < 0.3) else s for k, s in enumerate(shape)])
        record({"op": "take_along_dim", "dim": dim, "self": tensor_json(src2), "index": tensor_json(tidx)},
               lambda: torch.take_along_dim(src2, tidx, dim))
        # index_select / index_add_ / index_copy_
        n = int(torch.randint(0, 5, (1,), generator=g))
        sidx = random_index([n], shape[d])
        record({"op": "index_select", "dim": dim, "self": tensor_json(src), "index": tensor_json(sidx)},
               lambda: torch.index_select(src, dim, sidx))
        srcshape = list(shape)
        srcshape[d] = n
        srcv = values(srcshape)
        record({"op": "index_add", "dim": dim, "self": tensor_json(base), "index": tensor_json(sidx),
                "src": tensor_json(srcv)},
               lambda: base.clone().index_add_(dim, sidx, srcv))
        m = min(n, shape[d])
        cidx = torch.randperm(shape[d], generator=g)[:m]
        srcshape[d] = m
        srcc = values(srcshape)
        record({"op": "index_copy", "dim": dim, "self": tensor_json(base), "index": tensor_json(cidx),
                "src": tensor_json(srcc)},
               lambda: base.clone().index_copy_(dim, cidx, srcc))

# Expanded (stride-0) indices: the index is `index_base` expanded to `index`'s shape.
for shape, dim, ishape, bshape in [([4, 3], 1, [4, 3], [4, 1]), ([3, 4, 2], 0, [2, 4, 2], [2, 1, 2]),
                                   ([3, 4, 2], 2, [3, 4, 5], [1, 4, 5])]:
    src = values(shape)
    ib = random_index(bshape, shape[dim])
    idx = ib.expand(ishape)
    record({"op": "gather", "dim": dim, "self": tensor_json(src), "index": tensor_json(idx.contiguous()),
            "index_base": tensor_json(ib)}, lambda: torch.gather(src, dim, idx))
    srcv = values(ishape)
    record({"op": "scatter_add", "dim": dim, "self": tensor_json(src), "index": tensor_json(idx.contiguous()),
            "index_base": tensor_json(ib), "src": tensor_json(srcv)},
           lambda: src.clone().scatter_add_(dim, idx, srcv))

# Bad input: PyTorch's messages.
z = values([2, 3])
for op, dim, idx, srcv in [
    ("gather", 1, torch.tensor([[3]]), None),
    ("gather", 1, torch.tensor([[-1]]), None),
    ("gather", 0, torch.tensor([0]), None),
    ("gather", 0, torch.zeros(2, 4, dtype=torch.long), None),
    ("gather", 2, torch.zeros(2, 3, dtype=torch.long), None),
    ("scatter", 1, torch.zeros(3, 2, dtype=torch.long), values([3, 2])),
    ("scatter", 1, torch.zeros(2, 4, dtype=torch.long), values([2, 2])),
    ("scatter", 0, torch.zeros(2, dtype=torch.long), values([2, 3])),
    ("scatter", 1, torch.tensor([[5]]), values([2, 3])),
    ("scatter_add", 0, torch.tensor([[-1]]), values([2, 3])),
    ("scatter_add", 1, torch.zeros(2, 2, dtype=torch.long), values([2, 1])),
    ("take_along_dim", 1, torch.zeros(3, dtype=torch.long), None),
    ("take_along_dim", 1, torch.zeros(3, 1, dtype=torch.long), None),
    # (take_along_dim with an index equal to the size is left out: PyTorch
    # 2.15 returns wrapped values there instead of an error.)
    ("index_select", 0, torch.tensor([2]), None),
    ("index_add", 0, torch.tensor([0, 1]), values([3, 3])),
    ("index_add", 0, torch.tensor([0, 1]), values([2, 4])),
    ("index_add", 1, torch.tensor([5]), values([2, 1])),
    ("index_copy", 0, torch.tensor([0, 1]), values([3, 3])),
    ("index_copy", 0, torch.tensor([0, 1]), values([2, 4])),
    ("index_copy", 1, torch.tensor([3]), values([2, 1])),
]:
    case = {"op": op, "dim": dim, "self": tensor_json(z), "index": tensor_json(idx)}
    if srcv is not None:
        case["src"] = tensor_json(srcv)
    fns = {
        "gather": lambda: torch.gather(z, dim, idx),
        "scatter": lambda: z.clone().scatter_(dim, idx, srcv),
        "scatter_add": lambda: z.clone().scatter_add_(dim, idx, srcv),
        "take_along_dim": lambda: torch.take_along_dim(z, idx, dim),
        "index_select": lambda: torch.index_select(z, dim, idx),
        "index_add": lambda: z.clone().index_add_(dim, idx, srcv),
        "index_copy": lambda: z.clone().index_copy_(dim, idx, srcv),
    }
    record(case, fns[op])

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "index_cases.json")
with open(out, "w") as f:
    json.dump({"generator": "tests/data/gen_index_data.py", "torch": torch.__version__.split("+")[0],
               "cases": cases}, f, separators=(",", ":"))
    f.write("\n")
print(f"{len(cases)} cases -> {out}")
