#!/usr/bin/env python3
"""Self-test of pe_ref.py against published / hand values and properties.

Every check cites the PE-FORMULAS.md section it comes from.  Prints one line
per failure and finally ``selftest: N passed, M failed``; exits 1 on failure.
"""

import math
import os
import sys
import traceback

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import npycmp  # noqa: E402
import pe_ref  # noqa: E402

CHECKS = []
RNG = np.random.default_rng(20240601)


def check(fn):
    CHECKS.append(fn)
    return fn


def close(actual, expected, atol=1e-12, rtol=1e-12, what=""):
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    assert actual.shape == expected.shape, f"{what} shape {actual.shape} != {expected.shape}"
    if not np.allclose(actual, expected, rtol=rtol, atol=atol):
        err = np.max(np.abs(actual - expected))
        raise AssertionError(f"{what} max abs err {err:.3g}\n  got {actual}\n  want {expected}")


def randn(*shape):
    return RNG.standard_normal(shape)


# ---------------------------------------------------------------- A1 / A2


@check
def sinusoidal_interleaved_pos2_d4():
    """A1: PE(pos=2, d=4) = [sin 2, cos 2, sin .02, cos .02] ~ [0.909, -0.416, 0.020, 1.000]."""
    row = pe_ref.sinusoidal_table([2], 4)[0]
    close(row, [0.909, -0.416, 0.020, 1.000], atol=1e-3, rtol=0)
    close(row, [math.sin(2), math.cos(2), math.sin(0.02), math.cos(0.02)])


@check
def sinusoidal_pos0():
    """A1: PE(pos=0) is [0,1,0,1,...] interleaved and [0..0|1..1] concat (odd dim: last 0)."""
    close(pe_ref.sinusoidal_table([0], 6)[0], [0, 1, 0, 1, 0, 1])
    close(pe_ref.sinusoidal_table([0], 5)[0], [0, 1, 0, 1, 0])
    close(pe_ref.sinusoidal_table([0], 6, layout="concat")[0], [0, 0, 0, 1, 1, 1])
    close(pe_ref.sinusoidal_table([0], 7, layout="concat")[0], [0, 0, 0, 1, 1, 1, 0])


