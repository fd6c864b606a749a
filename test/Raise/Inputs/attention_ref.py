#!/usr/bin/env python3
"""Inputs and float64 reference of a causal softmax attention on [1, H, T, D]
arguments q, k, v (Inputs/softmax_forms.mlir):

  attention_ref.py OUTDIR H T D

writes OUTDIR/q.npy, k.npy, v.npy (float32) and OUTDIR/expected.npy,
softmax(q k^T / sqrt(D), masked where j > i) v computed in float64.
"""
import math
import os
import sys

import numpy as np

out, H, T, D = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(2029)
q, k, v = (rng.uniform(-2, 2, (1, H, T, D)).astype(np.float32) for _ in range(3))
s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 1, 3, 2)
s /= math.sqrt(D)
s = np.where(np.tril(np.ones((T, T), dtype=bool)), s, -np.inf)
p = np.exp(s - s.max(axis=-1, keepdims=True))
p /= p.sum(axis=-1, keepdims=True)
os.makedirs(out, exist_ok=True)
for name, x in (("q", q), ("k", k), ("v", v)):
    np.save(os.path.join(out, f"{name}.npy"), x)
np.save(os.path.join(out, "expected.npy"), p @ v.astype(np.float64))
