#!/usr/bin/env python3
"""Inputs and float64 numpy references for the published-IR corpus
(tests in test/Raise/Published, the IR in ../shared/raise-corpus), written
directly from each block's mathematics.

Usage: corpus_ref.py CASE OUTDIR

Writes OUTDIR/in0.npy, in1.npy, ... (the function's arguments, in order) and
OUTDIR/expected0.npy, ... (its results). Inputs are seeded random normals
scaled by 0.5; positions a seeded draw within the rows the block gathers
from; masks 0 or -1e9 (causal, or random for the decode step).
"""

import os
import sys

import numpy as np


def softmax(s):
    m = s.max(axis=-1, keepdims=True)
    e = np.exp(s - m)
    return e / e.sum(axis=-1, keepdims=True)


def attention(q, k, v, scale, bias=None):
    """q [..., Tq, D], k [..., Tk, D], v [..., Tk, Dv] in float64."""
    s = scale * np.einsum("...id,...jd->...ij", q, k)
    if bias is not None:
        s = s + bias
    return np.einsum("...ij,...je->...ie", softmax(s), v)


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def rope_tables(length, dim, base=10000.0):
    inv = 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    ang = np.arange(length, dtype=np.float64)[:, None] * inv[None, :]
    ang = np.concatenate([ang, ang], axis=-1)
    return np.cos(ang), np.sin(ang)


def buddy_next_rope(rng):
    x = [0.5 * rng.standard_normal((1, 40, 4096)).astype(np.float32)
         for _ in range(3)]
    cos, sin = rope_tables(2048, 128)
    # The block gathers from the first 40 rows of the caches (the sequence
    # length), so positions are below 40.
    pos = rng.integers(0, 40, size=(1, 40)).astype(np.int64)
    ins = x + [cos.astype(np.float32).reshape(1, 1, 2048, 128),
               sin.astype(np.float32).reshape(1, 1, 2048, 128), pos]
    heads = [a.astype(np.float64).reshape(1, 40, 32, 128).transpose(0, 2, 1, 3)
             for a in x[:2]]
    c = ins[3].astype(np.float64)[0, 0][pos[0]]  # [40, 128]
    s = ins[4].astype(np.float64)[0, 0][pos[0]]
    q, k = heads
    return ins, [q * c + rotate_half(q) * s, k * c, rotate_half(k)]


def buddy_next_attention(rng):
    q = 0.5 * rng.standard_normal((32, 40, 128)).astype(np.float32)
    kt = 0.5 * rng.standard_normal((32, 128, 40)).astype(np.float32)
    mask = np.where(np.arange(40)[None, :] > np.arange(40)[:, None],
                    np.float32(-1e9), np.float32(0)).reshape(1, 1, 40, 40)
    v = 0.5 * rng.standard_normal((1, 32, 40, 128)).astype(np.float32)
    f = lambda a: a.astype(np.float64)
    out = attention(f(q), f(kt).transpose(0, 2, 1), f(v)[0],
                    1 / 11.3137083, f(mask)[0, 0])
    return [q, kt, mask, v], [out]


def buddy_next_gqa_attention(rng):
    q = 0.5 * rng.standard_normal((1, 12, 1, 128)).astype(np.float32)
    k = 0.5 * rng.standard_normal((1, 2, 1024, 128)).astype(np.float32)
    v = 0.5 * rng.standard_normal((1, 2, 1024, 128)).astype(np.float32)
    # The block's driver: masked (-1e9) where i < j, i.e. keys 1.. for i = 0;
    # a random mask keeps more keys.
    mask = np.where(rng.random((1, 1, 1, 1024)) < 0.25, np.float32(-1e9),
                    np.float32(0))
    f = lambda a: a.astype(np.float64)
    rep = lambda a: np.repeat(f(a), 6, axis=1)
    out = attention(f(q), rep(k), rep(v), 0.0883883461, f(mask))
    return [q, k, v, mask], [out]


