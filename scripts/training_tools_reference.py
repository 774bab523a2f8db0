#!/usr/bin/env python3
"""Reference values for tests/training_tools.rs (data/training/tools.json):
F.cross_entropy over (B, T, V) logits with ignore_index and label smoothing
(values and gradients, three reductions), clip_grad_norm_, and the learning
rates of transformers' warm-up schedules driven through LambdaLR.

Usage: python3 scripts/training_tools_reference.py > data/training/tools.json
Needs torch and transformers (pip).
"""
import json

import torch
import torch.nn.functional as F
from transformers import get_cosine_schedule_with_warmup, get_linear_schedule_with_warmup


def flat(t):
    return [float(x) for x in t.detach().reshape(-1).tolist()]


def main():
    g = torch.Generator().manual_seed(0)
    logits = torch.randn(2, 3, 5, generator=g, dtype=torch.float64)
    targets = torch.tensor([[0, 4, -100], [2, -100, 1]])
    ce = []
    for reduction in ["mean", "sum", "none"]:
        for smoothing in [0.0, 0.1]:
            x = logits.clone().requires_grad_(True)
            # PyTorch wants the classes at axis 1: (B, V, T).
            loss = F.cross_entropy(
                x.transpose(1, 2), targets, reduction=reduction, label_smoothing=smoothing
            )
            loss.sum().backward()
            ce.append(
                {
                    "reduction": reduction,
                    "label_smoothing": smoothing,
                    "loss": flat(loss),
                    "grad": flat(x.grad),
                }
            )

    a = torch.randn(3, 4, generator=g, dtype=torch.float64)
    b = torch.randn(5, generator=g, dtype=torch.float64)
    pa, pb = a.clone().requires_grad_(True), b.clone().requires_grad_(True)
    # Gradients 2a and 3b².
    ((pa**2).sum() + (pb**3).sum()).backward()
    total = torch.nn.utils.clip_grad_norm_([pa, pb], max_norm=1.5)
    clip = {
        "a": flat(a),
        "b": flat(b),
        "max_norm": 1.5,
        "total_norm": float(total),
        "grad_a": flat(pa.grad),
        "grad_b": flat(pb.grad),
    }

    schedules = {}
    for name, make in [
        ("cosine", get_cosine_schedule_with_warmup),
        ("linear", get_linear_schedule_with_warmup),
    ]:
        p = torch.nn.Parameter(torch.zeros(1))
        opt = torch.optim.AdamW([p], lr=3e-4)
        sched = make(opt, num_warmup_steps=3, num_training_steps=12)
        lrs = []
        for _ in range(14):
            lrs.append(opt.param_groups[0]["lr"])
            opt.step()
            sched.step()
        schedules[name] = {"base_lr": 3e-4, "warmup": 3, "total": 12, "lrs": lrs}

    json.dump(
        {
            "logits": flat(logits),
            "targets": targets.reshape(-1).tolist(),
            "cross_entropy": ce,
            "clip": clip,
            "schedules": schedules,
        },
        __import__("sys").stdout,
        indent=1,
    )
    print()


if __name__ == "__main__":
    main()
