#!/usr/bin/env python3
"""Float64 numpy model of Hugging Face's GPT2Model (eager attention, gelu_new,
LayerNorm eps 1e-5), independent of the IR gen_gpt2.py writes, and inputs for
it:

  gpt2_ref.py OUTDIR --layers N --seq T --hidden C --heads H --vocab V
      --positions P [--mask select|buffer]

writes OUTDIR/a00.npy, a01.npy, ... (the function's arguments in order:
input_ids, wte, wpe, [the causal buffer with --mask buffer-arg,] per layer ln_1 weight and bias,
c_attn weight and bias, c_proj weight and bias, ln_2 weight and bias, c_fc
weight and bias, mlp c_proj weight and bias, then ln_f weight and bias) and
OUTDIR/expected.npy, the last hidden state.
"""
import argparse
import math
import os

import numpy as np


def layer_norm(x, g, b, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(var + eps) * g + b


def gelu_new(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) *
                                  (x + 0.044715 * x ** 3)))


def attention(x, w, b, wo, bo, heads):
    t, c = x.shape
    d = c // heads
    q, k, v = np.split(x @ w + b, 3, axis=-1)
    q, k, v = (y.reshape(t, heads, d).transpose(1, 0, 2) for y in (q, k, v))
    s = q @ k.transpose(0, 2, 1) / math.sqrt(d)
    causal = np.tril(np.ones((t, t), dtype=bool))
    s = np.where(causal, s, np.finfo(np.float32).min)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    p /= p.sum(axis=-1, keepdims=True)
    o = (p @ v).transpose(1, 0, 2).reshape(t, c)
    return o @ wo + bo


ap = argparse.ArgumentParser()
ap.add_argument("outdir")
ap.add_argument("--layers", type=int, required=True)
ap.add_argument("--seq", type=int, required=True)
ap.add_argument("--hidden", type=int, required=True)
ap.add_argument("--heads", type=int, required=True)
ap.add_argument("--vocab", type=int, required=True)
ap.add_argument("--positions", type=int, required=True)
ap.add_argument("--mask", choices=["select", "buffer", "buffer-arg"],
                default="select")
a = ap.parse_args()
T, C, V, P = a.seq, a.hidden, a.vocab, a.positions
rng = np.random.default_rng(29)
args = []


def arg(x):
    args.append(x)
    return x.astype(np.float64) if x.dtype == np.float32 else x


ids = arg(rng.integers(0, V, (1, T)).astype(np.int64))
wte = arg(rng.normal(0, 1, (V, C)).astype(np.float32))
wpe = arg(rng.normal(0, 0.5, (P, C)).astype(np.float32))
if a.mask == "buffer-arg":
    arg(np.tril(np.ones((P, P), dtype=bool))[None, None])
h = wte[ids[0]] + wpe[np.arange(T)]


def param(shape, scale, shift=0.0):
    return arg((rng.normal(0, scale, shape) + shift).astype(np.float32))


for _ in range(a.layers):
    g1, b1 = param([C], 0.2, 1.0), param([C], 0.2)
    wq, bq = param([C, 3 * C], 1 / math.sqrt(C)), param([3 * C], 0.5)
    wo, bo = param([C, C], 1 / math.sqrt(C)), param([C], 0.2)
    g2, b2 = param([C], 0.2, 1.0), param([C], 0.2)
    wf, bf = param([C, 4 * C], 1 / math.sqrt(C)), param([4 * C], 0.2)
    wm, bm = param([4 * C, C], 1 / math.sqrt(4 * C)), param([C], 0.2)
    h = h + attention(layer_norm(h, g1, b1), wq, bq, wo, bo, a.heads)
    h = h + gelu_new(layer_norm(h, g2, b2) @ wf + bf) @ wm + bm
gf, bf = param([C], 0.2, 1.0), param([C], 0.2)
out = layer_norm(h, gf, bf)[None]
os.makedirs(a.outdir, exist_ok=True)
for n, x in enumerate(args):
    np.save(os.path.join(a.outdir, f"a{n:02d}.npy"), x)
np.save(os.path.join(a.outdir, "expected.npy"), out)
print(len(args))
