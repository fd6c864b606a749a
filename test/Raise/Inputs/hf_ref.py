#!/usr/bin/env python3
"""Inputs and float64 reference of the Llama blocks of hf_forms.mlir:

  hf_ref.py OUTDIR H T D CAUSAL_OFFSET

writes OUTDIR/q.npy, k.npy, v.npy ([1, T, H * D] float32) and
OUTDIR/expected.npy: Hugging Face LlamaAttention (eager) in float64 with
default RoPE frequencies (base 10000, rounded to float32 as the model's
table is), positions 0..T-1, and keys j > i + CAUSAL_OFFSET masked, using
llama_block of test/Integration/lib/raise_ref.py.
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "Integration", "lib"))
from raise_ref import llama_block  # noqa: E402

out = sys.argv[1]
H, T, D, offset = (int(x) for x in sys.argv[2:6])
rng = np.random.default_rng(4029)
qkv = [rng.uniform(-1, 1, (1, T, H * D)).astype(np.float32) for _ in range(3)]
inv = (1.0 / 10000.0 ** (np.arange(0, D, 2) / D)).astype(np.float32)
i, j = np.arange(T)[:, None], np.arange(T)[None, :]
mask = np.where(j > i + offset, -np.inf, 0.0)[None, None]
expected = llama_block(*(x.astype(np.float64) for x in qkv),
                       np.arange(T)[None], mask, H, H, inv.astype(np.float64))
os.makedirs(out, exist_ok=True)
for name, x in zip("qkv", qkv):
    np.save(os.path.join(out, f"{name}.npy"), x)
np.save(os.path.join(out, "expected.npy"), expected)
