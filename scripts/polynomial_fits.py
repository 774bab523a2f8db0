#!/usr/bin/env python3
"""The polynomials of `pow_f32` (src/backend/op/power.rs) and `atan2_f32`
(src/backend/op/trig.rs): near-minimax fits of relative error, by Lawson's
iteratively reweighted least squares over Chebyshev nodes, printed with
their largest relative error on a dense grid (in powers of two).

- `atanh(s) / s` as a polynomial in `z = s^2` for `|s| <= (√2 - 1)/(√2 + 1)`
  (the range of `s = (m - 1)/(m + 1)`, `m` in `[√2/2, √2)`), 5 coefficients.
- `2^w` for `w` in `[-1/2, 1/2]`, 7 coefficients (degree 6).
- `atan(t) / t` as a polynomial in `t^2` for `|t| <= tan(π/8)`, 6
  coefficients.

Usage: python3 scripts/polynomial_fits.py   (needs numpy)
"""
import numpy as np


def lawson(x, f, degree, iterations=300):
    """Coefficients (lowest first) of the polynomial of `degree` in `x`
    that nearly minimises max |p(x) / f(x) - 1|."""
    v = x[:, None] ** np.arange(degree + 1)
    a = v / f[:, None]
    w = np.full_like(x, 1.0 / len(x))
    for _ in range(iterations):
        sw = np.sqrt(w)
        c = np.linalg.lstsq(a * sw[:, None], sw, rcond=None)[0]
        e = np.abs(a @ c - 1.0)
        w = w * e
        w /= w.sum()
    return c


def chebyshev_nodes(lo, hi, n=4000):
    t = np.cos(np.pi * (np.arange(n) + 0.5) / n)
    return lo + (hi - lo) * (t + 1.0) / 2.0


def worst(c, x, f):
    return np.log2(np.abs(np.polyval(c[::-1], x) / f - 1.0).max())


def report(name, lo, hi, f, degree):
    """Fits `f` on `[lo, hi]` with a polynomial of `degree` and prints its
    largest relative error on a dense grid (without `lo`, where the
    functions in `z` are 0/0) and its coefficients, lowest first (as the
    Rust constants list them)."""
    nodes = chebyshev_nodes(lo, hi)
    c = lawson(nodes, f(nodes), degree)
    dense = np.linspace(lo, hi, 400001)[1:]
    print("%s, max relative error 2^%.1f" % (name, worst(c, dense, f(dense))))
    print("  " + ", ".join(repr(float(x)) for x in c))


def main():
    s_max = (np.sqrt(2.0) - 1.0) / (np.sqrt(2.0) + 1.0)
    report("atanh(s)/s in s^2", 0.0, s_max**2, lambda z: np.arctanh(np.sqrt(z)) / np.sqrt(z), 4)
    report("2^w on [-1/2, 1/2]", -0.5, 0.5, np.exp2, 6)
    t_max = np.tan(np.pi / 8.0)
    report("atan(t)/t in t^2", 0.0, t_max**2, lambda z: np.arctan(np.sqrt(z)) / np.sqrt(z), 5)


if __name__ == "__main__":
    main()
