#!/usr/bin/env python3
"""Float64 numpy reference of the pe-raise corpus (test/Raise/Inputs) and the
inputs of its execution tests.

Usage: raise_ref.py CASE OUTDIR

writes OUTDIR/<argument>.npy for every argument of the corpus function and
OUTDIR/expected.npy, the block computed in float64 the way Hugging Face's
LlamaAttention (eager) defines it: rotate_half RoPE with cos/sin of
position * inv_freq, repeat_kv, softmax(Q K^T / sqrt(D) + mask) V. The
float32 frequency table is recomputed here from the llama3 formula (Hugging
Face `_compute_llama3_parameters`) and rounded to float32 as the model does.
"""
import math
import os
import sys

import numpy as np

F32 = np.float32


def llama3_inv_freq(base, dim, factor, low, high, original):
    inv = 1.0 / base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    wavelen = 2 * math.pi / inv
    low_wavelen, high_wavelen = original / low, original / high
    scaled = np.where(wavelen > low_wavelen, inv / factor, inv)
    smooth = (original / wavelen - low) / (high - low)
    smoothed = (1 - smooth) * scaled / factor + smooth * scaled
    medium = (wavelen >= high_wavelen) & (wavelen <= low_wavelen)
    return np.where(medium, smoothed, scaled).astype(F32).astype(np.float64)


def rotate_half(x):
    h = x.shape[-1] // 2
    return np.concatenate([-x[..., h:], x[..., :h]], axis=-1)


def llama_block(q_proj, k_proj, v_proj, positions, mask, heads, kv_heads,
                inv_freq):
    """All in float64. positions: [B, T] ints; mask: additive [B, 1, T, T]."""
    b, t, _ = q_proj.shape
    d = q_proj.shape[-1] // heads
    q = q_proj.reshape(b, t, heads, d).transpose(0, 2, 1, 3)
    k = k_proj.reshape(b, t, kv_heads, d).transpose(0, 2, 1, 3)
    v = v_proj.reshape(b, t, kv_heads, d).transpose(0, 2, 1, 3)
    freqs = positions[:, :, None].astype(np.float64) * inv_freq[None, None, :]
    emb = np.concatenate([freqs, freqs], axis=-1)
    cos, sin = np.cos(emb)[:, None], np.sin(emb)[:, None]
    q = q * cos + rotate_half(q) * sin
    k = k * cos + rotate_half(k) * sin
    g = heads // kv_heads
    k = np.repeat(k, g, axis=1)
    v = np.repeat(v, g, axis=1)
    s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d) + mask
    s = s - s.max(axis=-1, keepdims=True)
    p = np.exp(s)
    p = p / p.sum(axis=-1, keepdims=True)
    o = p @ v
    return o.transpose(0, 2, 1, 3).reshape(b, t, heads * d)


