#!/usr/bin/env python3
"""Inputs and float64 expected outputs of the sharded execution tests.

Usage: shard_cases.py CASE DIR

Writes the global inputs of test case CASE (one .npy per function argument),
``expected.npy`` (the float64 reference pe_ref.py on the global inputs) and,
for the cases that check that a shard computes at its global positions or
heads, ``naive.npy``: what the program would compute if each shard used
local positions (tokens restarting at 0, query rows treated as the first
rows) or the slopes of the first heads. A test passes only if its output
matches ``expected.npy`` and not ``naive.npy``.

The test files live in test/Integration/Shard/; they run on 2 ranks.
"""

import os
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pe_ref as ref  # noqa: E402

F32, F64 = np.float32, np.float64
RANKS = 2
CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def save(d, **arrays):
    for name, a in arrays.items():
        np.save(os.path.join(d, name + ".npy"), a, allow_pickle=False)


def uniform(rng, shape):
    return rng.uniform(-1.0, 1.0, shape).astype(F32)


def blocks(a, axis, fn):
    """``fn`` applied to each of the RANKS equal blocks of ``a`` along
    ``axis`` (with the block index), concatenated again."""
    parts = np.split(np.asarray(a), RANKS, axis=axis)
    return np.concatenate([fn(p, r) for r, p in enumerate(parts)], axis=axis)


# --------------------------------------------------------------------------
# RoPE, split over the sequence
# --------------------------------------------------------------------------


def _rope_seq(d, name, shape, seq_axis, layout, freqs, offset):
    """RoPE of x [..] at positions offset + t, t along seq_axis; the naive
    shard rotates its tokens at offset + t_local."""
    x = uniform(rng_for(name), shape)
    inv, af = freqs
    inv = np.asarray(inv, dtype=F64)
    af = float(F32(af))

    def rope(a, start):
        # pe_ref rotates [..., T, D]: move the tokens next to the channels.
        a = np.moveaxis(a, seq_axis, -2)
        T = a.shape[-2]
        out = ref.rope_inv_freq(a, inv, offset + start + np.arange(T), layout,
                                None, af)
        return np.moveaxis(out, -2, seq_axis)

    save(d, x=x, o=np.array(offset, dtype=np.int64),
         expected=rope(x, 0), naive=blocks(x, seq_axis, lambda p, r: rope(p, 0)))


LLAMA3 = ref.llama3(10000.0, 32, 8.0, 1.0, 4.0, 64)
YARN = ref.yarn(10000.0, 32, 4.0, 2048)


@case
def rope_llama3_half_bhsd(d):
    _rope_seq(d, "rope_llama3_half_bhsd", (1, 4, 16, 32), 2, "half", LLAMA3, 5)


@case
def rope_llama3_interleaved_bshd(d):
    _rope_seq(d, "rope_llama3_interleaved_bshd", (2, 16, 4, 32), 1,
              "interleaved", LLAMA3, 5)


@case
def rope_yarn_half_bshd(d):
    _rope_seq(d, "rope_yarn_half_bshd", (1, 16, 4, 32), 1, "half", YARN, 7)


@case
def rope_yarn_interleaved_bhsd(d):
    _rope_seq(d, "rope_yarn_interleaved_bhsd", (2, 2, 16, 32), 2,
              "interleaved", YARN, 7)


@case
def rope_const_table_channels(d):
    """RoPE with a folded (constant) frequency table, x split over the
    sequence and the channels: the channel split is dropped (the rotation
    runs on gathered channels), the sequence split kept."""
    x = uniform(rng_for("rope_const_table_channels"), (2, 16, 8))
    inv = np.array([1.0, 0.1, 0.01, 0.001], dtype=F32).astype(F64)
    save(d, x=x, expected=ref.rope_inv_freq(x, inv, np.arange(16), "half"))


# --------------------------------------------------------------------------
# Sinusoidal, split over the sequence
# --------------------------------------------------------------------------


@case
def sinusoidal_seq(d):
    x = uniform(rng_for("sinusoidal_seq"), (2, 16, 32))

    def enc(a, start):
        return ref.add_sinusoidal(a, 3 + start + np.arange(a.shape[1]),
                                  layout="interleaved")

    save(d, x=x, expected=enc(x, 0), naive=blocks(x, 1, lambda p, r: enc(p, 0)))


