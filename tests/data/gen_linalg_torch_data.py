"""Writes tests/data/linalg_torch_cases.json: small batched inputs and
PyTorch's results for the torch.linalg functions added after the NumPy set
(solve_triangular, lu, lu_factor, matrix_power, matrix_exp, vector_norm,
cross, multi_dot, matrix_rank, cond, householder_product, eigvals, lstsq's
parts, the *_ex forms) and their gradients, read by
tests/linalg_torch.rs.

Run from the repository root: /work/pyenv/bin/python tests/data/gen_linalg_torch_data.py
"""

import json
import pathlib

import numpy as np
import torch

torch.manual_seed(20261124)
D = torch.float64


def num(v):
    """A float for JSON: non-finite values as the strings "inf", "-inf", "nan"."""
    v = float(v)
    return v if np.isfinite(v) else str(v)


def arr(x):
    x = torch.as_tensor(x).detach().to(D)
    return {"shape": list(x.shape), "data": [num(v) for v in x.reshape(-1)]}


def rand(*shape):
    return torch.randn(*shape, dtype=D)


def square(batch, n):
    return rand(*batch, n, n) + n * torch.eye(n, dtype=D)


def grad_of(f, *xs, seed=None):
    """Gradients of sum(seed * f(*xs)) with respect to each x."""
    xs = [x.clone().requires_grad_(True) for x in xs]
    out = f(*xs)
    if seed is None:
        seed = rand(*out.shape)
    (out * seed).sum().backward()
    return seed, [x.grad for x in xs]


cases = {}
L = torch.linalg

# solve_triangular, left and right, upper/lower/unit, broadcast batches.
a = rand(2, 1, 4, 4) + 4 * torch.eye(4, dtype=D)
b = rand(3, 4, 2)
c = {"a": arr(a), "b": arr(b)}
for up in (True, False):
    for unit in (True, False):
        key = ("upper" if up else "lower") + ("_unit" if unit else "")
        c[key] = arr(L.solve_triangular(a, b, upper=up, unitriangular=unit))
br = rand(3, 2, 4)
c["b_right"] = arr(br)
c["right_upper"] = arr(L.solve_triangular(a, br, upper=True, left=False))
seed, (ga, gb) = grad_of(lambda x, y: L.solve_triangular(x, y, upper=True), a, b)
c.update(grad_seed=arr(seed), grad_a=arr(ga), grad_b=arr(gb))
cases["solve_triangular"] = c

# lu_factor / lu on rectangular, batched and singular matrices.
for name, m in [
    ("tall", rand(2, 5, 3)),
    ("wide", rand(2, 3, 5)),
    ("square", rand(3, 4, 4)),
]:
    lu, piv = L.lu_factor(m)
    p, l, u = L.lu(m)
    cases["lu_" + name] = {
        "a": arr(m),
        "lu": arr(lu),
        "pivots": [int(v) for v in piv.reshape(-1)],
        "p": arr(p),
        "l": arr(l),
        "u": arr(u),
    }
sing = torch.tensor([[[1.0, 2, 3], [2, 4, 6], [1, 0, 1]], [[0.0, 0, 0], [0, 0, 0], [0, 0, 0]]], dtype=D)
lu, piv, info = L.lu_factor_ex(sing)
cases["lu_factor_ex"] = {
    "a": arr(sing),
    "lu": arr(lu),
    "pivots": [int(v) for v in piv.reshape(-1)],
    "info": [int(v) for v in info.reshape(-1)],
}

# matrix_power, positive and negative, with gradients.
a = square((2,), 3) / 3
c = {"a": arr(a)}
for k in (0, 1, 2, 5, -1, -3):
    c[f"p{k}"] = arr(L.matrix_power(a, k))
for k in (3, -2):
    seed, (g,) = grad_of(lambda x: L.matrix_power(x, k), a)
    c[f"grad_seed{k}"] = arr(seed)
    c[f"grad{k}"] = arr(g)
cases["matrix_power"] = c

# matrix_exp on small and large norms, with its gradient.
a = rand(3, 4, 4)
a[2] *= 10
c = {"a": arr(a), "out": arr(L.matrix_exp(a))}
seed, (g,) = grad_of(L.matrix_exp, a[:2])
c.update(grad_a=arr(a[:2]), grad_seed=arr(seed), grad=arr(g))
cases["matrix_exp"] = c

# vector_norm over everything and over dims, several ords.
x = rand(2, 3, 4)
c = {"x": arr(x)}
for name, o in [("two", 2), ("one", 1), ("inf", float("inf")), ("ninf", float("-inf")), ("zero", 0), ("half", 0.5), ("three", 3), ("neg_one", -1)]:
    c[name] = num(L.vector_norm(x, ord=o))
    c[name + "_dims"] = arr(L.vector_norm(x, ord=o, dim=(0, -1)))
    c[name + "_keep"] = arr(L.vector_norm(x, ord=o, dim=1, keepdim=True))
