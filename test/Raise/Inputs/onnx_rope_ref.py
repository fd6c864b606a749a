#!/usr/bin/env python3
"""Inputs and float64 reference of @onnx_rope (Inputs/onnx_rope.mlir):

  onnx_rope_ref.py OUTDIR

x [1, 2, 4, 8], cos / sin [16, 4] (arbitrary values: the block is linear in
them), positions [1, 4] in 0..15; expected[..., c] = x[c] * cos[p, c mod 4]
+ s(c) * x[(c + 4) mod 8] * sin[p, c mod 4] with s = -1 for c < 4, else +1.
"""
import os
import sys

import numpy as np

out = sys.argv[1]
rng = np.random.default_rng(3129)
x = rng.uniform(-1, 1, (1, 2, 4, 8)).astype(np.float32)
cos = rng.uniform(-1, 1, (16, 4)).astype(np.float32)
sin = rng.uniform(-1, 1, (16, 4)).astype(np.float32)
pos = np.array([[3, 0, 15, 7]], dtype=np.int64)
xd, cd, sd = (a.astype(np.float64) for a in (x, cos, sin))
expected = np.empty_like(xd)
for t in range(4):
    p = pos[0, t]
    for c in range(8):
        sign = -1.0 if c < 4 else 1.0
        expected[:, :, t, c] = (xd[:, :, t, c] * cd[p, c % 4] + sign *
                                xd[:, :, t, (c + 4) % 8] * sd[p, c % 4])
os.makedirs(out, exist_ok=True)
for name, a in (("x", x), ("cos", cos), ("sin", sin), ("pos", pos)):
    np.save(os.path.join(out, f"{name}.npy"), a)
np.save(os.path.join(out, "expected.npy"), expected)
