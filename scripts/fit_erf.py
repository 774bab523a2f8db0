#!/usr/bin/env python3
"""Fits the two polynomials of `ops::scalar::erf_f32` (weighted least squares
against SciPy in f64, reweighted towards the largest relative error):
`P` for erf(x) = x + x P(x^2) below 0.921875, `Q` for erf(x) = 1 - exp(Q(x))
on [0.921875, 3.93]. Prints the coefficients and the largest relative
error of each fit (before rounding to f32).

Usage: python3 scripts/fit_erf.py (numpy, scipy)
"""
import numpy as np
from scipy.special import erf, erfc
# minimax-like via iteratively reweighted LS on relative error of erf
B = 0.921875
x = np.linspace(1e-4, B, 40000); s=x*x
y = erf(x)/x - 1
w = 1/(erf(x)/x)
for it in range(30):
    V = np.vander(s, 7, increasing=True)
    c,*_ = np.linalg.lstsq(V*w[:,None], y*w, rcond=None)
    e = np.abs((V@c - y))*w
    w = w*(1+ 5*e/e.max())
np.set_printoptions(precision=17); print("P", repr(c), (np.abs(V@c-y)*x/erf(x)).max())
x2 = np.linspace(B, 3.93, 40000)
q = np.log(erfc(x2))
wt = np.exp(q)/erf(x2)   # relative error weight
w = wt.copy()
for it in range(30):
    V = np.vander(x2, 9, increasing=True)
    c2,*_ = np.linalg.lstsq(V*w[:,None], q*w, rcond=None)
    e = np.abs(V@c2 - q)*wt
    w = w*(1+5*e/e.max())
print("Q", repr(c2), (np.abs(V@c2-q)*wt).max())