@check
def sinusoidal_interleaved_formula():
    """A1: PE[p,2k] = sin(p*10000^(-2k/dim)), PE[p,2k+1] = cos(same)."""
    dim, pos = 8, np.array([0, 1, 7, 100, 4095])
    table = pe_ref.sinusoidal_table(pos, dim)
    assert table.shape == (5, dim)
    for r, p in enumerate(pos):
        for k in range(dim // 2):
            ang = p * 10000.0 ** (-2 * k / dim)
            close(table[r, [2 * k, 2 * k + 1]], [math.sin(ang), math.cos(ang)])


@check
def sinusoidal_concat_fairseq():
    """A1: concat layout, w_k = exp(-k ln(base)/(h-1)): w_0 = 1, w_{h-1} = 1/base."""
    dim, h = 10, 5
    row = pe_ref.sinusoidal_table([3], dim, layout="concat")[0]
    w = [math.exp(-k * math.log(10000) / (h - 1)) for k in range(h)]
    close(row, [math.sin(3 * x) for x in w] + [math.cos(3 * x) for x in w])
    close([w[0], w[-1]], [1.0, 1e-4])
    # h == 1 -> w = 1; other base.
    close(pe_ref.sinusoidal_table([5], 2, layout="concat")[0], [math.sin(5), math.cos(5)])
    close(pe_ref.sinusoidal_table([5], 3, layout="concat", base=100.0)[0],
          [math.sin(5), math.cos(5), 0.0])
    row = pe_ref.sinusoidal_table([2], 4, base=100.0, layout="concat")[0]
    close(row, [math.sin(2), math.sin(0.02), math.cos(2), math.cos(0.02)])


@check
def add_sinusoidal_broadcast_and_scale():
    """A1: x*sqrt(dim) + PE[positions]; [T] positions broadcast, [B,T] follow dim 0."""
    x = randn(2, 3, 4, 6)
    pos = np.array([5, 6, 7, 8])
    table = pe_ref.sinusoidal_table(pos, 6)
    close(pe_ref.add_sinusoidal(x, pos), x + table)
    close(pe_ref.add_sinusoidal(x, 5), x + table)  # int offset
    close(pe_ref.add_sinusoidal(x, pos, scale_input=True), x * math.sqrt(6) + table)
    bpos = np.array([[0, 1, 2, 3], [10, 11, 12, 13]])
    got = pe_ref.add_sinusoidal(x, bpos, layout="concat")
    for b in range(2):
        close(got[b], x[b] + pe_ref.sinusoidal_table(bpos[b], 6, layout="concat"))


@check
def add_learned_gather():
    """A2: x + pos_emb[positions]."""
    table = randn(16, 4)
    x = randn(2, 3, 4)
    close(pe_ref.add_learned(x, table, [3, 1, 9]), x + table[[3, 1, 9]])
    bpos = np.array([[0, 1, 2], [7, 8, 15]])
    got = pe_ref.add_learned(x, table, bpos)
    for b in range(2):
        close(got[b], x[b] + table[bpos[b]])
    close(pe_ref.positions_from_offset(4, 3), [4, 5, 6])


# ---------------------------------------------------------------- A5 slopes

SLOPE_NS = [1, 2, 5, 6, 8, 12, 16, 20, 32, 40, 71, 112]


@check
def alibi_slopes_n12_published():
    """A5: n=12 slopes [0.5, 0.25, ..., 0.00390625, 0.70710678, 0.35355339, 0.1767767, 0.088388348]."""
    want = [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.0078125, 0.00390625,
            0.70710678, 0.35355339, 0.1767767, 0.088388348]
    close(pe_ref.alibi_slopes(12), want, atol=1e-8, rtol=0)


@check
def alibi_slopes_paper_equals_ggml_and_flashinfer():
    """A5: paper == ggml(max_bias=8) == FlashInfer for the checked n."""
    for n in SLOPE_NS:
        paper = pe_ref.alibi_slopes(n)
        assert paper.shape == (n,)
        close(pe_ref.alibi_slopes_ggml(n, 8.0), paper, what=f"ggml n={n}")
        c = 2 ** math.floor(math.log2(n))
        flashinfer = [2 ** (-8 * (h + 1) / c) if h < c else 2 ** (-4 * ((h + 1 - c) * 2 - 1) / c)
                      for h in range(n)]
        close(flashinfer, paper, what=f"flashinfer n={n}")
        gym = [2 ** (-(h + 1) * 8 / n) for h in range(n)]
        assert np.allclose(gym, paper) == (n == c), f"attention-gym n={n}"


@check
def alibi_slopes_max_bias():
    """A5: max_bias=0 -> slope 1; general max_bias paper form == ggml closed form."""
    close(pe_ref.alibi_slopes_ggml(6, 0.0), np.ones(6))
    close(pe_ref.alibi_slopes(6, 0.0), np.ones(6))
    for n in SLOPE_NS:
        close(pe_ref.alibi_slopes(n, 5.0), pe_ref.alibi_slopes_ggml(n, 5.0), what=f"n={n}")


@check
def alibi_bias_distances():
    """A5: b(i,j) = -|qi-j| / j-qi / j with qi = i + q_offset."""
    slopes = np.array([0.5, 0.25])
    sym = pe_ref.alibi_bias(2, 2, 4, "symmetric", q_offset=2, slopes=slopes)
    close(sym[1], 0.25 * np.array([[-2, -1, 0, -1], [-3, -2, -1, 0]]))
    sgn = pe_ref.alibi_bias(2, 2, 4, "signed", q_offset=2, slopes=slopes)
    close(sgn[0], 0.5 * np.array([[-2, -1, 0, 1], [-3, -2, -1, 0]]))
    key = pe_ref.alibi_bias(2, 2, 4, "key", q_offset=2, slopes=slopes)
    close(key[0], 0.5 * np.array([[0, 1, 2, 3], [0, 1, 2, 3]]))
    close(pe_ref.alibi_bias(12, 3, 3), pe_ref.alibi_slopes(12)[:, None, None]
          * -np.abs(np.arange(3)[:, None] - np.arange(3)[None, :]))


# ---------------------------------------------------------------- A3 RoPE


def _perm_interleaved_to_half(R, D):
    """Channel order P with y = x[P]: y[i] = x[2i], y[i+R/2] = x[2i+1], tail kept."""
    return np.concatenate([np.arange(0, R, 2), np.arange(1, R, 2), np.arange(R, D)])


@check
def rope_hand_values():
    """A3: a' = a cos - b sin, b' = a sin + b cos; ggml [cscs0000] / [ccss0000]."""
    close(pe_ref.rope_inv_freq(np.array([[1.0, 0.0]]), [1.0], [1]), [[math.cos(1), math.sin(1)]])
    close(pe_ref.rope_inv_freq(np.array([[2.0, 3.0]]), [0.5], [3], layout="half"),
          [[2 * math.cos(1.5) - 3 * math.sin(1.5), 2 * math.sin(1.5) + 3 * math.cos(1.5)]])
    x = randn(1, 8)
    inv = np.array([1.0, 0.1])
    c, s = np.cos(7 * inv), np.sin(7 * inv)
    inter = pe_ref.rope_inv_freq(x, inv, [7], rotary_dim=4)[0]
    x0 = x[0]
    close(inter, [x0[0] * c[0] - x0[1] * s[0], x0[0] * s[0] + x0[1] * c[0],
                  x0[2] * c[1] - x0[3] * s[1], x0[2] * s[1] + x0[3] * c[1], *x0[4:]])
    half = pe_ref.rope_inv_freq(x, inv, [7], layout="half", rotary_dim=4)[0]
    close(half, [x0[0] * c[0] - x0[2] * s[0], x0[1] * c[1] - x0[3] * s[1],
                 x0[0] * s[0] + x0[2] * c[0], x0[1] * s[1] + x0[3] * c[1], *x0[4:]])


@check
def rope_preserves_norm():
    """A3: rotation is orthogonal: ||rope(x)|| = ||x|| per token (af = 1)."""
    for layout in pe_ref.ROPE_LAYOUTS:
        for D, R in [(64, 64), (80, 32), (6, 2)]:
            x = randn(2, 3, 5, D)
            inv, _ = pe_ref.default_freqs(10000.0, R)
            y = pe_ref.rope_inv_freq(x, inv, 1000, layout, rotary_dim=R)
            close(np.linalg.norm(y, axis=-1), np.linalg.norm(x, axis=-1), what=layout)
            close(y[..., R:], x[..., R:], what="pass-through")


@check
def rope_relative_position():
    """A3: <rope(q,m), rope(k,n)> depends only on n - m."""
    for layout in pe_ref.ROPE_LAYOUTS:
        D = 16
        q, k = randn(1, D), randn(1, D)
        inv, _ = pe_ref.default_freqs(10000.0, D)

        def dot(m, n):
            return float(pe_ref.rope_inv_freq(q, inv, [m], layout)[0]
                         @ pe_ref.rope_inv_freq(k, inv, [n], layout)[0])

        for delta in [0, 1, 5, -3]:
            ref = dot(0, delta)
            for m in [1, 17, 1000, 65536]:
                close(dot(m, m + delta), ref, atol=1e-9, rtol=1e-9, what=f"{layout} d={delta}")
        assert abs(dot(0, 1) - dot(0, 2)) > 1e-6


@check
def rope_layouts_related_by_permutation():
    """A3: rope_half(x[P]) == rope_interleaved(x)[P] (llama.cpp permute, FA #288)."""
    for D, R in [(8, 8), (12, 8)]:
        P = _perm_interleaved_to_half(R, D)
        x = randn(2, 5, D)
        inv, _ = pe_ref.default_freqs(500000.0, R)
        pos = [0, 3, 9, 100, 12345]
        inter = pe_ref.rope_inv_freq(x, inv, pos, "interleaved", rotary_dim=R, attention_factor=1.3)
        half = pe_ref.rope_inv_freq(x[..., P], inv, pos, "half", rotary_dim=R, attention_factor=1.3)
        close(half, inter[..., P])


@check
def rope_attention_factor():
    """A3: cos and sin both scaled by attention_factor; pass-through channels not."""
    x = randn(3, 4, 10)
    inv, _ = pe_ref.default_freqs(10000.0, 6)
    for layout in pe_ref.ROPE_LAYOUTS:
        y1 = pe_ref.rope_inv_freq(x, inv, 2, layout, rotary_dim=6)
        y2 = pe_ref.rope_inv_freq(x, inv, 2, layout, rotary_dim=6, attention_factor=1.5)
        close(y2[..., :6], 1.5 * y1[..., :6])
        close(y2[..., 6:], x[..., 6:])
        # Logits of rotated q.k scale by af^2.
        close(np.sum(y2[..., :6] ** 2), 2.25 * np.sum(x[..., :6] ** 2))


@check
def rope_cache_matches_inv_freq():
    """A3: gathering cos/sin tables by position == computing the angles."""
    D, R, max_pos = 12, 8, 64
    inv, _ = pe_ref.default_freqs(10000.0, R)
    ang = np.arange(max_pos)[:, None] * inv[None, :]
    x = randn(2, 3, 5, D)
    bpos = np.array([[0, 1, 2, 3, 4], [40, 41, 42, 43, 63]])
    for layout in pe_ref.ROPE_LAYOUTS:
        for pos in ([3, 4, 5, 6, 7], bpos):
            a = pe_ref.rope_cache(x, np.cos(ang), np.sin(ang), pos, layout, R, 0.7)
            b = pe_ref.rope_inv_freq(x, inv, pos, layout, R, 0.7)
            close(a, b)
    # Arbitrary table values are used as given.
    cos_t, sin_t = np.array([[2.0], [3.0]]), np.array([[5.0], [7.0]])
    close(pe_ref.rope_cache(np.array([[1.0, 10.0], [1.0, 10.0]]), cos_t, sin_t, [1, 0]),
          [[3 - 70, 7 + 30], [2 - 50, 5 + 20]])


@check
def rope_per_token_caches():
    """A3: per-token [B, T, R/2] rows == a position table gathered per token."""
    x = randn(2, 3, 4, 8)
    table_c, table_s = randn(10, 4), randn(10, 4)
    pos = np.array([[3, 1, 4, 1], [5, 9, 2, 6]])
    close(pe_ref.rope_cache_per_token(x, table_c[pos], table_s[pos], "half"),
          pe_ref.rope_cache(x, table_c, table_s, pos, "half"))


@check
def rope_batch_positions():
    """A3: [B, T] positions apply to x's dim 0."""
    x = randn(3, 2, 4, 8)
    bpos = np.array([[0, 1, 2, 3], [10, 20, 30, 40], [7, 7, 7, 7]])
    inv, _ = pe_ref.default_freqs(10000.0, 8)
    for layout in pe_ref.ROPE_LAYOUTS:
        got = pe_ref.rope_inv_freq(x, inv, bpos, layout)
        for b in range(3):
            close(got[b], pe_ref.rope_inv_freq(x[b], inv, bpos[b], layout))


# ---------------------------------------------------------------- A4 frequencies


@check
def freqs_default_linear_ntk():
    """A3/A4.1/A4.2: default base^(-2i/R); linear /factor; ntk base*factor^(R/(R-2))."""
    inv, af = pe_ref.default_freqs(10000.0, 4)
    close(inv, [1.0, 0.01])
    assert af == 1.0
    inv, af = pe_ref.linear(10000.0, 4, 4.0)
    close(inv, [0.25, 0.0025])
    assert af == 1.0
    inv, af = pe_ref.ntk(10000.0, 4, 4.0)
    close(inv, [1.0, 1.0 / 400.0])  # base' = 10000 * 4^2 = 160000, exponent 2i/R = 1/2
    assert af == 1.0


@check
def freqs_dynamic_ntk():
    """A4.3: seq_len <= max_pos -> default; else base*(f*s/L - (f-1))^(R/(R-2))."""
    default, _ = pe_ref.default_freqs(10000.0, 64)
    for s in (None, 100, 4096):
        close(pe_ref.dynamic_ntk(10000.0, 64, 2.0, 4096, s)[0], default)
    inv, af = pe_ref.dynamic_ntk(10000.0, 4, 2.0, 4096, 8192)
    close(inv, [1.0, 1.0 / 300.0])  # inner = 2*2 - 1 = 3, ^(4/2) = 9, sqrt(90000)
    assert af == 1.0


@check
def freqs_yarn():
    """A4.4: YaRN correction range, ramp blend, mscale rules, truthiness."""
    base, R, L, factor = 10000.0, 128, 4096, 8.0
    extrap, _ = pe_ref.default_freqs(base, R)
    inv, af = pe_ref.yarn(base, R, factor, L)
    # fcd(32) = 20.944 -> low 20, fcd(1) = 45.027 -> high 46.
    fcd = [R * math.log(L / (n * 2 * math.pi)) / (2 * math.log(base)) for n in (32, 1)]
    close(fcd, [20.944, 45.027], atol=1e-3, rtol=0)
    close(inv[:21], extrap[:21])
    close(inv[46:], extrap[46:] / factor)
    ramp = (33 - 20) / 26
    close(inv[33], extrap[33] / factor * ramp + extrap[33] * (1 - ramp))
    close(af, 0.1 * math.log(8) + 1)
    # factor 1 -> plain RoPE.
    inv1, af1 = pe_ref.yarn(base, R, 1.0, L)
    close(inv1, extrap)
    assert af1 == 1.0
    # factor None -> max_pos / L.
    close(pe_ref.yarn(base, R, None, L, max_pos=8 * L)[0], inv)
    # beta 0/None are falsy -> defaults 32 / 1.
    close(pe_ref.yarn(base, R, factor, L, beta_fast=0, beta_slow=None)[0], inv)
    # truncate=False keeps the fractional range.
    inv_nt, _ = pe_ref.yarn(base, R, factor, L, truncate=False)
    ramp = (33 - fcd[0]) / (fcd[1] - fcd[0])
    close(inv_nt[33], extrap[33] / factor * ramp + extrap[33] * (1 - ramp))
    # mscale ratio (DeepSeek: mscale == mscale_all_dim -> 1).
    m = lambda s, k=1.0: 1.0 if s <= 1 else 0.1 * k * math.log(s) + 1  # noqa: E731
    close(pe_ref.yarn(base, R, 40.0, L, mscale=1.0, mscale_all_dim=1.0)[1], 1.0)
    close(pe_ref.yarn(base, R, 40.0, L, mscale=0.707, mscale_all_dim=1.0)[1],
          m(40, 0.707) / m(40, 1.0))
    # mscale 0 is falsy -> get_mscale(factor).
    close(pe_ref.yarn(base, R, 40.0, L, mscale=0, mscale_all_dim=1.0)[1], m(40))
    close(pe_ref.yarn(base, R, 40.0, L, mscale=1.0, mscale_all_dim=None)[1], m(40))
    # explicit attention_factor wins.
    close(pe_ref.yarn(base, R, 40.0, L, mscale=1.0, mscale_all_dim=0.5,
                      attention_factor=0.25)[1], 0.25)
    # low == high -> high += 0.001 (no NaN); range clipped to [0, R-1].
    inv_eq, _ = pe_ref.yarn(base, 4, 4.0, 64, beta_fast=1000, beta_slow=1000, truncate=False)
    assert np.all(np.isfinite(inv_eq))


@check
def freqs_llama3():
    """A4.6: high freq kept, low freq /factor, medium smoothed; == FlashInfer clamp form."""
    base, R, f, lo, hi, L = 500000.0, 128, 8.0, 1.0, 4.0, 8192
    inv, af = pe_ref.llama3(base, R, f, lo, hi, L)
    default, _ = pe_ref.default_freqs(base, R)
    assert af == 1.0
    wavelen = 2 * math.pi / default
    high_band, low_band = wavelen < L / hi, wavelen > L / lo
    medium = ~high_band & ~low_band
    assert high_band.any() and low_band.any() and medium.any()
    close(inv[high_band], default[high_band])
    close(inv[low_band], default[low_band] / f)
    a = L / (2 * math.pi * (hi - lo))
    b = -1.0 / (hi / lo - 1)
    smooth = np.clip(default * a + b, 0, 1)
    close(inv, (1 - smooth) * default / f + smooth * default)
    # llama.cpp rope_freqs: default / inv in {1, factor, 1/((1-s)/f + s)}.
    close(default / inv, np.where(high_band, 1.0, np.where(low_band, f, 1 / ((1 - smooth) / f + smooth))))
    # low == high: threshold only.
    inv_eq, _ = pe_ref.llama3(base, R, f, 2.0, 2.0, L)
    close(inv_eq, np.where(wavelen < L / 2, default, default / f))


@check
def freqs_longrope():
    """A4.5: short/long switch on seq_len > L; attention factor sqrt(1 + ln f / ln L)."""
    base, R, L, max_pos = 10000.0, 8, 4096, 131072
    short, long = [1.0, 1.5, 2.0, 2.5], [1.0, 4.0, 16.0, 32.0]
    default, _ = pe_ref.default_freqs(base, R)
    inv, af = pe_ref.longrope(base, R, short, long, L, max_pos)
    close(inv, default / short)
    close(af, math.sqrt(1 + math.log(32) / math.log(L)))
    close(pe_ref.longrope(base, R, short, long, L, max_pos, seq_len=L)[0], default / short)
    close(pe_ref.longrope(base, R, short, long, L, max_pos, seq_len=L + 1)[0], default / long)
    assert pe_ref.longrope(base, R, short, long, L, L)[1] == 1.0
    close(pe_ref.longrope(base, R, short, long, L, max_pos, factor=4.0)[1],
          math.sqrt(1 + math.log(4) / math.log(L)))
    assert pe_ref.longrope(base, R, short, long, L, max_pos, attention_factor=1.2)[1] == 1.2


# ---------------------------------------------------------------- A6 attention


def naive_attention(q, k, v, scale, allowed=None, bias=None):
    """Direct loops: softmax(scale*q.k + bias) over allowed keys; empty rows 0."""
    B, H, Tq, D = q.shape
    Hkv, Tk, Dv = k.shape[1], k.shape[2], v.shape[3]
    out = np.zeros((B, H, Tq, Dv))
    for b in range(B):
        for h in range(H):
            g = h // (H // Hkv)
            for i in range(Tq):
                keys = [j for j in range(Tk) if allowed is None or allowed[b, h, i, j]]
                if not keys:
                    continue
                s = [scale * sum(q[b, h, i, d] * k[b, g, j, d] for d in range(D))
                     + (0.0 if bias is None else bias[b, h, i, j]) for j in keys]
                mx = max(s)
                e = [math.exp(x - mx) for x in s]
                for w, j in zip(e, keys):
                    out[b, h, i] += w / sum(e) * v[b, g, j]
    return out


@check
def attention_matches_naive():
    """A6: no mask == naive softmax(q.k/sqrt(D)) v; GQA head mapping h // (H/Hkv)."""
    q, k, v = randn(2, 4, 3, 5), randn(2, 2, 6, 5), randn(2, 2, 6, 7)
    close(pe_ref.attention(q, k, v), naive_attention(q, k, v, 1 / math.sqrt(5)))
    close(pe_ref.attention(q, k, v, scale=0.3), naive_attention(q, k, v, 0.3))
    bias = randn(2, 4, 3, 6)
    close(pe_ref.attention(q, k, v, bias=bias), naive_attention(q, k, v, 1 / math.sqrt(5), bias=bias))
    # GQA == MHA with repeated kv heads.
    close(pe_ref.attention(q, k, v), pe_ref.attention(q, np.repeat(k, 2, 1), np.repeat(v, 2, 1)))


@check
def attention_causal_bottom_right():
    """A6: causal keeps j <= i + Tk - Tq (ONNX bottom-right)."""
    q, k, v = randn(1, 2, 3, 4), randn(1, 2, 5, 4), randn(1, 2, 5, 4)
    allowed = np.broadcast_to(np.arange(5)[None, :] <= np.arange(3)[:, None] + 2, (1, 2, 3, 5))
    close(pe_ref.attention(q, k, v, causal=True), naive_attention(q, k, v, 0.5, allowed))
    # Tq == 1 (decode) sees every key.
    close(pe_ref.attention(q[:, :, -1:], k, v, causal=True), pe_ref.attention(q[:, :, -1:], k, v))
    # causal == explicit lower-triangular mask when Tq == Tk.
    kk, vv = k[:, :, :3], v[:, :, :3]
    close(pe_ref.attention(q, kk, vv, causal=True),
          pe_ref.attention(q, kk, vv, mask=np.tril(np.ones((3, 3), dtype=bool))))


@check
def attention_index_masks():
    """Causal alignments, causal_offset, kv_lengths and window against loops."""
    B, H, Tq, Tk, D = 3, 2, 4, 9, 3
    q, k, v = randn(B, H, Tq, D), randn(B, 1, Tk, D), randn(B, 1, Tk, D)
    lengths = [5, 0, 12]  # 12 > Tk is clamped to 9

    def allowed(rule):
        a = np.zeros((B, H, Tq, Tk), dtype=bool)
        for b in range(B):
            L = min(max(lengths[b], 0), Tk)
            for i in range(Tq):
                for j in range(Tk):
                    a[b, :, i, j] = j < L and rule(L, i, j)
        return a

    scale = 1 / math.sqrt(D)
    cases = [
        (dict(), lambda L, i, j: True),
        (dict(causal=True), lambda L, i, j: j <= i + L - Tq),
        (dict(causal=True, causal_alignment="top_left"), lambda L, i, j: j <= i),
        (dict(causal=True, causal_offset=2, causal_alignment="top_left"), lambda L, i, j: j <= i + 2),
        (dict(causal=True, causal_offset=-1), lambda L, i, j: j <= i + L - Tq - 1),
        (dict(causal=True, window=3), lambda L, i, j: i + L - Tq - 3 < j <= i + L - Tq),
        (dict(causal=True, causal_alignment="top_left", window=2), lambda L, i, j: i - 2 < j <= i),
    ]
    for kw, rule in cases:
        close(pe_ref.attention(q, k, v, kv_lengths=lengths, **kw),
              naive_attention(q, k, v, scale, allowed(rule)), what=str(kw))


@check
def attention_lse_combines_key_splits():
    """lse: two attentions over disjoint key halves combine into the whole."""
    q, k, v = randn(2, 4, 5, 8), randn(2, 2, 12, 8), randn(2, 2, 12, 8)
    full, lse = pe_ref.attention(q, k, v, causal=True, causal_alignment="top_left",
                                 causal_offset=6, return_lse=True)
    # Keys [0, 6) and [6, 12): the second half sees query i at key i + 6 - 6.
    o1, l1 = pe_ref.attention(q, k[:, :, :6], v[:, :, :6], causal=True,
                              causal_alignment="top_left", causal_offset=6, return_lse=True)
    o2, l2 = pe_ref.attention(q, k[:, :, 6:], v[:, :, 6:], causal=True,
                              causal_alignment="top_left", causal_offset=0, return_lse=True)
    both = np.logaddexp(l1, l2)
    close(both, lse)
    close(np.exp(l1 - both)[..., None] * o1 + np.exp(l2 - both)[..., None] * o2, full)
    # An empty row has lse -inf and output 0.
    _, le = pe_ref.attention(q, k, v, kv_lengths=[0, 12], return_lse=True)
    assert np.all(np.isneginf(le[0])) and np.all(np.isfinite(le[1]))


@check
def attention_fully_masked_rows_zero():
    """A6: a row with no allowed key outputs exactly 0 (ONNX, ggml S==0)."""
    q, k, v = randn(1, 2, 3, 4), randn(1, 2, 4, 4), randn(1, 2, 4, 4)
    mask = np.ones((1, 2, 3, 4), dtype=bool)
    mask[0, 1, 2, :] = False
    mask[0, 0, 0, 1:] = False
    out = pe_ref.attention(q, k, v, mask=mask)
    assert np.all(out[0, 1, 2] == 0.0) and np.all(np.isfinite(out))
    close(out, naive_attention(q, k, v, 0.5, mask))
    close(out[0, 0, 0], v[0, 0, 0])
    # Causal with Tq > Tk: the first Tq - Tk rows have no key.
    out = pe_ref.attention(randn(1, 1, 5, 4), k[:, :1, :3], v[:, :1, :3], causal=True)
    assert np.all(out[0, 0, :2] == 0.0) and np.all(out[0, 0, 2:] != 0.0)
    # -inf bias everywhere in a row behaves like a mask.
    bias = np.zeros((1, 2, 3, 4))
    bias[0, 0, 1, :] = -np.inf
    out = pe_ref.attention(q, k, v, bias=bias)
    assert np.all(out[0, 0, 1] == 0.0) and np.all(np.isfinite(out))


@check
def attention_softcap_order():
    """A6: softcap before bias (ggml/ONNX) vs after bias (FlashInfer)."""
    q, k, v = randn(1, 2, 3, 4) * 4, randn(1, 2, 5, 4) * 4, randn(1, 2, 5, 4)
    bias = pe_ref.alibi_bias(2, 3, 5, "signed", q_offset=2)
    scale, c = 0.5, 5.0
    s = scale * np.einsum("bhqd,bhkd->bhqk", q, k)
    before = c * np.tanh(s / c) + bias
    after = c * np.tanh((s + bias) / c)

    def softmax_v(logits):
        p = np.exp(logits - logits.max(-1, keepdims=True))
        return (p / p.sum(-1, keepdims=True)) @ v

    got_b = pe_ref.attention(q, k, v, bias=bias, softcap=c)
    got_a = pe_ref.attention(q, k, v, bias=bias, softcap=c, softcap_order="after_bias")
    close(got_b, softmax_v(before))
    close(got_a, softmax_v(after))
    assert np.max(np.abs(got_a - got_b)) > 1e-3
    # Without bias the orders agree.
    close(pe_ref.attention(q, k, v, softcap=c),
          pe_ref.attention(q, k, v, softcap=c, softcap_order="after_bias"))


@check
def attention_alibi_distance_equivalences():
    """A5: key == signed always (row shift); symmetric == signed only under causal."""
    H, Tq, Tk, off = 4, 3, 6, 3
    q, k, v = randn(1, H, Tq, 8), randn(1, H, Tk, 8), randn(1, H, Tk, 8)
    bias = {d: pe_ref.alibi_bias(H, Tq, Tk, d, q_offset=off) for d in pe_ref.ALIBI_DISTANCES}
    for causal in (False, True):
        close(pe_ref.attention(q, k, v, causal=causal, bias=bias["key"]),
              pe_ref.attention(q, k, v, causal=causal, bias=bias["signed"]), atol=1e-10)
    close(pe_ref.attention(q, k, v, causal=True, bias=bias["symmetric"]),
          pe_ref.attention(q, k, v, causal=True, bias=bias["signed"]), atol=1e-10)
    diff = (pe_ref.attention(q, k, v, bias=bias["symmetric"])
            - pe_ref.attention(q, k, v, bias=bias["signed"]))
    assert np.max(np.abs(diff)) > 1e-3


# ---------------------------------------------------------------- npycmp


@check
def npycmp_compare():
    """npycmp: tolerance rule, NaN placement, shapes, float32 input."""
    e = np.array([1.0, -2.0, 0.0, np.inf])
    assert npycmp.compare(e.astype(np.float32), e)[0]
    assert npycmp.compare(e + [1e-6, 0, 0, 0], e, rtol=1e-5, atol=0)[0]
    ok, line = npycmp.compare(e + [0, 0, 1e-3, 0], e, rtol=1e-5, atol=1e-6)
    assert not ok and "worst=(2,)" in line, line
    nan = np.array([1.0, np.nan])
    ok, line = npycmp.compare(nan, nan)
    assert ok and "max_abs=0 max_rel=0 " in line, line
    assert not npycmp.compare(nan, np.array([1.0, 2.0]))[0]
    assert not npycmp.compare(np.array([1.0, 2.0]), nan)[0]
    assert not npycmp.compare(np.array([1.0, -np.inf]), np.array([1.0, np.inf]))[0]
    assert not npycmp.compare(np.zeros((2, 3)), np.zeros((3, 2)))[0]
    ok, line = npycmp.compare(np.zeros(5), np.zeros(5))
    assert ok and line.startswith("npycmp: PASS") and "n=5" in line, line


def main():
    failed = 0
    for fn in CHECKS:
        try:
            fn()
        except Exception:  # noqa: BLE001 - report every failing check
            failed += 1
            print(f"FAIL {fn.__name__}: {fn.__doc__.splitlines()[0]}")
            traceback.print_exc(file=sys.stdout)
    print(f"selftest: {len(CHECKS) - failed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
