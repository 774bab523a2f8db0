#!/usr/bin/env python3
"""Checks that NumPy reads the files shaped wrote in the test
`writes_files_numpy_can_read` (tests/io_npy.rs). Run after that test:
    cargo test --features npy --test io_npy
    .venv/bin/python tests/data/npy/check_numpy_reads.py target/tmp/npy_out
"""
import sys

import numpy as np

d = sys.argv[1]
f16 = np.load(f"{d}/f16.npy")
assert f16.dtype == np.float16 and f16.shape == (3, 2), (f16.dtype, f16.shape)
assert (f16 == np.array([[1, 2, 3], [4, 5, 6]], dtype=np.float16).T).all()
u64 = np.load(f"{d}/u64.npy")
assert u64.dtype == np.uint64 and list(u64) == [2**64 - 1, 7]
b = np.load(f"{d}/bool.npy")
assert b.dtype == np.bool_ and list(b) == [True, False]
z = np.load(f"{d}/pair.npz")
assert sorted(z.files) == ["a", "b"]
assert z["a"].dtype == np.int8 and (z["a"] == [[-1, 2], [3, -4]]).all()
assert z["b"].shape == () and z["b"] == 0.5
print("NumPy reads every file shaped wrote")
