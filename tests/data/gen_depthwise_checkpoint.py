#!/usr/bin/env python3
"""Writes a PyTorch depthwise-separable block's checkpoint, and what PyTorch
computes with it, for `tests/checkpoint.rs`:

- tests/data/safetensors/depthwise_checkpoint.safetensors: the state dict of
  Conv2d(4, 4, 3, stride=2, padding=1, groups=4) (the depthwise step, named
  `dw`) -> Conv2d(4, 6, 1) (the pointwise step, `pw`), random weights.
- tests/data/safetensors/depthwise_outputs.safetensors: an input `x`
  (2, 4, 7, 7), a seed `seed` (2, 6, 4, 4), the block's output `y` and the
  gradients of sum(y * seed) with respect to x and each parameter
  (`grad.x`, `grad.dw.weight`, ...).

Run from the repository root:
    .venv/bin/python tests/data/gen_depthwise_checkpoint.py
"""
import torch
from safetensors.torch import save_file

torch.manual_seed(0)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.dw = torch.nn.Conv2d(4, 4, 3, stride=2, padding=1, groups=4)
        self.pw = torch.nn.Conv2d(4, 6, 1)

    def forward(self, x):
        return self.pw(torch.relu(self.dw(x)))


net = Block()
out = "tests/data/safetensors/"
save_file({k: v.contiguous() for k, v in net.state_dict().items()},
          out + "depthwise_checkpoint.safetensors")

x = torch.randn(2, 4, 7, 7, requires_grad=True)
y = net(x)
seed = torch.randn(*y.shape)
(y * seed).sum().backward()
tensors = {"x": x.detach(), "seed": seed, "y": y.detach(), "grad.x": x.grad}
for name, p in net.named_parameters():
    tensors["grad." + name] = p.grad
save_file(tensors, out + "depthwise_outputs.safetensors")
print(repr(net.dw), sorted(tensors))
