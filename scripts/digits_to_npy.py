#!/usr/bin/env python3
"""Converts scikit-learn's 8x8 handwritten digits (1,797 images, BSD-3-Clause,
shipped inside the scikit-learn package: no download) to small .npy files
under data/digits/, split once into a training and a held-out set.

Run from the repository root:
    python3 -m venv .venv && .venv/bin/pip install scikit-learn numpy
    .venv/bin/python scripts/digits_to_npy.py

Writes, all uint8 and C-ordered:
    data/digits/train_images.npy  (1437, 64)  pixel intensities 0..16
    data/digits/train_labels.npy  (1437,)     digits 0..9
    data/digits/test_images.npy   (360, 64)
    data/digits/test_labels.npy   (360,)
The split is a seeded permutation (20% held out), so it is the same on every
run; `examples/digits.rs` trains on the first and reports accuracy on the
second.
"""
import os

import numpy as np
from sklearn.datasets import load_digits

OUT = os.path.join("data", "digits")
HELD_OUT = 360

digits = load_digits()
images = digits.data.astype(np.uint8)  # values 0..16
labels = digits.target.astype(np.uint8)
assert images.shape == (1797, 64) and images.max() <= 16

order = np.random.RandomState(0).permutation(len(labels))
test, train = order[:HELD_OUT], order[HELD_OUT:]
os.makedirs(OUT, exist_ok=True)
for name, idx in (("train", train), ("test", test)):
    np.save(os.path.join(OUT, f"{name}_images.npy"), np.ascontiguousarray(images[idx]))
    np.save(os.path.join(OUT, f"{name}_labels.npy"), np.ascontiguousarray(labels[idx]))
    print(name, len(idx), "images; label counts", np.bincount(labels[idx], minlength=10).tolist())
