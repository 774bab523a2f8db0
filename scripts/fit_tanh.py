#!/usr/bin/env python3
"""Fits the polynomial of `ops::scalar::tanh_f32` (weighted least squares
against NumPy's tanh in f64, reweighted towards the largest relative
error): `P` for tanh(x) = x + x^3 P(x^2) below 0.55 (above, tanh is
computed from exp). Prints the coefficients, the largest relative error of
the fit (before rounding to f32), and the largest error in f32 ulp of the
rounded polynomial evaluated in f32 as the Rust code does.

Usage: python3 scripts/fit_tanh.py (numpy)
"""
import numpy as np

B = 0.55
DEG = 4
x = np.linspace(1e-4, B, 40000)
s = x * x
y = (np.tanh(x) - x) / x**3
# The polynomial's error, relative to tanh(x).
wt = x**3 / np.tanh(x)
w = wt.copy()
for _ in range(30):
    V = np.vander(s, DEG + 1, increasing=True)
    c, *_ = np.linalg.lstsq(V * w[:, None], y * w, rcond=None)
    e = np.abs(V @ c - y) * wt
    w = w * (1 + 5 * e / e.max())
np.set_printoptions(precision=9)
print("P", [str(np.float32(v)) for v in c], "fit error", e.max())

# In f32, Horner from the highest coefficient, as `tanh_f32` evaluates it.
c32 = c.astype(np.float32)
xs = np.linspace(np.float32(2.0**-12), np.float32(B), 200001).astype(np.float32)
ss = xs * xs
p = np.zeros_like(xs)
for k in reversed(c32):
    p = p * ss + k
got = xs + xs * ss * p
want = np.tanh(xs.astype(np.float64))
ulp = np.abs(got.astype(np.float64) - want) / np.spacing(np.abs(want).astype(np.float32)).astype(np.float64)
print("largest error in f32 ulp below", B, ulp.max())