def buddy_next_mhsa_core(rng):
    a0 = 0.5 * rng.standard_normal((1, 1, 1024, 1024)).astype(np.float32)
    a1 = 0.5 * rng.standard_normal((1, 1, 1024, 1024)).astype(np.float32)
    t = np.arange(1024)
    mask = np.where(t[None, :] > t[:, None], np.float32(-1e9),
                    np.float32(0)).reshape(1, 1, 1024, 1024)
    x = 0.5 * rng.standard_normal((1, 12, 1024, 128)).astype(np.float32)
    a4 = 0.5 * rng.standard_normal((1, 12, 1024, 128)).astype(np.float32)
    f = lambda a: a.astype(np.float64)
    o = attention(f(x)[0], f(x)[0], f(x)[0], 0.0883883461, f(mask)[0, 0])
    out = o.transpose(1, 0, 2).reshape(1, 1024, 1536)
    return [a0, a1, mask, x, a4], [out]


def rocmlir_attention_causal(rng):
    qkv = (0.5 * rng.standard_normal(24576)).astype(np.float16)
    k = (0.5 * rng.standard_normal(262144)).astype(np.float16)
    v = (0.5 * rng.standard_normal(262144)).astype(np.float16)
    f = lambda a: a.astype(np.float64)
    q = f(qkv).reshape(1, 2, 96, 128).transpose(0, 2, 1, 3)[:, :32]
    kk = f(k).reshape(1, 32, 64, 128)
    vv = f(v).reshape(32, 64, 128)[None]
    i, j = np.arange(2)[:, None], np.arange(64)[None, :]
    bias = np.where(j > i, -np.inf, 0.0)
    scale = float(np.float16(8.837890e-02))
    o = attention(q, kk, vv, scale, bias)  # [1, 32, 2, 128]
    return [qkv, k, v], [o.transpose(0, 2, 1, 3).reshape(8192)]


def gqa_inputs(rng, with_bias):
    a0 = 0.5 * rng.standard_normal(4096).astype(np.float32)  # V, 2 heads
    a1 = 0.5 * rng.standard_normal(8192).astype(np.float32)  # Q, 4 heads
    a2 = 0.5 * rng.standard_normal(4096).astype(np.float32)  # K, 2 heads
    f = lambda a: a.astype(np.float64)
    q = f(a1).reshape(2, 4, 32, 32)
    k = np.repeat(f(a2).reshape(2, 2, 32, 32), 2, axis=1)
    v = np.repeat(f(a0).reshape(2, 2, 32, 32), 2, axis=1)
    return [a0, a1, a2], q, k, v


def rocmlir_attention_gqa(rng):
    ins, q, k, v = gqa_inputs(rng, False)
    return ins, [attention(q, k, v, 1.0).reshape(8192)]


def rocmlir_attention_lse(rng):
    ins, q, k, v = gqa_inputs(rng, False)
    s = np.einsum("...id,...jd->...ij", q, k)
    m = s.max(axis=-1, keepdims=True)
    lse = (m + np.log(np.exp(s - m).sum(axis=-1, keepdims=True)))
    return ins, [attention(q, k, v, 1.0).reshape(8192), lse.reshape(256)]


def buddy_next_positional_encoding(rng):
    pos = rng.integers(0, 4096, size=(1, 1024)).astype(np.int64)
    inv = (1.0 / 10000.0 ** (np.arange(0, 128, 2) / 128)).astype(np.float32)
    # The angles use the block's constant arange(1024), not the argument
    # (which only feeds the mask, a value the function does not return).
    t = np.arange(1024, dtype=np.float64)
    ang = t[:, None] * inv.astype(np.float64)[None, :]
    ang = np.concatenate([ang, ang], axis=-1)[None]
    return [pos, inv], [np.cos(ang), np.sin(ang)]


CASES = {
    "buddy_next_rope": buddy_next_rope,
    "buddy_next_attention": buddy_next_attention,
    "buddy_next_gqa_attention": buddy_next_gqa_attention,
    "buddy_next_mhsa_core": buddy_next_mhsa_core,
    "buddy_next_positional_encoding": buddy_next_positional_encoding,
    "rocmlir_attention_causal": rocmlir_attention_causal,
    "rocmlir_attention_gqa": rocmlir_attention_gqa,
    "rocmlir_attention_lse": rocmlir_attention_lse,
}


def main():
    case, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    ins, expected = CASES[case](np.random.default_rng(29))
    for n, a in enumerate(ins):
        np.save(os.path.join(out, f"in{n}.npy"), a)
    for n, a in enumerate(expected):
        np.save(os.path.join(out, f"expected{n}.npy"), a)


if __name__ == "__main__":
    main()
