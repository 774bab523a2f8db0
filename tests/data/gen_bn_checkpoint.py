#!/usr/bin/env python3
"""Writes a PyTorch CNN checkpoint with batch norm, and what PyTorch computes
with it, for `tests/checkpoint.rs`:

- tests/data/safetensors/conv_bn_checkpoint.safetensors: the state dict of
  Conv2d(2, 4, 3, padding=1) -> BatchNorm2d(4) -> ReLU, trained 3 SGD steps
  in training mode (so the running statistics have moved and
  num_batches_tracked is 3), saved with safetensors.torch.save_file: the
  buffers running_mean, running_var and num_batches_tracked (int64, 0-d)
  sit next to the parameters.
- tests/data/safetensors/conv_bn_outputs.safetensors: an input `x`
  (3, 2, 5, 5); the model's output on it in eval mode (`eval`); then, back
  in training mode, its output on `x` (`train`) and the running statistics
  after that forward pass (`running_mean`, `running_var`).

Run from the repository root:
    .venv/bin/python tests/data/gen_bn_checkpoint.py
"""
import torch
from safetensors.torch import save_file

torch.manual_seed(0)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(2, 4, 3, padding=1)
        self.norm = torch.nn.BatchNorm2d(4)

    def forward(self, x):
        return torch.relu(self.norm(self.conv(x)))


net = Net()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(3):
    batch = torch.randn(6, 2, 5, 5) * 2 + 0.5
    opt.zero_grad()
    net(batch).square().mean().backward()
    opt.step()
assert int(net.norm.num_batches_tracked) == 3

out = "tests/data/safetensors/"
save_file({k: v.contiguous() for k, v in net.state_dict().items()},
          out + "conv_bn_checkpoint.safetensors")

x = torch.randn(3, 2, 5, 5)
with torch.no_grad():
    net.eval()
    y_eval = net(x)
    net.train()
    y_train = net(x)
save_file(
    {
        "x": x,
        "eval": y_eval,
        "train": y_train,
        "running_mean": net.norm.running_mean.clone(),
        "running_var": net.norm.running_var.clone(),
    },
    out + "conv_bn_outputs.safetensors",
)
print(sorted(net.state_dict().keys()))
