#!/usr/bin/env python3
"""Generates tests/data/scatter_cases.json: scatter_reduce (sum, prod, mean,
amax, amin; include_self true and false; float64 and int64), masked_scatter
(out of place, broadcasting, and in place), masked_fill with a 0-d tensor
value, take_along_dim without a dim (flattened) and with a run-time dim
(negative too), and scatter with a scalar value out of place, all computed by
PyTorch, with the error messages PyTorch gives for bad input; plus the
gradients of take_along_dim (flattened and run-time dim), masked_scatter and
masked_fill with a 0-d tensor value for the weighted sum `(out * w).sum()`.

Run from the repository root with the project venv:
    /work/pyenv/bin/python tests/data/gen_scatter_data.py

The Rust test `tests/scatter_reduce.rs` reads the file.
"""
import json
import os

import torch

g = torch.Generator().manual_seed(17)


def tj(t):
    # NaN is written as null (JSON has no NaN).
    data = [None if v != v else v for v in t.reshape(-1).tolist()]
    return {"shape": list(t.shape), "data": data}


def ints(shape, lo=-9, hi=10):
    return torch.randint(lo, hi, shape, generator=g)


def floats(shape):
    # Small integers and halves, so sums, products and means are exact.
    return ints(shape).double() / 2


def rand_shape(rank, lo=1, hi=4):
    return [int(torch.randint(lo, hi, (1,), generator=g)) for _ in range(rank)]


def error(f):
    try:
        f()
    except Exception as e:  # noqa: BLE001
        return str(e).split("\n")[0]
    raise AssertionError("expected an error")


cases = []

# scatter_reduce: index no larger than self away from dim, no larger than src.
for i in range(60):
    rank = 1 + i % 3
    shape = rand_shape(rank)
    dim = int(torch.randint(-rank, rank, (1,), generator=g))
    d = dim % rank
    ishape = [int(torch.randint(1, s + 1, (1,), generator=g)) for s in shape]
    ishape[d] = int(torch.randint(1, 5, (1,), generator=g))
    sshape = [s + int(torch.randint(0, 2, (1,), generator=g)) for s in ishape]
    index = torch.randint(0, shape[d], ishape, generator=g)
    dtype = "f64" if i % 2 == 0 else "i64"
    make = floats if dtype == "f64" else ints
    self_t, src = make(shape), make(sshape)
    for reduce in ["sum", "prod", "mean", "amax", "amin"]:
        for include_self in [True, False]:
            out = self_t.scatter_reduce(dim, index, src, reduce, include_self=include_self)
            cases.append({
                "op": "scatter_reduce", "dtype": dtype, "dim": dim, "reduce": reduce,
                "include_self": include_self, "self": tj(self_t), "index": tj(index),
                "src": tj(src), "out": tj(out),
            })
# NaN propagates through amax / amin.
nan_self = torch.tensor([1.0, 2.0, 3.0])
nan_src = torch.tensor([float("nan"), 5.0, -1.0, 0.5])
nan_idx = torch.tensor([0, 0, 2, 1])
for reduce in ["amax", "amin"]:
    for include_self in [True, False]:
        out = nan_self.double().scatter_reduce(0, nan_idx, nan_src.double(), reduce, include_self=include_self)
        cases.append({
            "op": "scatter_reduce", "dtype": "f64", "dim": 0, "reduce": reduce,
            "include_self": include_self, "self": tj(nan_self.double()), "index": tj(nan_idx),
            "src": tj(nan_src.double()),
            "out": tj(out),
        })
cases.append({
    "op": "scatter_reduce_error", "dtype": "f64", "dim": 0, "reduce": "sum", "include_self": True,
    "self": tj(torch.zeros(3).double()), "index": tj(torch.tensor([3])),
    "src": tj(torch.ones(1).double()),
    "error": error(lambda: torch.zeros(3).scatter_reduce(0, torch.tensor([3]), torch.ones(1), "sum")),
})

# masked_scatter, out of place (self and mask broadcast) and in place.
for i in range(30):
    out_shape = rand_shape(1 + i % 3)
    sshape = [s if torch.rand(1, generator=g) < 0.6 else 1 for s in out_shape]
    mshape = [s if torch.rand(1, generator=g) < 0.6 else 1 for s in out_shape]
    if i % 2:
        sshape = sshape[1:]
    self_t = floats(sshape)
    mask = torch.rand(mshape, generator=g) < 0.5
    n = int(torch.broadcast_to(mask, torch.broadcast_shapes(sshape, mshape)).sum())
    source = floats([n + int(torch.randint(0, 3, (1,), generator=g))])
    out = self_t.masked_scatter(mask, source)
    w = floats(list(out.shape))
    s_v = self_t.clone().requires_grad_()
    src_v = source.clone().requires_grad_()
    (s_v.masked_scatter(mask, src_v) * w).sum().backward()
    cases.append({
        "op": "masked_scatter", "self": tj(self_t), "mask": tj(mask), "source": tj(source),
        "out": tj(out), "w": tj(w), "grad_self": tj(s_v.grad), "grad_source": tj(src_v.grad),
    })
    # In place: the mask made to expand to a self of the broadcast shape.
    big = floats(list(out.shape))
    inplace = big.clone()
    inplace.masked_scatter_(mask, source)
    cases.append({
        "op": "masked_scatter_", "self": tj(big), "mask": tj(mask), "source": tj(source),
        "out": tj(inplace),
    })