@case
def sinusoidal_unused_argument(d):
    """The sinusoidal case with an argument the function does not use (MLIR
    22's shard-partition crashes on one unless it is annotated)."""
    x = uniform(rng_for("sinusoidal_unused_argument"), (2, 16, 32))
    u = uniform(rng_for("sinusoidal_unused_argument.u"), (3, 5))

    def enc(a, start):
        return ref.add_sinusoidal(a, 3 + start + np.arange(a.shape[1]),
                                  layout="interleaved")

    save(d, x=x, u=u, expected=enc(x, 0),
         naive=blocks(x, 1, lambda p, r: enc(p, 0)))


# --------------------------------------------------------------------------
# ALiBi, split over the heads
# --------------------------------------------------------------------------


def _alibi_heads(d, H, Tq, Tk, distance, q_offset):
    expected = ref.alibi_bias(H, Tq, Tk, distance, q_offset)
    # A shard that used the slopes of the first H/2 heads.
    local = ref.alibi_bias(H // RANKS, Tq, Tk, distance, q_offset)
    save(d, expected=expected, naive=np.concatenate([local] * RANKS, axis=0))


@case
def alibi_heads_112(d):
    # BLOOM-176B: 112 heads (not a power of two: 64 slopes, then every other
    # slope of 128).
    _alibi_heads(d, 112, 8, 8, "symmetric", 0)


@case
def alibi_heads_6(d):
    _alibi_heads(d, 6, 4, 8, "signed", 4)


# --------------------------------------------------------------------------
# Attention
# --------------------------------------------------------------------------


def _qkv(name, B, H, Hkv, Tq, Tk, D):
    rng = rng_for(name)
    return (uniform(rng, (B, H, Tq, D)), uniform(rng, (B, Hkv, Tk, D)),
            uniform(rng, (B, Hkv, Tk, D)))


def _rope_all(a, inv, start=0):
    T = a.shape[-2]
    return ref.rope_inv_freq(a, inv, start + np.arange(T), "half")


@case
def attention_heads_gqa(d):
    """RoPE on Q and K, 8 query heads over 2 KV heads, causal; heads split."""
    q, k, v = _qkv("attention_heads_gqa", 1, 8, 2, 16, 16, 32)
    inv = ref.default_freqs(10000.0, 32)[0]
    out = ref.attention(_rope_all(q, inv), _rope_all(k, inv), v, causal=True)
    save(d, q=q, k=k, v=v, expected=out)


@case
def attention_heads_mqa_alibi(d):
    """MQA (4 query heads, 1 KV head) with a symmetric ALiBi encoding at
    query offset 8, bottom-right causal (Tq = 8, Tk = 16); heads split. The
    naive shard uses the slopes of 2 heads."""
    q, k, v = _qkv("attention_heads_mqa_alibi", 1, 4, 1, 8, 16, 16)

    def run(slopes):
        bias = ref.alibi_bias(4, 8, 16, "symmetric", 8, slopes)
        return ref.attention(q, k, v, bias=bias[None], causal=True)

    local = ref.alibi_slopes(2)
    save(d, q=q, k=k, v=v, expected=run(ref.alibi_slopes(4)),
         naive=run(np.concatenate([local, local])))


@case
def attention_rows_causal(d):
    """RoPE on Q and K, causal (bottom-right, Tq = Tk); query rows split. The
    naive shard rotates its queries from position 0 and masks them as the
    first rows."""
    q, k, v = _qkv("attention_rows_causal", 1, 4, 2, 16, 16, 32)
    inv = ref.default_freqs(10000.0, 32)[0]
    kr = _rope_all(k, inv)
    out = ref.attention(_rope_all(q, inv), kr, v, causal=True)
    naive = blocks(q, 2, lambda p, r: ref.attention(_rope_all(p, inv), kr, v,
                                                    causal=True))
    save(d, q=q, k=k, v=v, expected=out, naive=naive)


@case
def attention_keys_split(d):
    """RoPE on Q and K, GQA, causal; keys and values split over the key
    sequence, combined through the log-sum-exp."""
    q, k, v = _qkv("attention_keys_split", 1, 4, 2, 16, 16, 32)
    inv = ref.default_freqs(10000.0, 32)[0]
    out = ref.attention(_rope_all(q, inv), _rope_all(k, inv), v, causal=True)
    save(d, q=q, k=k, v=v, expected=out)


@case
def attention_keys_alibi_lse(d):
    """Symmetric ALiBi encoding, top-left causal with an offset, the lse
    returned; keys split."""
    q, k, v = _qkv("attention_keys_alibi_lse", 1, 4, 4, 8, 16, 16)
    bias = ref.alibi_bias(4, 8, 16, "symmetric", 3)
    out, lse = ref.attention(q, k, v, bias=bias[None], causal=True,
                             causal_alignment="top_left", causal_offset=3,
                             return_lse=True)
    save(d, q=q, k=k, v=v, expected=out, expected_lse=lse)


@case
def attention_batch_kv_lengths(d):
    """Causal attention with per-batch valid key lengths; the batch split
    (annotated on the queries only, propagated to the other operands)."""
    q, k, v = _qkv("attention_batch_kv_lengths", 2, 4, 4, 8, 8, 16)
    lengths = np.array([5, 8], dtype=np.int32)
    out = ref.attention(q, k, v, causal=True, kv_lengths=lengths)
    save(d, q=q, k=k, v=v, l=lengths, expected=out)


@case
def attention_rows_keys_alibi(d):
    """A signed ALiBi bias (pe.alibi_bias, query offset 8) added to causal
    GQA attention (Tq = 8, Tk = 16); query rows split on grid axis 0 and keys
    on axis 1 of a 2x2 grid."""
    q, k, v = _qkv("attention_rows_keys_alibi", 1, 4, 2, 8, 16, 16)
    bias = ref.alibi_bias(4, 8, 16, "signed", 8)
    save(d, q=q, k=k, v=v,
         expected=ref.attention(q, k, v, bias=bias[None], causal=True))


@case
def attention_keys_kv_lengths(d):
    """Top-left causal GQA attention at causal offset 8 with valid key
    lengths [11, 0]; keys split over 2 ranks. Batch 0's second block is
    partly valid; batch 1 has no valid key at all (rows of 0, lse -inf on
    every shard)."""
    q, k, v = _qkv("attention_keys_kv_lengths", 2, 4, 2, 8, 16, 16)
    lengths = np.array([11, 0], dtype=np.int64)
    out, lse = ref.attention(q, k, v, causal=True, causal_alignment="top_left",
                             causal_offset=8, kv_lengths=lengths,
                             return_lse=True)
    save(d, q=q, k=k, v=v, l=lengths, expected=out, expected_lse=lse)


@case
def attention_keys_alibi_key(d):
    """BLOOM's ALiBi (`key` distance b = j) as an encoding of causal GQA
    attention (6 heads, not a power of two, over 2 KV heads; Tq = Tk = 16,
    D = 32); keys split. A key block starting at k0 sees b = j - k0 for its
    keys, so its lse is shifted by m_h k0 before the shards combine; the
    naive combination without that shift is what attention with the bias
    m_h (j mod 8) gives."""
    q, k, v = _qkv("attention_keys_alibi_key", 1, 6, 2, 16, 16, 32)
    bias = ref.alibi_bias(6, 16, 16, "key")
    j = np.arange(16)
    naive_bias = ref.alibi_slopes(6)[:, None, None] * (j % 8)[None, None, :]
    naive_bias = np.broadcast_to(naive_bias, (6, 16, 16))
    save(d, q=q, k=k, v=v,
         expected=ref.attention(q, k, v, bias=bias[None], causal=True),
         naive=ref.attention(q, k, v, bias=naive_bias[None], causal=True))


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in CASES:
        sys.exit("usage: shard_cases.py CASE DIR; cases: " + " ".join(sorted(CASES)))
    os.makedirs(sys.argv[2], exist_ok=True)
    CASES[sys.argv[1]](sys.argv[2])


if __name__ == "__main__":
    main()