seed, (g,) = grad_of(lambda v: L.vector_norm(v, ord=3, dim=(0, -1)), x)
c.update(grad_seed=arr(seed), grad=arr(g))
cases["vector_norm"] = c

# cross with broadcasting, and its gradients.
a, b = rand(2, 1, 3), rand(4, 3)
a4 = a.expand(2, 4, 3)
c = {"a": arr(a), "b": arr(b), "out": arr(L.cross(a4, b.expand(2, 4, 3)))}
seed, (ga, gb) = grad_of(lambda u, v: L.cross(u.expand(2, 4, 3), v.expand(2, 4, 3)), a, b)
c.update(grad_seed=arr(seed), grad_a=arr(ga), grad_b=arr(gb))
cases["cross"] = c

# multi_dot with vectors at the ends.
ms = [rand(5), rand(5, 2), rand(2, 7), rand(7, 3), rand(3)]
cases["multi_dot"] = {
    "ms": [arr(m) for m in ms],
    "out": arr(L.multi_dot(ms)),
    "out_mats": arr(L.multi_dot(ms[1:4])),
}

# matrix_rank and cond.
r = torch.stack([rand(5, 2) @ rand(2, 4), rand(5, 4), torch.zeros(5, 4, dtype=D)])
cases["matrix_rank"] = {
    "a": arr(r),
    "default": [int(v) for v in L.matrix_rank(r)],
    "atol": [int(v) for v in L.matrix_rank(r, atol=1.0)],
    "rtol": [int(v) for v in L.matrix_rank(r, rtol=0.3)],
}
a = rand(3, 4, 4)
rect = rand(2, 5, 3)
c = {"a": arr(a), "a_rect": arr(rect)}
for name, p in [("none", None), ("fro", "fro"), ("nuc", "nuc"), ("one", 1), ("neg_one", -1), ("inf", float("inf")), ("neg_inf", float("-inf")), ("two", 2), ("neg_two", -2)]:
    c[name] = arr(L.cond(a, p))
c["rect_none"] = arr(L.cond(rect))
c["rect_neg_two"] = arr(L.cond(rect, -2))
cases["cond"] = c

# householder_product from geqrf.
a = rand(2, 5, 3)
qr_a, tau = torch.geqrf(a)
cases["householder_product"] = {
    "a": arr(qr_a),
    "tau": arr(tau),
    "out": arr(L.householder_product(qr_a, tau)),
    "out_k2": arr(L.householder_product(qr_a, tau[..., :2])),
}

# eigvals of general matrices (compared as sets: the order is unspecified).
a = rand(3, 4, 4)
w = L.eigvals(a)
cases["eigvals"] = {"a": arr(a), "re": arr(w.real), "im": arr(w.imag)}

# lstsq's parts per driver.
a, b = rand(2, 6, 3), rand(2, 6, 2)
c = {"a": arr(a), "b": arr(b)}
for d in ("gels", "gelsy", "gelsd", "gelss"):
    r = L.lstsq(a, b, driver=d)
    c[d] = {
        "solution": arr(r.solution),
        "residuals": arr(r.residuals),
        "rank": [int(v) for v in r.rank.reshape(-1)],
        "singular_values": arr(r.singular_values),
    }
bv = rand(2, 6)
c["b_vec"] = arr(bv)
c["vec_gelsd"] = {"solution": arr(L.lstsq(a, bv, driver="gelsd").solution), "residuals": arr(L.lstsq(a, bv, driver="gelsd").residuals)}
cases["lstsq_parts"] = c

# The *_ex forms on singular / not positive-definite inputs.
m = torch.tensor([[[1.0, 2], [2, 4]], [[2, 1], [1, 3]]], dtype=D)
inv, info = L.inv_ex(m)
ch = torch.tensor([[[4.0, 2, 1], [2, 1, 3], [1, 3, 9]], [[4.0, 2, 1], [2, 5, 3], [1, 3, -9]], [[4.0, 2, 1], [2, 5, 3], [1, 3, 9]]], dtype=D)
l, cinfo = L.cholesky_ex(ch)
cases["ex"] = {
    "m": arr(m),
    "inv": arr(inv),
    "inv_info": [int(v) for v in info],
    "spd": arr(ch),
    "cholesky": arr(l),
    "cholesky_info": [int(v) for v in cinfo],
}

# det's gradient at singular matrices: PyTorch's exact formula
# (create_graph=True), the transposed adjugate.
s = torch.tensor([[[1.0, 2, 3], [2, 4, 6], [1, 0, 1]], [[1.0, 2, 3], [2, 4, 6], [3, 6, 9]], [[0.0, 1, 0], [0, 0, 1], [0, 0, 0]]], dtype=D, requires_grad=True)
(g,) = torch.autograd.grad(L.det(s).sum(), s, create_graph=True)
cases["det_grad_singular"] = {"a": arr(s), "grad": arr(g)}

out = pathlib.Path(__file__).with_name("linalg_torch_cases.json")
out.write_text(json.dumps(cases, indent=None, separators=(",", ":"), allow_nan=False) + "\n")
print(f"wrote {out}")