def yarn_inv_freq(base, dim, factor, original, beta_fast=32.0, beta_slow=1.0):
    """Hugging Face `_compute_yarn_parameters` (truncate), float32 table."""
    def correction_dim(n):
        return dim * math.log(original / (n * 2 * math.pi)) / (2 * math.log(base))
    low = max(math.floor(correction_dim(beta_fast)), 0)
    high = min(math.ceil(correction_dim(beta_slow)), dim - 1)
    if low == high:
        high += 0.001
    pos_freqs = base ** (np.arange(0, dim, 2, dtype=np.float64) / dim)
    ramp = np.clip((np.arange(dim // 2) - low) / (high - low), 0, 1)
    extrapolation = 1 - ramp
    inv = (1 / (factor * pos_freqs)) * (1 - extrapolation) + \
        (1 / pos_freqs) * extrapolation
    return inv.astype(F32).astype(np.float64), 0.1 * math.log(factor) + 1


def rope(x, positions, inv_freq, rotary, layout, scaling=1.0):
    """x: [B, H, T, D]; positions [B, T]; pairs (i, i + R/2) or (2i, 2i+1)."""
    ang = positions[:, None, :, None].astype(np.float64) * inv_freq
    c, s = np.cos(ang) * scaling, np.sin(ang) * scaling
    rot, rest = x[..., :rotary], x[..., rotary:]
    if layout == "half":
        h = rotary // 2
        a, b = rot[..., :h], rot[..., h:]
        out = np.concatenate([a * c - b * s, b * c + a * s], axis=-1)
    else:
        a, b = rot[..., 0::2], rot[..., 1::2]
        out = np.stack([a * c - b * s, a * s + b * c], axis=-1)
        out = out.reshape(rot.shape)
    return np.concatenate([out, rest], axis=-1)


def block(q_proj, k_proj, v_proj, positions, mask, heads, kv_heads, inv_freq,
          rotary, layout, scaling=1.0):
    """Projections [B, T, heads * D] -> rotary -> GQA softmax attention."""
    b, t, _ = q_proj.shape
    d = q_proj.shape[-1] // heads
    q = q_proj.reshape(b, t, heads, d).transpose(0, 2, 1, 3)
    k = k_proj.reshape(b, t, kv_heads, d).transpose(0, 2, 1, 3)
    v = v_proj.reshape(b, t, kv_heads, d).transpose(0, 2, 1, 3)
    q = rope(q, positions, inv_freq, rotary, layout, scaling)
    k = rope(k, positions, inv_freq, rotary, layout, scaling)
    g = heads // kv_heads
    k, v = np.repeat(k, g, axis=1), np.repeat(v, g, axis=1)
    s = q @ k.transpose(0, 1, 3, 2) / math.sqrt(d) + mask
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    o = (p / p.sum(axis=-1, keepdims=True)) @ v
    return o.transpose(0, 2, 1, 3).reshape(b, t, heads * d)


def generic_case(out, seed, b, t, heads, kv_heads, d, inv_freq, rotary,
                 layout, positions, scaling=1.0):
    rng = np.random.default_rng(seed)
    q = rng.uniform(-1, 1, (b, t, heads * d)).astype(F32)
    k = rng.uniform(-1, 1, (b, t, kv_heads * d)).astype(F32)
    v = rng.uniform(-1, 1, (b, t, kv_heads * d)).astype(F32)
    mask = causal_mask(t).astype(F32)
    save(out, q=q, k=k, v=v, positions=positions, mask=mask)
    expected = block(q.astype(np.float64), k.astype(np.float64),
                     v.astype(np.float64), positions, mask.astype(np.float64),
                     heads, kv_heads, inv_freq, rotary, layout, scaling)
    np.save(os.path.join(out, "expected.npy"), expected)


def causal_mask(t):
    m = np.zeros((1, 1, t, t))
    m[0, 0][np.triu_indices(t, 1)] = np.finfo(F32).min
    return m


def save(d, **arrays):
    os.makedirs(d, exist_ok=True)
    for name, a in arrays.items():
        np.save(os.path.join(d, name + ".npy"), a)


def llama3(out, arange):
    rng = np.random.default_rng(20261201)
    b, t, heads, kv_heads, d = 1, 8, 4, 2, 64
    q = rng.uniform(-1, 1, (b, t, heads * d)).astype(F32)
    k = rng.uniform(-1, 1, (b, t, kv_heads * d)).astype(F32)
    v = rng.uniform(-1, 1, (b, t, kv_heads * d)).astype(F32)
    inv = llama3_inv_freq(500000.0, d, 8.0, 1.0, 4.0, 8192)
    if arange:
        positions = np.arange(t, dtype=np.int64)[None]
        mask = causal_mask(t)
        save(out, q=q, k=k, v=v)
    else:
        # A decode-like chunk: tokens at positions 1000..1003 and 1007..1010
        # (RoPE at large angles; the gap makes the positions differ from any
        # offset form, since RoPE scores depend on position differences
        # only), with a padding-style mask that hides key 2 from everyone on
        # top of causality.
        positions = (1000 + np.array([0, 1, 2, 3, 7, 8, 9, 10],
                                     dtype=np.int64))[None]
        mask = causal_mask(t)
        mask[..., 2] = np.finfo(F32).min
        mask[..., 0, 0] = 0.0
        save(out, q=q, k=k, v=v, positions=positions, mask=mask.astype(F32))
    expected = llama_block(q.astype(np.float64), k.astype(np.float64),
                           v.astype(np.float64), positions,
                           mask.astype(F32).astype(np.float64), heads,
                           kv_heads, inv)
    np.save(os.path.join(out, "expected.npy"), expected)


def alibi_slopes(n):
    """The ALiBi paper's get_slopes (ofirpress/attention_with_linear_biases)."""
    def power_of_2(m):
        start = 2 ** (-2 ** -(math.log2(m) - 3))
        return [start * start ** k for k in range(m)]
    if math.log2(n).is_integer():
        return power_of_2(n)
    c = 2 ** math.floor(math.log2(n))
    return power_of_2(c) + alibi_slopes(2 * c)[0::2][:n - c]


def alibi_case(out, seed, b, t, heads, d, key_shift, mask_arg=False):
    """softmax(Q K^T / sqrt(D) + slope_h * (j + key_shift) + causal) V: BLOOM
    (key position, shift 0) and MPT (arange(1 - T, 1): shift 1 - T)."""
    rng = np.random.default_rng(seed)
    q, k, v = (rng.uniform(-1, 1, (b, t, heads * d)).astype(F32)
               for _ in range(3))
    mask = causal_mask(t)
    if mask_arg:
        # Causal plus a padding key (key 1 hidden from the later queries).
        mask[..., 2:, 1] = np.finfo(F32).min
        save(out, q=q, k=k, v=v, mask=mask.astype(F32))
    else:
        save(out, q=q, k=k, v=v)
    q4, k4, v4 = (x.astype(np.float64).reshape(b, t, heads, d)
                  .transpose(0, 2, 1, 3) for x in (q, k, v))
    slopes = np.array(alibi_slopes(heads)).astype(F32).astype(np.float64)
    dist = np.arange(t, dtype=np.float64) + key_shift
    s = q4 @ k4.transpose(0, 1, 3, 2) / math.sqrt(d)
    s = s + slopes[None, :, None, None] * dist[None, None, None, :]
    s = s + mask.astype(F32).astype(np.float64)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    o = (p / p.sum(axis=-1, keepdims=True)) @ v4
    np.save(os.path.join(out, "expected.npy"),
            o.transpose(0, 2, 1, 3).reshape(b, t, heads * d))


def tosa_llama(out):
    """Inputs/tosa_llama.mlir: q [1, 4, 8, 16], k, v [1, 2, 8, 16] (already
    per head), positions [8] i32, rotate_half RoPE base 10000, scale 1/4."""
    rng = np.random.default_rng(31)
    q = rng.uniform(-1, 1, (1, 4, 8, 16)).astype(F32)
    k = rng.uniform(-1, 1, (1, 2, 8, 16)).astype(F32)
    v = rng.uniform(-1, 1, (1, 2, 8, 16)).astype(F32)
    positions = np.array([5, 6, 7, 8, 9, 10, 11, 12], dtype=np.int32)
    save(out, q=q, k=k, v=v, positions=positions)
    inv = (1.0 / 10000.0 ** (np.arange(0, 16, 2) / 16)).astype(F32)
    pos = positions[None].astype(np.int64)
    qr = rope(q.astype(np.float64), pos, inv.astype(np.float64), 16, "half")
    kr = rope(k.astype(np.float64), pos, inv.astype(np.float64), 16, "half")
    kr, vr = np.repeat(kr, 2, axis=1), np.repeat(v.astype(np.float64), 2, axis=1)
    s = qr @ kr.transpose(0, 1, 3, 2) / 4.0
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    np.save(os.path.join(out, "expected.npy"),
            (p / p.sum(axis=-1, keepdims=True)) @ vr)


def sinusoid(pos, dim, layout, base=10000.0):
    """Vaswani et al. (interleaved sin/cos) or tensor2tensor ([sin | cos],
    exponent denominator h - 1) encodings of positions `pos`, float64."""
    pos = np.asarray(pos, dtype=np.float64)[..., None]
    if layout == "interleaved":
        k = np.arange(dim) // 2
        ang = pos * base ** (-2.0 * k / dim)
        return np.where(np.arange(dim) % 2 == 0, np.sin(ang), np.cos(ang))
    h = dim // 2
    w = np.exp(-np.arange(h) * math.log(base) / (h - 1))
    return np.concatenate([np.sin(pos * w), np.cos(pos * w)], axis=-1)


def absolute(out, kind):
    """Inputs/absolute_embed.mlir: T = 8, C = 32, vocabulary 50, 16 rows."""
    rng = np.random.default_rng(41)
    ids = rng.integers(0, 50, (1, 8)).astype(np.int64)
    wte = rng.uniform(-1, 1, (50, 32)).astype(F32)
    x = wte[ids].astype(np.float64)
    if kind == "learned":
        wpe = rng.uniform(-1, 1, (16, 32)).astype(F32)
        save(out, ids=ids, wte=wte, wpe=wpe)
        expected = x + wpe[np.arange(8)][None].astype(np.float64)
    else:
        positions = rng.integers(0, 16, (1, 8)).astype(np.int64)
        save(out, ids=ids, wte=wte, positions=positions)
        expected = x * math.sqrt(32) + sinusoid(positions, 32, kind)
    np.save(os.path.join(out, "expected.npy"), expected)


def rope_decode(out, t):
    """Inputs/rope_decode.mlir: x [1, 2, t, 16] at positions past + i."""
    rng = np.random.default_rng(51 + t)
    x = rng.uniform(-1, 1, (1, 2, t, 16)).astype(F32)
    past = np.array(777, dtype=np.int64)
    save(out, x=x, past=past)
    inv = (1.0 / 10000.0 ** (np.arange(0, 16, 2) / 16)).astype(F32)
    pos = (777 + np.arange(t, dtype=np.int64))[None]
    np.save(os.path.join(out, "expected.npy"),
            rope(x.astype(np.float64), pos, inv.astype(np.float64), 16, "half"))


def rope_dynamic(out):
    """test/Raise/raise-dynamic.mlir on 5 tokens at positions 0..4."""
    rng = np.random.default_rng(61)
    x = rng.uniform(-1, 1, (1, 2, 5, 16)).astype(F32)
    save(out, x=x)
    inv = (1.0 / 10000.0 ** (np.arange(0, 16, 2) / 16)).astype(F32)
    pos = np.arange(5, dtype=np.int64)[None]
    np.save(os.path.join(out, "expected.npy"),
            rope(x.astype(np.float64), pos, inv.astype(np.float64), 16, "half"))


def attn_dynamic(out):
    """test/Raise/raise-dynamic.mlir: softmax(Q K^T) V, 3 queries, 6 keys."""
    rng = np.random.default_rng(62)
    q = rng.uniform(-1, 1, (1, 2, 3, 16)).astype(F32)
    k, v = (rng.uniform(-1, 1, (1, 2, 6, 16)).astype(F32) for _ in range(2))
    save(out, q=q, k=k, v=v)
    s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 1, 3, 2)
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    np.save(os.path.join(out, "expected.npy"),
            (p / p.sum(axis=-1, keepdims=True)) @ v.astype(np.float64))


def rope_bf16(out):
    """test/Raise/rope-bf16-execution.mlir: x [1, 2, 4, 16] bf16 (given as
    float32 values exact in bf16), positions 0..3."""
    rng = np.random.default_rng(71)
    x = rng.uniform(-1, 1, (1, 2, 4, 16)).astype(F32)
    x = (x.view(np.uint32) & 0xFFFF0000).view(F32)  # exact in bf16
    save(out, x=x)
    inv = (1.0 / 10000.0 ** (np.arange(0, 16, 2) / 16)).astype(F32)
    pos = np.arange(4, dtype=np.int64)[None]
    np.save(os.path.join(out, "expected.npy"),
            rope(x.astype(np.float64), pos, inv.astype(np.float64), 16, "half"))


def tosa_attention3d(out):
    """Inputs/tosa_attention3d.mlir: softmax(Q K^T / 4) V on [4, T, 16]."""
    rng = np.random.default_rng(81)
    q = rng.uniform(-1, 1, (4, 8, 16)).astype(F32)
    k, v = (rng.uniform(-1, 1, (4, 6, 16)).astype(F32) for _ in range(2))
    save(out, q=q, k=k, v=v)
    s = q.astype(np.float64) @ k.astype(np.float64).transpose(0, 2, 1) / 4.0
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    np.save(os.path.join(out, "expected.npy"),
            (p / p.sum(axis=-1, keepdims=True)) @ v.astype(np.float64))


def tosa_attention3d_kt(out, case):
    """Inputs/tosa_attention3d_kt.mlir. `kt`: softmax(Q Kt / 4) V with the key
    stored transposed, Kt [4, 16, 6]. `shared_v`: softmax(Q K^T) V on batch 2
    with one [4, 6, 16] V for both batch entries. `cast_mask`: softmax(Q K^T
    - 1e9 * (j > i)) V on [4, 8, 16]. `constant_terms`: softmax(Q K^T / 4 +
    2) V on [4, T, 16], the mask a select on false."""
    rng = np.random.default_rng(
        {"kt": 82, "shared_v": 83, "cast_mask": 84, "constant_terms": 85}[case])
    f = lambda a: a.astype(np.float64)
    if case == "kt":
        q = rng.uniform(-1, 1, (4, 8, 16)).astype(F32)
        kt = rng.uniform(-1, 1, (4, 16, 6)).astype(F32)
        v = rng.uniform(-1, 1, (4, 6, 16)).astype(F32)
        save(out, q=q, k=kt, v=v)
        s = f(q) @ f(kt) / 4.0
    elif case == "shared_v":
        q = rng.uniform(-1, 1, (2, 4, 8, 16)).astype(F32)
        k = rng.uniform(-1, 1, (2, 4, 6, 16)).astype(F32)
        v = rng.uniform(-1, 1, (4, 6, 16)).astype(F32)
        save(out, q=q, k=k, v=v)
        s = f(q) @ f(k).transpose(0, 1, 3, 2)
    elif case == "constant_terms":
        q = rng.uniform(-1, 1, (4, 8, 16)).astype(F32)
        k, v = (rng.uniform(-1, 1, (4, 6, 16)).astype(F32) for _ in range(2))
        save(out, q=q, k=k, v=v)
        s = f(q) @ f(k).transpose(0, 2, 1) / 4.0 + 2.0
    else:
        q, k, v = (rng.uniform(-1, 1, (4, 8, 16)).astype(F32) for _ in range(3))
        save(out, q=q, k=k, v=v)
        t = np.arange(8)
        s = f(q) @ f(k).transpose(0, 2, 1) - 1e9 * (t[None, :] > t[:, None])
    p = np.exp(s - s.max(axis=-1, keepdims=True))
    np.save(os.path.join(out, "expected.npy"),
            (p / p.sum(axis=-1, keepdims=True)) @ f(v))


def rope_table_args(out, duplicated):
    """Inputs/rope_table_args.mlir: x [1, 2, 4, 16], cos/sin [1, 4, 16] tables
    of position * inv_freq (positions 3..6). With `duplicated` both halves of
    each table hold the same angles (Hugging Face's cat(freqs, freqs));
    otherwise the second halves are of other frequencies, which a rotary
    embedding raised on assume-duplicated-tables must refuse at run time.
    The expected value is x * cos + rotate_half(x) * sin with the tables as
    given."""
    rng = np.random.default_rng(91 if duplicated else 92)
    x = rng.uniform(-1, 1, (1, 2, 4, 16)).astype(F32)
    inv = default_inv_freq(10000.0, 16)
    second = inv if duplicated else inv * 1.5
    angles = (3 + np.arange(4, dtype=np.float64))[:, None] * \
        np.concatenate([inv, second])[None]
    cos = np.cos(angles).astype(F32)[None]
    sin = np.sin(angles).astype(F32)[None]
    save(out, x=x, cos=cos, sin=sin)
    x64 = x.astype(np.float64)
    c64 = cos.astype(np.float64)[:, None]
    s64 = sin.astype(np.float64)[:, None]
    np.save(os.path.join(out, "expected.npy"),
            x64 * c64 + rotate_half(x64) * s64)


def rope_tensor_level(out):
    """raise-pipeline.mlir: x [1, 2, 4, 16] times cat(c, c) plus
    rotate_half(x) times cat(s, s), c and s [4, 8] tables of position *
    inv_freq (positions 0..3)."""
    rng = np.random.default_rng(93)
    x = rng.uniform(-1, 1, (1, 2, 4, 16)).astype(F32)
    angles = np.arange(4, dtype=np.float64)[:, None] * \
        default_inv_freq(10000.0, 16)[None]
    c = np.cos(angles).astype(F32)
    s = np.sin(angles).astype(F32)
    save(out, x=x, cos_half=c, sin_half=s)
    x64 = x.astype(np.float64)
    c64 = np.concatenate([c, c], axis=-1).astype(np.float64)
    s64 = np.concatenate([s, s], axis=-1).astype(np.float64)
    np.save(os.path.join(out, "expected.npy"),
            x64 * c64 + rotate_half(x64) * s64)


def default_inv_freq(base, rotary):
    return 1.0 / base ** (np.arange(0, rotary, 2, dtype=np.float64) / rotary)


CASES = {
    "tosa_attention3d": tosa_attention3d,
    "tosa_attention3d_kt": lambda out: tosa_attention3d_kt(out, "kt"),
    "tosa_shared_v": lambda out: tosa_attention3d_kt(out, "shared_v"),
    "tosa_cast_mask": lambda out: tosa_attention3d_kt(out, "cast_mask"),
    "tosa_constant_terms": lambda out: tosa_attention3d_kt(out, "constant_terms"),
    "rope_tensor_level": rope_tensor_level,
    "rope_table_args": lambda out: rope_table_args(out, True),
    "rope_table_args_bad": lambda out: rope_table_args(out, False),
    "rope_bf16": rope_bf16,
    "attn_dynamic": attn_dynamic,
    "rope_dynamic": rope_dynamic,
    "rope_decode": lambda out: rope_decode(out, 1),
    "rope_chunk": lambda out: rope_decode(out, 4),
    "gpt2_embed": lambda out: absolute(out, "learned"),
    "transformer_embed": lambda out: absolute(out, "interleaved"),
    "t2t_embed": lambda out: absolute(out, "concat"),
    "tosa_llama": tosa_llama,
    "bloom_block": lambda out: alibi_case(out, 21, 1, 5, 6, 16, 0),
    "bloom_block_mask": lambda out: alibi_case(out, 23, 1, 5, 6, 16, 0,
                                               mask_arg=True),
    "mpt_block": lambda out: alibi_case(out, 22, 1, 6, 4, 16, 1 - 6),
    # GPT-J: interleaved, rotary 8 of 16, positions gathered from a 32-row
    # table.
    "gptj_block": lambda out: generic_case(
        out, 11, 1, 6, 2, 2, 16, default_inv_freq(10000.0, 8), 8, "interleaved",
        np.array([[3, 17, 4, 30, 0, 9]], dtype=np.int64)),
    # GPT-NeoX: split-half on 4 of 16 channels.
    "neox_block": lambda out: generic_case(
        out, 12, 1, 6, 2, 2, 16,
        default_inv_freq(10000.0, 4).astype(F32).astype(np.float64), 4, "half",
        (50 + np.arange(6, dtype=np.int64))[None]),
    # Qwen2 with YaRN (cos and sin scaled by the attention factor).
    "qwen2_yarn_block": lambda out: generic_case(
        out, 13, 1, 8, 4, 2, 64, *yarn_inv_freq(1e6, 64, 4.0, 32768)[:1], 64,
        "half", (4000 + 3 * np.arange(8, dtype=np.int64))[None],
        scaling=yarn_inv_freq(1e6, 64, 4.0, 32768)[1]),
    "llama3_block": lambda out: llama3(out, arange=False),
    "llama3_block_arange": lambda out: llama3(out, arange=True),
}

if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in CASES:
        sys.exit("usage: raise_ref.py {%s} OUTDIR" % "|".join(CASES))
    CASES[sys.argv[1]](sys.argv[2])
