"""Writes tests/data/linalg_grad_torch_cases.json: PyTorch's gradients of
vector_norm (over all elements), norm, matrix_norm, cond, multi_dot, lstsq,
householder_product, lu and eig/eigvals on small batched inputs, read by
tests/linalg_grad_torch.rs. Each gradient is that of sum(seed * f(x)) for a
random seed, except for eig, whose loss must not depend on the order of the
eigenvalues or the phases of the eigenvectors (see eig_loss).

Run from the repository root: /work/pyenv/bin/python tests/data/gen_linalg_grad_torch_data.py
"""

import json
import math
import pathlib

import torch

torch.manual_seed(20261125)
D = torch.float64
L = torch.linalg


def arr(x):
    x = torch.as_tensor(x).detach().to(D)
    return {"shape": list(x.shape), "data": [float(v) for v in x.reshape(-1)]}


def rand(*shape):
    return torch.randn(shape, dtype=D)


def grads(f, *xs):
    """(seed, gradients of sum(seed * f(*xs)) for each x)."""
    xs = [x.clone().requires_grad_(True) for x in xs]
    out = f(*xs)
    seed = rand(*out.shape)
    (out * seed).sum().backward()
    return seed, [x.grad for x in xs]


def ord_key(o):
    return "none" if o is None else str(o)


cases = {}

x = rand(2, 3, 2)
c = {"x": arr(x)}
for o in (2, 1, 3, 0.5, math.inf, -math.inf):
    seed, (g,) = grads(lambda t: L.vector_norm(t, ord=o), x)
    c[ord_key(o)] = {"seed": arr(seed), "grad": arr(g)}
cases["vector_norm"] = c

v, m = rand(5), rand(3, 4)
c = {"v": arr(v), "m": arr(m), "x": arr(x)}
seed, (g,) = grads(lambda t: L.norm(t, ord=3), v)
c["v3"] = {"seed": arr(seed), "grad": arr(g)}
seed, (g,) = grads(lambda t: L.norm(t), x)
c["x_none"] = {"seed": arr(seed), "grad": arr(g)}
for o in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
    seed, (g,) = grads(lambda t: L.norm(t, ord=o), m)
    c["m_" + ord_key(o)] = {"seed": arr(seed), "grad": arr(g)}
cases["norm"] = c

a = rand(2, 3, 4)
c = {"a": arr(a)}
for o in ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf):
    seed, (g,) = grads(lambda t: L.matrix_norm(t, ord=o), a)
    c[ord_key(o)] = {"seed": arr(seed), "grad": arr(g)}
cases["matrix_norm"] = c

sq = rand(2, 3, 3) + 2 * torch.eye(3, dtype=D)
c = {"a": arr(sq), "rect": arr(a)}
for o in (None, 2, -2, "nuc"):
    seed, (g,) = grads(lambda t: L.cond(t, p=o), sq)
    c[ord_key(o)] = {"seed": arr(seed), "grad": arr(g)}
# torch 2.15's own backward of cond for these orders fails ("modified by an
# inplace operation" on linalg_inv_ex's output); its definition, recorded
# the same way, gives the reference.
for o in ("fro", 1, -1, math.inf, -math.inf):
    assert torch.allclose(L.cond(sq, p=o), L.matrix_norm(sq, ord=o) * L.matrix_norm(L.inv(sq), ord=o))
    seed, (g,) = grads(lambda t: L.matrix_norm(t, ord=o) * L.matrix_norm(L.inv(t), ord=o), sq)
    c[ord_key(o)] = {"seed": arr(seed), "grad": arr(g)}
seed, (g,) = grads(lambda t: L.cond(t), a)
c["rect_none"] = {"seed": arr(seed), "grad": arr(g)}
cases["cond"] = c

ms = [rand(3), rand(3, 4), rand(4, 2), rand(2)]
seed, gs = grads(lambda *t: L.multi_dot(t), *ms)
c = {"vec": {"inputs": [arr(t) for t in ms], "seed": arr(seed), "grads": [arr(t) for t in gs]}}
ms = [rand(2, 3), rand(3, 4), rand(4, 5)]
seed, gs = grads(lambda *t: L.multi_dot(t), *ms)
c["mat"] = {"inputs": [arr(t) for t in ms], "seed": arr(seed), "grads": [arr(t) for t in gs]}
cases["multi_dot"] = c

c = {}
for key, sa, sb in (("tall", (2, 5, 3), (2, 5, 2)), ("wide", (2, 3, 5), (2, 3, 2)),
                    ("vector", (2, 5, 3), (2, 5)), ("broadcast", (1, 5, 3), (3, 5, 2))):
    A, B = rand(*sa), rand(*sb)
    seed, (ga, gb) = grads(lambda p, q: L.lstsq(p, q).solution, A, B)
    c[key] = {"a": arr(A), "b": arr(B), "seed": arr(seed), "grad_a": arr(ga), "grad_b": arr(gb)}
cases["lstsq"] = c

A, tau = rand(2, 4, 3), rand(2, 2)
seed, (ga, gt) = grads(L.householder_product, A, tau)
cases["householder_product"] = {"a": arr(A), "tau": arr(tau), "seed": arr(seed), "grad_a": arr(ga), "grad_tau": arr(gt)}

c = {}
for key, shape in (("square", (2, 3, 3)), ("wide", (2, 3, 5)), ("tall", (2, 5, 3))):
    A = rand(*shape).requires_grad_(True)
    P, Lo, U = L.lu(A)
    wl, wu = rand(*Lo.shape), rand(*U.shape)
    ((Lo * wl).sum() + (U * wu).sum()).backward()
    c[key] = {"a": arr(A), "seed_l": arr(wl), "seed_u": arr(wu), "grad": arr(A.grad)}
cases["lu"] = c


def eig_loss(lam, vecs, w):
    """Invariant under reordering the eigenpairs and under the phase of each
    eigenvector: functions of each eigenvalue summed, and |V_ij|² weighted
    by row."""
    loss = (lam.real ** 3).sum() + (lam.real * lam.imag ** 2).sum()
    if vecs is not None:
        loss = loss + ((vecs.abs() ** 2) * w.unsqueeze(-1)).sum()
    return loss


A = rand(2, 4, 4)
w = rand(4)
Ag = A.clone().requires_grad_(True)
lam, vecs = L.eig(Ag)
eig_loss(lam, vecs, w).backward()
c = {"a": arr(A), "w": arr(w), "grad_eig": arr(Ag.grad)}
Ag = A.clone().requires_grad_(True)
eig_loss(L.eigvals(Ag), None, w).backward()
c["grad_eigvals"] = arr(Ag.grad)
c["has_complex"] = bool((L.eigvals(A).imag.abs() > 1e-6).any())
cases["eig"] = c

out = pathlib.Path(__file__).with_name("linalg_grad_torch_cases.json")
out.write_text(json.dumps(cases, indent=None, separators=(",", ":"), allow_nan=False) + "\n")
print(f"wrote {out}")
