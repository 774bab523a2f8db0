#!/usr/bin/env python3
"""Writes the .npy / .npz fixtures in tests/data/npy/ with NumPy itself,
and expected.json: for each file (and each array of an .npz), its dtype,
shape and elements in row-major order, as NumPy reads them.

Covers every dtype NumPy writes for shaped's element types (bool, int8-64,
uint8-64, float16/32/64), big-endian files, Fortran order, 0-d and empty
arrays, and np.savez / np.savez_compressed archives.

Run from the repository root:
    python3 -m venv .venv && .venv/bin/pip install numpy
    .venv/bin/python tests/data/npy/gen_npy.py

The Rust test `tests/io_npy.rs` reads each file and compares it with
expected.json.
"""
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(0)
expected = {}


def record(name, a):
    flat = np.ascontiguousarray(a).reshape(-1)
    expected[name] = {
        "dtype": a.dtype.name,
        "shape": list(a.shape),
        "data": [bool(v) if a.dtype == np.bool_ else
                 (float(v) if a.dtype.kind == "f" else int(v)) for v in flat],
    }


def save(name, a):
    np.save(os.path.join(HERE, name), a, allow_pickle=False)
    record(name, a)


for dt in ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]:
    info = np.iinfo(dt)
    vals = np.array([info.min, info.max, 0, 1, 2, info.max // 3], dtype=dt)
    save(f"{dt}.npy", vals.reshape(2, 3))
for dt in ["float16", "float32", "float64"]:
    vals = (rng.standard_normal(6) * 100).astype(dt)
    vals[0] = np.finfo(dt).max
    vals[1] = -0.0
    save(f"{dt}.npy", vals.reshape(2, 3))
save("bool.npy", np.array([[True, False, True], [False, False, True]]))

# Big-endian files.
save("big_endian_f8.npy", np.arange(6, dtype=">f8").reshape(3, 2) / 4)
save("big_endian_i4.npy", (np.arange(6, dtype=">i4") - 3).reshape(2, 3))
save("big_endian_u2.npy", np.array([1, 256, 65535], dtype=">u2"))

# Fortran order: the file's data is column-major.
f = np.asfortranarray(np.arange(12, dtype=np.float32).reshape(3, 4))
assert f.flags.f_contiguous and not f.flags.c_contiguous
save("fortran_f4.npy", f)
f3 = np.asfortranarray(np.arange(24, dtype=np.int64).reshape(2, 3, 4))
save("fortran_i8_3d.npy", f3)

# 0-d and empty.
save("scalar_f8.npy", np.array(2.5))
save("empty_i4.npy", np.zeros((0, 3), dtype=np.int32))

# Archives.
a = np.arange(6, dtype=np.float64).reshape(2, 3)
b = np.array([True, False])
np.savez(os.path.join(HERE, "pair.npz"), a=a, b=b)
record("pair.npz/a", a)
record("pair.npz/b", b)
c = np.asfortranarray(rng.integers(-100, 100, size=(4, 5)).astype(np.int16))
np.savez_compressed(os.path.join(HERE, "compressed.npz"), c=c)
record("compressed.npz/c", c)

with open(os.path.join(HERE, "expected.json"), "w") as fh:
    json.dump({"numpy": np.__version__, "files": expected}, fh, indent=1)
    fh.write("\n")
print(f"wrote {len(expected)} arrays")
