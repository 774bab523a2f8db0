#!/usr/bin/env python3
"""Generates tests/data/nn_cases.json: PyTorch's values for `shaped::nn`.

- losses: mse_loss, nll_loss, cross_entropy (class indices and class
  probabilities) and binary_cross_entropy_with_logits, each with reduction
  none / mean / sum, in float64: the loss and the gradient with respect to
  the input of `(loss * upstream).sum()` (upstream random for 'none', 1
  otherwise). Logits include large magnitudes (+-300) and exact zeros.
- optimizers: a tiny model (Linear(3, 4) -> tanh -> Linear(4, 2), MSE
  against a fixed target on a fixed batch of 5) trained 6 steps by SGD
  (plain; momentum with dampening and weight decay; Nesterov with weight
  decay), Adam (defaults; weight decay; other betas and eps) and AdamW, in
  float64: the initial parameters and, after each step, the loss and all
  parameters, in `model.parameters()` order.
- layers: LayerNorm(5) and Embedding(7, 3) forward values and gradients.

Run from the repository root:
    python3 -m venv .venv && .venv/bin/pip install torch numpy
    .venv/bin/python tests/data/gen_nn_data.py

The Rust tests `tests/nn_losses.rs`, `tests/nn_optim.rs` and
`tests/nn_layers.rs` read the file.
"""
import json
import os

import torch
import torch.nn.functional as F

torch.set_default_dtype(torch.float64)
g = torch.Generator().manual_seed(0)


def tj(t):
    return {"shape": list(t.shape), "data": t.detach().reshape(-1).tolist()}


def randn(*shape, scale=1.0):
    return torch.randn(*shape, generator=g) * scale


def loss_case(name, fn, inp, target, reduction, target_is_index=False):
    x = inp.clone().requires_grad_(True)
    out = fn(x, target, reduction=reduction)
    upstream = randn(*out.shape) if reduction == "none" else torch.ones(())
    (out * upstream).sum().backward()
    return {
        "loss": name,
        "reduction": reduction,
        "input": tj(inp),
        "target": {"shape": list(target.shape), "data": target.reshape(-1).tolist()},
        "upstream": tj(upstream),
        "output": tj(out),
        "grad": tj(x.grad),
    }


def losses():
    cases = []
    B, C = 6, 5
    logits = randn(B, C, scale=3.0)
    logits[0, :] = torch.tensor([300.0, -300.0, 0.0, 299.0, 1.0])  # large: log_softmax must not overflow
    logits[1, 2] = 0.0
    idx = torch.randint(0, C, (B,), generator=g)
    probs = torch.softmax(randn(B, C), dim=1)
    for r in ("none", "mean", "sum"):
        cases.append(loss_case("mse", F.mse_loss, randn(3, 4), randn(3, 4), r))
        cases.append(loss_case("nll", F.nll_loss, torch.log_softmax(logits, 1), idx, r))
        cases.append(loss_case("cross_entropy", F.cross_entropy, logits, idx, r))
        cases.append(loss_case("cross_entropy_probs", F.cross_entropy, logits, probs, r))
        x = randn(3, 4, scale=4.0)
        x[0, 0], x[0, 1], x[0, 2], x[0, 3] = 0.0, 300.0, -300.0, 40.0
        y = torch.rand(3, 4, generator=g)
        y[0, 1], y[0, 2] = 0.0, 1.0
        cases.append(loss_case("bce_with_logits", F.binary_cross_entropy_with_logits, x, y, r))
    return cases


class Tiny(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(3, 4)
        self.b = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.b(torch.tanh(self.a(x)))


def trajectory(name, make_opt, steps=6):
    torch.manual_seed(1)
    model = Tiny()
    x = torch.randn(5, 3)
    y = torch.randn(5, 2)
    initial = [tj(p) for p in model.parameters()]
    opt = make_opt(model.parameters())
    out = []
    for _ in range(steps):
        opt.zero_grad()
        loss = F.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        out.append({"loss": loss.item(), "params": [tj(p) for p in model.parameters()]})
    return {"name": name, "x": tj(x), "y": tj(y), "initial": initial, "steps": out}


def optimizers():
    O = torch.optim
    return [
        trajectory("sgd", lambda p: O.SGD(p, lr=0.1)),
        trajectory("sgd_momentum", lambda p: O.SGD(p, lr=0.1, momentum=0.9, dampening=0.2, weight_decay=0.05)),
        trajectory("sgd_nesterov", lambda p: O.SGD(p, lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.01)),
        trajectory("adam", lambda p: O.Adam(p, lr=0.01)),
        trajectory("adam_weight_decay", lambda p: O.Adam(p, lr=0.02, weight_decay=0.1)),
        trajectory("adam_betas", lambda p: O.Adam(p, lr=0.01, betas=(0.5, 0.9), eps=1e-3)),
        trajectory("adamw", lambda p: O.AdamW(p, lr=0.01)),
        trajectory("adamw_decay", lambda p: O.AdamW(p, lr=0.05, weight_decay=0.3, betas=(0.8, 0.95))),
    ]


def layers():
    ln = torch.nn.LayerNorm(5)
    with torch.no_grad():
        ln.weight.copy_(randn(5))
        ln.bias.copy_(randn(5))
    x = randn(4, 5, scale=2.0).requires_grad_(True)
    up = randn(4, 5)
    out = ln(x)
    (out * up).sum().backward()
    layer_norm = {
        "weight": tj(ln.weight), "bias": tj(ln.bias), "input": tj(x), "upstream": tj(up),
        "output": tj(out), "grad_input": tj(x.grad), "grad_weight": tj(ln.weight.grad),
        "grad_bias": tj(ln.bias.grad), "eps": ln.eps,
    }
    emb = torch.nn.Embedding(7, 3)
    idx = torch.tensor([3, 0, 3, 6, 1])
    up = randn(5, 3)
    out = emb(idx)
    (out * up).sum().backward()
    embedding = {
        "weight": tj(emb.weight), "indices": idx.tolist(), "upstream": tj(up),
        "output": tj(out), "grad_weight": tj(emb.weight.grad),
    }
    return {"layer_norm": layer_norm, "embedding": embedding}


data = {"losses": losses(), "optimizers": optimizers(), "layers": layers()}
path = os.path.join("tests", "data", "nn_cases.json")
with open(path, "w") as f:
    json.dump(data, f, indent=None, separators=(",", ":"))
    f.write("\n")
print("wrote", path, os.path.getsize(path), "bytes")
