#!/usr/bin/env python3
"""Inputs and float64 references of bench/gpu's correctness cases.

Usage: aot_cases.py DIR B H HKV T D TK

For each workload of bench/gpu/workloads.sh at these (small) sizes, writes
DIR/<workload>/{q,k,v[,f],expected}.npy: q, k, v uniform in [-1, 1) and
exact in the workload's type (bf16 values are stored as float32, which the
executables round exactly), f the Llama-3 inverse frequencies (base 500000,
factor 8, R = D), expected the float64 result of test/Integration/lib/pe_ref.py.
Runs on the preparing machine (NumPy); the GPU machine only compares.
"""

import os
import sys

import numpy as np

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "test", "Integration", "lib"))
import pe_ref as ref  # noqa: E402


def bf16(x):
    """Round to bfloat16 (nearest even), as float32."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def main(argv):
    d = argv[1]
    B, H, HKV, T, D, TK = map(int, argv[2:8])
    rng = np.random.default_rng(8)
    f = np.asarray(ref.llama3(500000.0, D, 8.0, 1.0, 4.0, 8192)[0], np.float64)

    def qkv(dtype, tq, tk):
        shapes = [(B, H, tq, D), (B, HKV, tk, D), (B, HKV, tk, D)]
        xs = [rng.uniform(-1, 1, s).astype(np.float32) for s in shapes]
        return [x.astype(np.float16) if dtype == "f16" else bf16(x) for x in xs]

    def save(name, expected, **arrays):
        os.makedirs(os.path.join(d, name), exist_ok=True)
        for key, a in list(arrays.items()) + [("expected", expected)]:
            np.save(os.path.join(d, name, key + ".npy"), a)

    f64 = lambda a: np.asarray(a, np.float64)  # noqa: E731
    for dtype in ("f16", "bf16"):
        q, k, v = qkv(dtype, T, T)
        qr = ref.rope_inv_freq(f64(q), f, 0, "half")
        kr = ref.rope_inv_freq(f64(k), f, 0, "half")
        save("w2_" + dtype, ref.attention(qr, kr, f64(v), causal=True),
             q=q, k=k, v=v, f=f)
    q, k, v = qkv("bf16", T, T)
    bias = ref.alibi_bias(H, T, T, "symmetric")
    save("w3_bf16", ref.attention(f64(q), f64(k), f64(v), bias=bias, causal=True),
         q=q, k=k, v=v)
    q, k, v = qkv("f16", 1, TK)
    qr = ref.rope_inv_freq(f64(q), f, TK - 1, "half")
    save("w4_f16", ref.attention(qr, f64(k), f64(v)), q=q, k=k, v=v, f=f)


if __name__ == "__main__":
    main(sys.argv)
