"""Runs benches/linalg_grad.rs (criterion) and the same forward + backward
passes in PyTorch (2 threads, float64) in one session, and prints the times
and the ratios shaped / PyTorch (below 1: shaped is faster), for the
device-composed rules autograd runs and the per-matrix formulas it ran
before.

From the repository root: .venv/bin/python benches/compare_linalg_grad.py
"""

import os
import re
import subprocess
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from compare_linalg import median_ms  # noqa: E402

OPS = ["det", "cholesky", "solve_triangular", "lu", "householder_product"]
SIZES = [(256, 8), (64, 64)]


def torch_times(batch, n):
    g = torch.Generator().manual_seed(1)
    a0 = torch.rand(batch, n, n, generator=g, dtype=torch.float64) * 2 - 1
    a0 = a0 + n * torch.eye(n, dtype=torch.float64)
    spd0 = a0 @ a0.mT
    b0 = torch.rand(batch, n, n, generator=g, dtype=torch.float64) * 2 - 1
    tau0 = torch.rand(batch, n, generator=g, dtype=torch.float64) * 2 - 1

    def grad_of(make, *inputs):
        xs = [x.clone().requires_grad_(True) for x in inputs]

        def run():
            for x in xs:
                x.grad = None
            out = make(*xs)
            sum(o.sum() for o in (out if isinstance(out, tuple) else (out,))).backward()

        return run

    cases = {
        "det": grad_of(torch.linalg.det, a0),
        "cholesky": grad_of(torch.linalg.cholesky, spd0),
        "solve_triangular": grad_of(
            lambda a, b: torch.linalg.solve_triangular(a, b, upper=True), a0, b0
        ),
        "lu": grad_of(lambda a: torch.linalg.lu(a)[1:], a0),
        "householder_product": grad_of(torch.linalg.householder_product, a0, tau0),
    }
    return {op: median_ms(f) for op, f in cases.items()}


def shaped_times():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run(
        [
            "cargo", "bench", "--quiet", "--bench", "linalg_grad", "--",
            "--warm-up-time", "1", "--measurement-time", "3",
            "--output-format", "bencher",
        ],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    times = {}
    for line in out.splitlines():
        m = re.match(r"test linalg backward (\d+)x(\d+)x\d+ f64/(\w+) (\S+) \.\.\. bench:\s+([\d,]+) ns/iter", line)
        if m:
            batch, n, op, how, ns = m.groups()
            times[(int(batch), int(n), op, how)] = int(ns.replace(",", "")) / 1e6
    return times


def main():
    torch.set_num_threads(2)
    s = shaped_times()
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, float64")
    print(f"{'case':<34}{'composed':>10}{'per-matrix':>12}{'torch':>9}{'comp/torch':>12}{'comp/per':>10}")
    for batch, n in SIZES:
        t = torch_times(batch, n)
        for op in OPS:
            c, p = s[(batch, n, op, "composed")], s[(batch, n, op, "per-matrix")]
            print(
                f"{op + f' {batch}x{n}x{n}':<34}{c:>10.3f}{p:>12.3f}{t[op]:>9.3f}"
                f"{c / t[op]:>12.2f}{c / p:>10.2f}"
            )


if __name__ == "__main__":
    main()
