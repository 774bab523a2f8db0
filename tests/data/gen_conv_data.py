#!/usr/bin/env python3
"""Generates tests/data/conv_cases.json: conv1d, conv2d, conv_transpose2d, max_pool2d,
avg_pool2d and adaptive_avg_pool2d computed by PyTorch, with the gradients
of `(out * seed).sum()` for the input, the weight and the bias; and
PyTorch's error messages for the shape errors.

Random shapes, strides, paddings (numbers, "same", "valid"), dilations and
groups (depthwise included). Inputs are rounded to float32 first; values
and gradients are computed in float64 from them, so one reference serves
the float32 and float64 runs of the Rust test (tests/conv_torch.rs), which
also runs every case on a non-contiguous copy of the input.

Run from the repository root with a Python that has torch:
    /work/pyref/venv/bin/python tests/data/gen_conv_data.py
"""
import json
import warnings
import os
import random

import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore")  # "same" with an even kernel: a note, not an error
rng = random.Random(0)
g = torch.Generator().manual_seed(0)


def rand(*shape):
    return torch.randn(*shape, generator=g).float().double()


def tj(t):
    return {"shape": list(t.shape), "data": t.reshape(-1).tolist()}


def conv_case(rank):
    while True:
        groups = rng.choice([1, 1, 1, 2, 3, "dw"])
        cg = rng.randint(1, 3)
        if groups == "dw":
            groups = rng.randint(2, 4)
            cg, mult = 1, rng.choice([1, 2])
        else:
            mult = rng.randint(1, 3)
        cin, cout = cg * groups, mult * groups
        n = rng.randint(1, 3)
        k = [rng.randint(1, 4) for _ in range(rank)]
        d = [rng.choice([1, 1, 2]) for _ in range(rank)]
        s = [rng.choice([1, 1, 2, 3]) for _ in range(rank)]
        size = [rng.randint(3, 9) for _ in range(rank)]
        pad = rng.choice(["num", "num", "same", "valid"])
        if pad == "same":
            s = [1] * rank
            padding = "same"
        elif pad == "valid":
            padding = "valid"
        else:
            padding = [rng.randint(0, 2) for _ in range(rank)]
        x = rand(n, cin, *size).requires_grad_()
        w = rand(cout, cg, *k).requires_grad_()
        b = rand(cout).requires_grad_() if rng.random() < 0.7 else None
        fn = F.conv1d if rank == 1 else F.conv2d
        try:
            y = fn(x, w, b, stride=s, padding=padding, dilation=d, groups=groups)
        except RuntimeError:
            continue  # a kernel larger than the input: the error cases below
        seed = rand(*y.shape)
        (y * seed).sum().backward()
        case = {
            "op": f"conv{rank}d",
            "stride": s,
            "padding": padding,
            "dilation": d,
            "groups": groups,
            "x": tj(x.detach()),
            "w": tj(w.detach()),
            "seed": tj(seed),
            "y": tj(y.detach()),
            "gx": tj(x.grad),
            "gw": tj(w.grad),
        }
        if b is not None:
            case["b"] = tj(b.detach())
            case["gb"] = tj(b.grad)
        return case


