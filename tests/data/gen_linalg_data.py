"""Writes tests/data/linalg_cases.json: small batched inputs and NumPy's
results for the linear-algebra functions, read by tests/linalg_numpy.rs.

Run from the repository root: .venv/bin/python tests/data/gen_linalg_data.py
"""

import json
import pathlib

import numpy as np

rng = np.random.default_rng(20240609)


def arr(x):
    x = np.asarray(x, dtype=np.float64)
    return {"shape": list(x.shape), "data": [float(v) for v in x.ravel()]}


def square(batch, n):
    return rng.standard_normal(batch + (n, n)) + n * np.eye(n)


def spd(batch, n):
    m = rng.standard_normal(batch + (n, n))
    return m @ np.swapaxes(m, -1, -2) + n * np.eye(n)


cases = {}

a = square((2, 3), 4)
cases["inv"] = {"a": arr(a), "out": arr(np.linalg.inv(a))}

a = rng.standard_normal((3, 5, 5))
sign, logabs = np.linalg.slogdet(a)
cases["det"] = {"a": arr(a), "out": arr(np.linalg.det(a))}
cases["slogdet"] = {"a": arr(a), "sign": arr(sign), "logabs": arr(logabs)}

a = square((2, 1), 4)
b = rng.standard_normal((3, 4, 2))
cases["solve"] = {"a": arr(a), "b": arr(b), "out": arr(np.linalg.solve(a, b))}

a = rng.standard_normal((2, 6, 3))
b = rng.standard_normal((2, 6, 2))
cases["lstsq"] = {
    "a": arr(a),
    "b": arr(b),
    "out": arr(np.stack([np.linalg.lstsq(a[i], b[i], rcond=None)[0] for i in range(2)])),
}
# A rank-deficient one: the minimum-norm solution.
r = rng.standard_normal((5, 2)) @ rng.standard_normal((2, 4))
rb = rng.standard_normal((5, 1))
cases["lstsq_rank_deficient"] = {
    "a": arr(r),
    "b": arr(rb),
    "out": arr(np.linalg.lstsq(r, rb, rcond=None)[0]),
}

a = rng.standard_normal((2, 3, 5))
cases["pinv"] = {"a": arr(a), "out": arr(np.linalg.pinv(a))}

a = rng.standard_normal((2, 4, 3))
cases["matrix_norm"] = {
    "a": arr(a),
    **{
        name: arr(np.linalg.norm(a, ord=o, axis=(-2, -1)))
        for name, o in [
            ("fro", "fro"),
            ("nuc", "nuc"),
            ("one", 1),
            ("neg_one", -1),
            ("inf", np.inf),
            ("neg_inf", -np.inf),
            ("two", 2),
            ("neg_two", -2),
        ]
    },
}

a = rng.standard_normal((2, 2, 4, 6))
cases["svdvals"] = {"a": arr(a), "out": arr(np.linalg.svd(a, compute_uv=False))}

s = spd((3,), 5) - 3 * np.eye(5)  # symmetric, indefinite
cases["eigvalsh"] = {"a": arr(s), "out": arr(np.linalg.eigvalsh(s))}

a = spd((2,), 4)
cases["cholesky"] = {"a": arr(a), "out": arr(np.linalg.cholesky(a))}

out = pathlib.Path(__file__).with_name("linalg_cases.json")
out.write_text(json.dumps(cases, indent=None, separators=(",", ":")) + "\n")
print(f"wrote {out}")