cases.append({
    "op": "masked_scatter_error", "self": tj(torch.zeros(2, 3).double()),
    "mask": tj(torch.ones(2, 3, dtype=torch.bool)), "source": tj(torch.ones(5).double()),
    "error": error(lambda: torch.zeros(2, 3).masked_scatter(torch.ones(2, 3, dtype=torch.bool), torch.ones(5))),
})
cases.append({
    "op": "masked_scatter_error", "self": tj(torch.zeros(2, 3).double()),
    "mask": tj(torch.ones(2, dtype=torch.bool)), "source": tj(torch.ones(6).double()),
    "error": error(lambda: torch.zeros(2, 3).masked_scatter(torch.ones(2, dtype=torch.bool), torch.ones(6))),
})
cases.append({
    "op": "masked_scatter__error", "self": tj(torch.zeros(2, 3).double()),
    "mask": tj(torch.ones(2, dtype=torch.bool)), "source": tj(torch.ones(6).double()),
    "error": error(lambda: torch.zeros(2, 3).masked_scatter_(torch.ones(2, dtype=torch.bool), torch.ones(6))),
})

# masked_fill with a 0-d tensor value.
for i in range(15):
    out_shape = rand_shape(1 + i % 3)
    sshape = [s if torch.rand(1, generator=g) < 0.6 else 1 for s in out_shape]
    mshape = [s if torch.rand(1, generator=g) < 0.6 else 1 for s in out_shape]
    self_t = floats(sshape)
    mask = torch.rand(mshape, generator=g) < 0.5
    value = floats([])
    out = self_t.masked_fill(mask, value)
    w = floats(list(out.shape))
    s_v = self_t.clone().requires_grad_()
    v_v = value.clone().requires_grad_()
    (s_v.masked_fill(mask, v_v) * w).sum().backward()
    cases.append({
        "op": "masked_fill_tensor", "self": tj(self_t), "mask": tj(mask), "value": tj(value),
        "out": tj(out), "w": tj(w), "grad_self": tj(s_v.grad), "grad_value": tj(v_v.grad),
    })
cases.append({
    "op": "masked_fill_tensor_error", "self": tj(torch.zeros(2).double()),
    "mask": tj(torch.ones(2, dtype=torch.bool)), "value": tj(torch.ones(1).double()),
    "error": error(lambda: torch.zeros(2).masked_fill(torch.ones(2, dtype=torch.bool), torch.ones(1))),
})

# take_along_dim: flattened, and with a run-time dim.
for i in range(25):
    shape = rand_shape(1 + i % 3)
    self_t = floats(shape)
    numel = self_t.numel()
    index = torch.randint(0, numel, rand_shape(1 + i % 2), generator=g)
    out = torch.take_along_dim(self_t, index)
    w = floats(list(out.shape))
    s_v = self_t.clone().requires_grad_()
    (torch.take_along_dim(s_v, index) * w).sum().backward()
    cases.append({
        "op": "take_along_dim_flat", "self": tj(self_t), "index": tj(index), "out": tj(out),
        "w": tj(w), "grad_self": tj(s_v.grad),
    })
for i in range(25):
    rank = 1 + i % 3
    shape = rand_shape(rank)
    dim = int(torch.randint(-rank, rank, (1,), generator=g))
    d = dim % rank
    ishape = [s if torch.rand(1, generator=g) < 0.6 else 1 for s in shape]
    ishape[d] = int(torch.randint(1, 4, (1,), generator=g))
    if i % 3 == 0:
        shape = [1 if k != d and torch.rand(1, generator=g) < 0.5 else s for k, s in enumerate(shape)]
        ishape = [max(s, 1) if k != d else s for k, s in enumerate(ishape)]
    self_t = floats(shape)
    index = torch.randint(0, shape[d], ishape, generator=g)
    out = torch.take_along_dim(self_t, index, dim)
    w = floats(list(out.shape))
    s_v = self_t.clone().requires_grad_()
    (torch.take_along_dim(s_v, index, dim) * w).sum().backward()
    cases.append({
        "op": "take_along_dim_at", "dim": dim, "self": tj(self_t), "index": tj(index),
        "out": tj(out), "w": tj(w), "grad_self": tj(s_v.grad),
    })
cases.append({
    "op": "take_along_dim_flat_error", "self": tj(torch.zeros(2, 3).double()),
    "index": tj(torch.tensor([6])),
    "error": error(lambda: torch.take_along_dim(torch.zeros(2, 3), torch.tensor([6]))),
})
cases.append({
    "op": "take_along_dim_at_error", "dim": 2, "self": tj(torch.zeros(2, 3).double()),
    "index": tj(torch.zeros(2, 3, dtype=torch.long)),
    "error": error(lambda: torch.take_along_dim(torch.zeros(2, 3), torch.zeros(2, 3, dtype=torch.long), 2)),
})

# scatter with a scalar value, out of place.
for i in range(20):
    rank = 1 + i % 3
    shape = rand_shape(rank)
    dim = int(torch.randint(-rank, rank, (1,), generator=g))
    d = dim % rank
    ishape = [int(torch.randint(1, s + 1, (1,), generator=g)) for s in shape]
    index = torch.randint(0, shape[d], ishape, generator=g)
    self_t = floats(shape)
    value = float(floats([]))
    out = self_t.scatter(dim, index, value)
    cases.append({
        "op": "scatter_value", "dim": dim, "self": tj(self_t), "index": tj(index),
        "value": value, "out": tj(out),
    })

path = os.path.join(os.path.dirname(__file__), "scatter_cases.json")
with open(path, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases}, f, separators=(",", ":"))
print(len(cases), "cases written to", path)