def pool_case(op, count_include_pad=True, ceil_mode=False):
    while True:
        n, c = rng.randint(1, 2), rng.randint(1, 3)
        size = [rng.randint(2, 9) for _ in range(2)]
        x = rand(n, c, *size).requires_grad_()
        if op == "adaptive_avg_pool2d":
            out = [rng.randint(1, 5) for _ in range(2)]
            y = F.adaptive_avg_pool2d(x, out)
            args = {"output_size": out}
        else:
            k = [rng.randint(1, 4) for _ in range(2)]
            s = [rng.randint(1, 3) for _ in range(2)]
            p = [rng.randint(0, kk // 2) for kk in k]
            d = [rng.choice([1, 1, 2]) for _ in range(2)] if op == "max_pool2d" else [1, 1]
            try:
                if op == "max_pool2d":
                    y = F.max_pool2d(x, k, s, p, d, ceil_mode=ceil_mode)
                    floor = F.max_pool2d(x, k, s, p, d)
                else:
                    y = F.avg_pool2d(x, k, s, p, ceil_mode=ceil_mode,
                                     count_include_pad=count_include_pad)
                    floor = F.avg_pool2d(x, k, s, p)
            except RuntimeError:
                continue
            # ceil_mode cases whose last window starts past the floor's:
            # the ones where ceil_mode changes something.
            if ceil_mode and y.shape == floor.shape:
                continue
            args = {"kernel": k, "stride": s, "padding": p, "dilation": d}
            if not count_include_pad:
                args["count_include_pad"] = False
            if ceil_mode:
                args["ceil_mode"] = True
        seed = rand(*y.shape)
        (y * seed).sum().backward()
        return {"op": op, **args, "x": tj(x.detach()), "seed": tj(seed), "y": tj(y.detach()),
                "gx": tj(x.grad)}


def transposed_case():
    while True:
        groups = rng.choice([1, 1, 2])
        gi, go = rng.randint(1, 3), rng.randint(1, 3)
        n, k = rng.randint(1, 2), [rng.randint(1, 4) for _ in range(2)]
        s = [rng.choice([1, 2, 3]) for _ in range(2)]
        d = [rng.choice([1, 1, 2]) for _ in range(2)]
        p = [rng.randint(0, 2) for _ in range(2)]
        op = [rng.randint(0, max(s[i], d[i]) - 1) for i in range(2)]
        size = [rng.randint(2, 6) for _ in range(2)]
        x = rand(n, gi * groups, *size).requires_grad_()
        w = rand(gi * groups, go, *k).requires_grad_()
        b = rand(go * groups).requires_grad_() if rng.random() < 0.7 else None
        try:
            y = F.conv_transpose2d(x, w, b, stride=s, padding=p, output_padding=op,
                                   groups=groups, dilation=d)
        except RuntimeError:
            continue
        if y.numel() == 0:
            continue
        seed = rand(*y.shape)
        (y * seed).sum().backward()
        case = {"op": "conv_transpose2d", "stride": s, "padding": p, "output_padding": op,
                "dilation": d, "groups": groups, "x": tj(x.detach()), "w": tj(w.detach()),
                "seed": tj(seed), "y": tj(y.detach()), "gx": tj(x.grad), "gw": tj(w.grad)}
        if b is not None:
            case["b"], case["gb"] = tj(b.detach()), tj(b.grad)
        return case


def error(op, x, w=None, b=None, **kw):
    x = torch.zeros(*x)
    try:
        if op == "conv_transpose2d":
            F.conv_transpose2d(x, torch.zeros(*w), torch.zeros(*b) if b else None, **kw)
        elif op in ("conv1d", "conv2d"):
            fn = F.conv1d if op == "conv1d" else F.conv2d
            fn(x, torch.zeros(*w), torch.zeros(*b) if b else None, **kw)
        elif op == "max_pool2d":
            F.max_pool2d(x, **kw)
        elif op == "avg_pool2d":
            F.avg_pool2d(x, **kw)
        else:
            F.adaptive_avg_pool2d(x, **kw)
    except RuntimeError as e:
        args = {k: (list(v) if isinstance(v, tuple) else v) for k, v in kw.items()}
        return {"op": op, "x": list(x.shape), "w": w, "b": b, **args,
                "message": str(e).split("\n")[0]}
    raise AssertionError(f"{op} {kw} did not fail")


cases = [conv_case(2) for _ in range(40)] + [conv_case(1) for _ in range(20)]
cases += [pool_case(op) for op in ["max_pool2d", "avg_pool2d", "adaptive_avg_pool2d"] for _ in range(15)]
# Ties: the gradient of a max goes to the first largest element of a window.
x = torch.tensor([[[[1., 3., 3.], [3., 0., 3.], [2., 3., 1.]]]], dtype=torch.float64,
                 requires_grad=True)
y = F.max_pool2d(x, 2, 1)
seed = torch.ones_like(y)
y.backward(seed)
cases.append({"op": "max_pool2d", "kernel": [2, 2], "stride": [1, 1], "padding": [0, 0],
              "dilation": [1, 1], "x": tj(x.detach()), "seed": tj(seed), "y": tj(y.detach()),
              "gx": tj(x.grad)})

def norm_case(op):
    n, c = rng.randint(2, 4), rng.choice([2, 4, 6])
    rank = rng.choice([2, 3, 4]) if op == "batch_norm" else rng.choice([3, 4])
    size = [rng.randint(1, 5) for _ in range(rank - 2)]
    x = rand(n, c, *size).requires_grad_()
    w, b = rand(c).requires_grad_(), rand(c).requires_grad_()
    case = {"op": op, "x": tj(x.detach()), "w": tj(w.detach()), "b": tj(b.detach())}
    if op == "batch_norm":
        rm, rv = rand(c), rand(c).abs() + 0.5
        case["running_mean"], case["running_var"] = tj(rm), tj(rv)
        # Two training steps (the second on 2x), then evaluation.
        y = F.batch_norm(x, rm, rv, w, b, training=True, momentum=0.1, eps=1e-5)
        F.batch_norm(2 * x.detach(), rm, rv, None, None, training=True, momentum=0.1, eps=1e-5)
        case["running_mean_after"], case["running_var_after"] = tj(rm), tj(rv)
        case["y_eval"] = tj(F.batch_norm(x.detach(), rm, rv, w.detach(), b.detach(),
                                         training=False, eps=1e-5))
    else:
        groups = rng.choice([gg for gg in (1, 2, c) if c % gg == 0])
        case["groups"] = groups
        y = F.group_norm(x, groups, w, b, eps=1e-5)
    seed = rand(*y.shape)
    (y * seed).sum().backward()
    case.update({"seed": tj(seed), "y": tj(y.detach()), "gx": tj(x.grad), "gw": tj(w.grad),
                 "gb": tj(b.grad)})
    return case


cases += [transposed_case() for _ in range(20)]
norms = [norm_case(op) for op in ["batch_norm", "group_norm"] for _ in range(8)]

errors = [
    error("conv2d", [2, 4, 5, 5], [8, 3, 3, 3]),
    error("conv2d", [2, 3, 2, 2], [8, 3, 3, 3]),
    error("conv2d", [2, 3, 5, 5], [8, 3, 3, 3], dilation=3),
    error("conv2d", [2, 3, 5, 5], [8, 3, 3, 3], groups=2),
    error("conv2d", [2, 6, 5, 5], [6, 3, 3, 3], groups=4),
    error("conv2d", [2, 6, 5, 5], [2, 3, 3, 3], groups=3),
    error("conv2d", [2, 3, 5, 5], [8, 3, 3, 3], b=[7]),
    error("conv2d", [2, 3, 5, 5], [8, 3, 3, 3], stride=0),
    error("conv2d", [2, 3, 5, 5], [8, 3, 3, 3], stride=2, padding="same"),
    error("conv2d", [2, 3, 5, 5], [8, 3, 3, 3], dilation=0),
    error("conv2d", [2, 3, 5, 5], [8, 3, 3, 3], groups=0),
    error("conv2d", [2, 3, 0, 5], [8, 3, 3, 3]),
    error("conv1d", [2, 3, 2], [4, 3, 3]),
    error("conv1d", [2, 3, 9], [4, 2, 3]),
    error("max_pool2d", [2, 3, 5, 5], kernel_size=3, padding=2),
    error("max_pool2d", [2, 3, 2, 2], kernel_size=3),
    error("max_pool2d", [2, 3, 5, 5], kernel_size=3, stride=0),
    error("max_pool2d", [2, 3, 5, 5], kernel_size=3, dilation=0),
    error("max_pool2d", [2, 3, 5, 5], kernel_size=0),
    error("max_pool2d", [2, 3, 6, 6], kernel_size=3, dilation=3, stride=1),
    error("avg_pool2d", [2, 3, 5, 5], kernel_size=3, padding=2),
    error("avg_pool2d", [2, 3, 2, 2], kernel_size=3),
    error("adaptive_avg_pool2d", [2, 3, 0, 5], output_size=[2, 2]),
    error("conv_transpose2d", [2, 4, 5, 5], [3, 8, 3, 3]),
    error("conv_transpose2d", [2, 3, 5, 5], [3, 8, 3, 3], output_padding=2),
    error("conv_transpose2d", [2, 3, 5, 5], [3, 8, 3, 3], stride=2, output_padding=2),
    error("conv_transpose2d", [2, 3, 5, 5], [3, 8, 3, 3], b=[5]),
    error("conv_transpose2d", [2, 6, 5, 5], [3, 2, 3, 3], groups=2),
    error("conv_transpose2d", [2, 3, 5, 5], [3, 8, 3, 3], stride=0),
]

# Added later, drawn after the others so that those stay as they were:
# averages over the input's elements only (padding not counted).
cases += [pool_case("avg_pool2d", count_include_pad=False) for _ in range(10)]
# ceil_mode: a last window that starts inside the input (or its left
# padding) and reaches past it.
cases += [pool_case("max_pool2d", ceil_mode=True) for _ in range(8)]
cases += [pool_case("avg_pool2d", ceil_mode=True) for _ in range(8)]
cases += [pool_case("avg_pool2d", count_include_pad=False, ceil_mode=True) for _ in range(6)]

# Depthwise convolutions of stride 1 by 3x3, 5x5 and 7x7 taps, which the CPU
# runs by its padded-plane kernels (values and both gradients), rows
# narrower and wider than a vector of 16.
def depthwise_case():
    while True:
        groups, mult = rng.randint(2, 4), rng.choice([1, 1, 2])
        n, k, d = rng.randint(1, 2), rng.choice([3, 5, 7]), rng.choice([1, 1, 2])
        size = [rng.randint(4, 21) for _ in range(2)]
        padding = "same" if rng.random() < 0.25 else [rng.randint(0, d * (k - 1) // 2) for _ in range(2)]
        x = rand(n, groups, *size).requires_grad_()
        w = rand(groups * mult, 1, k, k).requires_grad_()
        b = rand(groups * mult).requires_grad_() if rng.random() < 0.5 else None
        try:
            y = F.conv2d(x, w, b, stride=1, padding=padding, dilation=d, groups=groups)
        except RuntimeError:
            continue  # a kernel larger than the input
        seed = rand(*y.shape)
        (y * seed).sum().backward()
        case = {"op": "conv2d", "stride": [1, 1], "padding": padding, "dilation": [d, d],
                "groups": groups, "x": tj(x.detach()), "w": tj(w.detach()), "seed": tj(seed),
                "y": tj(y.detach()), "gx": tj(x.grad), "gw": tj(w.grad)}
        if b is not None:
            case["b"] = tj(b.detach())
            case["gb"] = tj(b.grad)
        return case


cases += [depthwise_case() for _ in range(12)]

path = os.path.join(os.path.dirname(__file__), "conv_cases.json")
with open(path, "w") as f:
    json.dump({"torch": torch.__version__, "cases": cases, "norms": norms, "errors": errors}, f)
print(path, len(cases), "cases,", len(errors), "errors,", os.path.getsize(path), "bytes")
