#!/usr/bin/env python3
"""Inputs and float64 reference of the --emit-executable tests.

Usage: aot_attention.py DIR DTYPE T

Writes DIR/{q,k,v,f,expected}.npy for
  pe.attention %q, %k, %v rope <half> inv_freq(%f) {causal}
with q [1, 4, T, 16], k and v [1, 2, T, 16] of DTYPE (float32 or float16),
f the Llama-3 inverse frequencies (base 500000, R = 16) as float64, and the
expected result computed in float64 by test/Integration/lib/pe_ref.py (RoPE
of q and k at positions 0..T-1, then causal GQA attention).
"""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                "Integration", "lib"))
import pe_ref as ref  # noqa: E402


def main(argv):
    d, dtype, T = argv[1], np.dtype(argv[2]), int(argv[3])
    rng = np.random.default_rng(2026)
    q = rng.uniform(-1, 1, (1, 4, T, 16)).astype(dtype)
    k = rng.uniform(-1, 1, (1, 2, T, 16)).astype(dtype)
    v = rng.uniform(-1, 1, (1, 2, T, 16)).astype(dtype)
    f, _ = ref.llama3(500000.0, 16, 8.0, 1.0, 4.0, 8192)
    f = np.asarray(f, dtype=np.float64)
    qr = ref.rope_inv_freq(q.astype(np.float64), f, 0, "half")
    kr = ref.rope_inv_freq(k.astype(np.float64), f, 0, "half")
    expected = ref.attention(qr, kr, v.astype(np.float64), causal=True)
    for name, a in [("q", q), ("k", k), ("v", v), ("f", f),
                    ("expected", expected)]:
        np.save(os.path.join(d, name + ".npy"), a)


if __name__ == "__main__":
    main(sys.argv)
