#!/usr/bin/env python3
"""Inputs and float64 expected outputs of the CPU execution tests.

Usage: cases.py CASE DIR

Writes the inputs of test case CASE (one .npy per function argument, named as
in the test's RUN lines) and its expected results ``expected*.npy`` into DIR
(created if missing).  Inputs are deterministic: every case draws from
``np.random.default_rng(crc32(CASE))``.  Expected values come from the
independent float64 reference ``pe_ref.py``, evaluated on exactly the values
the compiled function receives (inputs of f16/bf16 tests are rounded to that
type first, f32 frequency results are rounded to f32 as the frequency ops
define), and are saved as float64.  A few expected values that are not
formulas of pe_ref (clamped positions, closed forms of the property tests)
are written out here with a comment.

The test files live in test/Integration/CPU/; each RUN line names a case.
"""

import os
import sys
import zlib

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pe_ref as ref  # noqa: E402

F32, F64, F16 = np.float32, np.float64, np.float16

CASES = {}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def rng_for(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


def save(d, **arrays):
    for name, a in arrays.items():
        np.save(os.path.join(d, name + ".npy"), a, allow_pickle=False)


def uniform(rng, shape, dtype=F32, lo=-1.0, hi=1.0):
    return rng.uniform(lo, hi, shape).astype(dtype)


def to_bf16(a):
    """Rounds float32 values to the nearest bfloat16 (ties to even), as float32."""
    a = np.ascontiguousarray(a, dtype=F32)
    u = a.view(np.uint32).astype(np.uint64)
    u = (u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000
    return u.astype(np.uint32).view(F32)


def f32(a):
    """The value of a float64 quantity rounded to f32, back in float64."""
    return np.asarray(a, dtype=F64).astype(F32).astype(F64)


def index(v):
    return np.array(v, dtype=np.int64)


def i32(v):
    return np.array(v, dtype=np.int32)


def scalar_f32(v):
    return np.array(v, dtype=F32)


def unit_rows(rng, shape):
    """Random f32 vectors of (nearly) unit Euclidean norm along the last axis."""
    x = rng.standard_normal(shape)
    x /= np.linalg.norm(x, axis=-1, keepdims=True)
    return x.astype(F32)


# ===========================================================================
# A1. pe.add_sinusoidal (sinusoidal.mlir)
# ===========================================================================


def _sinusoidal(d, name, shape, dtype, positions, pos_arg=None, layout="interleaved",
                base=10000.0, scale_input=False):
    """x of `shape`; `positions` as pe_ref takes them; `pos_arg` the run-time
    position operand written as p.npy (offset scalar or positions tensor)."""
    rng = rng_for(name)
    x = uniform(rng, shape, F32)
    if dtype == "bf16":
        x = to_bf16(x)
    else:
        x = x.astype(dtype)
    save(d, x=x)
    if pos_arg is not None:
        save(d, p=pos_arg)
    save(d, expected=ref.add_sinusoidal(x, positions, base, layout, scale_input))


@case
def sin_interleaved_offset(d):
    # offset operand 7 plus static_offset 3: positions 10 + t.
    _sinusoidal(d, "sin_interleaved_offset", (2, 12, 16), F32, 10, index(7))


# Channel counts that are not whole vectors (masked tails in the generated
# kernel).


@case
def sin_tail_interleaved_d10(d):
    # offset 5: positions 5 + t; 10 channels.
    _sinusoidal(d, "sin_tail_interleaved_d10", (2, 9, 10), F32, 5, index(5))


@case
def sin_tail_concat_d72(d):
    # 72 channels (halves of 36), 70 tokens (two token blocks), offset 2.
    _sinusoidal(d, "sin_tail_concat_d72", (70, 72), F32, 2, index(2), layout="concat")


@case
def sin_tail_concat_odd_d9(d):
    # 9 channels: concat halves of 4 and the pad column, scaled input,
    # offset 1000.
    _sinusoidal(d, "sin_tail_concat_odd_d9", (3, 6, 9), F32, 1000, index(1000),
                layout="concat", scale_input=True)


@case
def sin_interleaved_rows(d):
    # 150 tokens from position 37: three 64-token blocks, the last of 22
    # rows, so the kernel's recurrence runs whole 8-row passes and single
    # rows after them.
    _sinusoidal(d, "sin_interleaved_rows", (2, 150, 64), F32, 37, index(37))


@case
def sin_interleaved_long_tasks(d):
    # 4096 static tokens from position 1000, C = 32: enough rows for the CPU
    # kernel's 256-token tasks (first row direct, 255 by angle addition).
    _sinusoidal(d, "sin_interleaved_long_tasks", (4096, 32), F32, 1000)


@case
def sin_interleaved_streaming(d):
    # A 33.6 MB result (at least 32 MiB: non-temporal stores), 4100 static
    # tokens of 2048 channels from position 3: 17 tasks of 256 tokens, the
    # last of 4; each 8-row pass prefetches the next pass's rows, clamped to
    # its task's last row.
    _sinusoidal(d, "sin_interleaved_streaming", (4100, 2048), F32, 3)


@case
def sin_concat_streaming_dynamic(d):
    # The concat layout with a dynamic token count (4100 x 2048, decided at
    # run time to stream): 64-token tasks, the last of 4 tokens.
    _sinusoidal(d, "sin_concat_streaming_dynamic", (4100, 2048), F32, 0, layout="concat")


@case
def sin_interleaved_streaming_bf16(d):
    # A 33.6 MB bf16 result (non-temporal stores of vector pairs), 4100 x
    # 4096 from position 3.
    _sinusoidal(d, "sin_interleaved_streaming_bf16", (4100, 4096), "bf16", 3)


@case
def sin_concat_streaming_bf16(d):
    # The concat layout in bf16, 4100 x 4096 from position 0: the sin and the
    # cos halves each streamed in vector pairs.
    _sinusoidal(d, "sin_concat_streaming_bf16", (4100, 4096), "bf16", 0, layout="concat")


@case
def sin_concat_long_tasks(d):
    # The same in the concat layout, C = 64, 2 x 2048 tokens.
    _sinusoidal(d, "sin_concat_long_tasks", (2, 2048, 64), F32, 0, layout="concat")


@case
def sin_concat_rows(d):
    # 150 tokens, concat halves of 48 pairs, static offset 5, scale_input.
    _sinusoidal(d, "sin_concat_rows", (150, 96), F32, 5, layout="concat",
                scale_input=True)


@case
def sin_interleaved_huge_offset(d):
    # Positions 2^62 + 5 + t (see rope_half_huge_offset). Base 2^16 with
    # C = 16 makes every frequency a power of two (2^-2k), so the f64 angle
    # p * w is exact however it is formed, and the test checks the sin/cos of
    # huge angles rather than the last bit of w (which moves such an angle by
    # radians).
    _sinusoidal(d, "sin_interleaved_huge_offset", (2, 6, 16), F32, 2**62 + 5,
                index(2**62 + 5), base=65536.0)


@case
def sin_interleaved_static(d):
    # static_offset 100 only, base 500.
    _sinusoidal(d, "sin_interleaved_static", (3, 8, 32), F32, 100, base=500.0)


@case
def sin_interleaved_positions(d):
    pos = rng_for("sin_interleaved_positions/p").integers(0, 2000, 10).astype(np.int32)
    _sinusoidal(d, "sin_interleaved_positions", (10, 24), F32, pos, pos, scale_input=True)


@case
def sin_interleaved_batch_positions(d):
    pos = rng_for("sin_interleaved_batch_positions/p").integers(0, 300, (2, 5))
    _sinusoidal(d, "sin_interleaved_batch_positions", (2, 3, 5, 8), F32, pos, pos)


@case
def sin_interleaved_odd(d):
    # Odd C in the interleaved layout: the last channel is sin(p base^(-(C-1)/C)).
    _sinusoidal(d, "sin_interleaved_odd", (6, 9), F32, 4, i32(4))


@case
def sin_concat_offset_i32(d):
    _sinusoidal(d, "sin_concat_offset_i32", (2, 9, 16), F32, 4, i32(4), layout="concat")


@case
def sin_concat_odd(d):
    pos = np.array([0, 5, 1, 63, 1000, 2, 17], dtype=np.int64)
    _sinusoidal(d, "sin_concat_odd", (7, 15), F32, pos, pos, layout="concat", scale_input=True)


@case
def sin_concat_batch_positions(d):
    pos = rng_for("sin_concat_batch_positions/p").integers(0, 500, (3, 6)).astype(np.int32)
    _sinusoidal(d, "sin_concat_batch_positions", (3, 6, 12), F32, pos, pos, layout="concat")


@case
def sin_concat_h1(d):
    # C = 3: h = 1, w_0 = 1, last channel 0; static_offset 2.
    _sinusoidal(d, "sin_concat_h1", (4, 3), F32, 2, layout="concat")


@case
def sin_interleaved_f64(d):
    _sinusoidal(d, "sin_interleaved_f64", (2, 8, 16), F64, 123456, np.array(123456, np.int64),
                scale_input=True)


@case
def sin_concat_f16(d):
    _sinusoidal(d, "sin_concat_f16", (2, 8, 16), F16, 30, index(30), layout="concat",
                scale_input=True)


@case
def sin_interleaved_bf16(d):
    _sinusoidal(d, "sin_interleaved_bf16", (8, 16), "bf16", 50)


# ===========================================================================
# A2. pe.add_learned (learned.mlir)
# ===========================================================================
# Positions outside [0, P) are clamped into the table (PEOps.td); pe_ref's
# add_learned indexes the table as given, so the clamp is applied here.


def _learned(d, name, x_shape, P, positions, pos_arg=None, dtype=F32):
    rng = rng_for(name)
    C = x_shape[-1]
    x = uniform(rng, x_shape).astype(dtype)
    table = uniform(rng, (P, C), lo=-2.0, hi=2.0).astype(dtype)
    save(d, x=x, table=table)
    if pos_arg is not None:
        save(d, p=pos_arg)
    T = x_shape[-2]
    pos = np.asarray(positions)
    if pos.ndim == 0:
        pos = ref.positions_from_offset(pos, T)
    save(d, expected=ref.add_learned(x, table, np.clip(pos, 0, P - 1)))


@case
def learned_offset(d):
    _learned(d, "learned_offset", (2, 10, 8), 32, 5, index(5))


@case
def learned_offset_clamp(d):
    # Positions 28..37 with P = 32: the last six tokens read row 31.
    _learned(d, "learned_offset_clamp", (2, 10, 8), 32, 28, index(28))


@case
def learned_static_offset(d):
    _learned(d, "learned_static_offset", (4, 8), 16, 12)


@case
def learned_positions_clamp(d):
    # -2 -> row 0, 40 and 20 -> row 19 (P = 20).
    pos = np.array([3, 0, 17, -2, 40, 19, 20], dtype=np.int32)
    _learned(d, "learned_positions_clamp", (2, 7, 8), 20, pos, pos)


@case
def learned_batch_positions(d):
    pos = rng_for("learned_batch_positions/p").integers(0, 24, (2, 5))
    _learned(d, "learned_batch_positions", (2, 2, 5, 8), 24, pos, pos)


@case
def learned_f16(d):
    _learned(d, "learned_f16", (3, 8), 12, 9, np.array(9, np.int64), dtype=F16)


@case
def learned_f64(d):
    _learned(d, "learned_f64", (2, 6, 4), 10, 2, i32(2), dtype=F64)


# ===========================================================================
# A3. pe.rope with inv_freq (rope.mlir) and with cos/sin caches (rope_cache.mlir)
# ===========================================================================


def _rope(d, name, shape, layout, positions, pos_arg=None, R=None, freq_dtype=F32,
          dtype=F32, inv_freq=None, scaling=None):
    """x of `shape` (random in [-1, 1)), frequencies `inv_freq` (default
    10000^(-2i/R)) saved as f.npy in `freq_dtype`, optional attention scaling
    saved as m.npy."""
    rng = rng_for(name)
    D = shape[-1]
    R = D if R is None else R
    x = uniform(rng, shape)
    if dtype == "bf16":
        x = to_bf16(x)
    else:
        x = x.astype(dtype)
    if inv_freq is None:
        inv_freq, _ = ref.default_freqs(10000.0, R)
    f = np.asarray(inv_freq).astype(freq_dtype)
    save(d, x=x, f=f)
    if pos_arg is not None:
        save(d, p=pos_arg)
    af = 1.0
    if scaling is not None:
        save(d, m=scalar_f32(scaling))
        af = float(F32(scaling))
    save(d, expected=ref.rope_inv_freq(x, f, positions, layout, R, af))


@case
def rope_interleaved_offset(d):
    _rope(d, "rope_interleaved_offset", (2, 4, 9, 16), "interleaved", 21, index(21))


@case
def rope_half_offset(d):
    _rope(d, "rope_half_offset", (2, 4, 9, 16), "half", 21, index(21))


@case
def rope_half_huge_offset(d):
    # Positions 2^60 + 3 + t: the angle p * f needs the kernels' second
    # argument reduction (the first quadrant estimate is off by dozens).
    _rope(d, "rope_half_huge_offset", (1, 2, 9, 32), "half", 2**60 + 3, index(2**60 + 3),
          freq_dtype=F64)


@case
def rope_half_partial(d):
    _rope(d, "rope_half_partial", (1, 2, 8, 16), "half", 3, index(3), R=8)


@case
def rope_interleaved_partial(d):
    _rope(d, "rope_interleaved_partial", (3, 8, 12), "interleaved", 40, i32(40), R=4,
          freq_dtype=F64)


# Standalone pe.rope with head and rotary dimensions that are not whole
# vectors (masked tails in the generated kernel).


@case
def rope_tail_half_d10(d):
    # Half layout, 5 pairs, D = 10 (partial for every target).
    _rope(d, "rope_tail_half_d10", (2, 3, 9, 10), "half", 7, index(7))


@case
def rope_tail_interleaved_d72(d):
    # Interleaved layout, D = 72 (36 pairs), 70 tokens (two token blocks).
    _rope(d, "rope_tail_interleaved_d72", (1, 2, 70, 72), "interleaved", 4, index(4))


@case
def rope_tail_half_partial_odd(d):
    # Half layout, partial rotary R = 10 (an odd pair count, 5) of D = 80:
    # pairs (x[i], x[i+5]), channels 10..79 pass through.
    _rope(d, "rope_tail_half_partial_odd", (2, 4, 6, 80), "half", 3, index(3), R=10)


@case
def rope_tail_interleaved_partial_odd(d):
    # Interleaved layout, partial rotary R = 18 (9 pairs) of D = 96.
    _rope(d, "rope_tail_interleaved_partial_odd", (3, 5, 96), "interleaved", 11, index(11),
          R=18, freq_dtype=F64)


@case
def rope_half_static_offset(d):
    _rope(d, "rope_half_static_offset", (4, 6, 32), "half", 9, freq_dtype=F64)


@case
def rope_half_positions(d):
    pos = rng_for("rope_half_positions/p").integers(0, 5000, 6).astype(np.int32)
    _rope(d, "rope_half_positions", (2, 6, 16), "half", pos, pos, freq_dtype=F64)


@case
def rope_interleaved_batch_positions(d):
    pos = rng_for("rope_interleaved_batch_positions/p").integers(0, 100, (2, 5))
    _rope(d, "rope_interleaved_batch_positions", (2, 3, 5, 16), "interleaved", pos, pos)


@case
def rope_half_head_groups(d):
    # 17 token blocks (the last one of 6 tokens): one task per block takes
    # all 11 heads, rotated in groups of 8 and 3 per token.
    _rope(d, "rope_half_head_groups", (1, 11, 1030, 32), "half", 5, index(5))


@case
def rope_interleaved_head_groups(d):
    # 18 token blocks, 2 x 5 leading rows in groups of 8 and 2; channels
    # [16, 32) pass through.
    _rope(d, "rope_interleaved_head_groups", (2, 5, 1100, 32), "interleaved", 0, R=16,
          freq_dtype=F64)


@case
def rope_half_streaming(d):
    # A 36 MiB result (at least 32 MiB: non-temporal stores); 9 heads in
    # groups of 8 and 1.
    _rope(d, "rope_half_streaming", (1, 9, 8192, 128), "half", 0)


@case
def rope_half_streaming_bf16(d):
    # A 32 MiB bf16 result (non-temporal stores of chunk pairs), partial
    # rotary R = 96 of D = 128: pairs of a low and a high channel chunk and
    # of the pass-through channels.
    _rope(d, "rope_half_streaming_bf16", (1, 16, 8192, 128), "half", 0, R=96,
          dtype="bf16")


@case
def rope_scaling_partial(d):
    # attention_scaling multiplies cos and sin; the pass-through channels
    # [R, D) keep their values.
    _rope(d, "rope_scaling_partial", (2, 5, 12), "half", 7, np.array(7, np.int64), R=8,
          scaling=1.2345)


@case
def rope_interleaved_scaling(d):
    _rope(d, "rope_interleaved_scaling", (3, 4, 8), "interleaved", 0, index(0), scaling=0.75)


@case
def rope_arbitrary_freq(d):
    # Frequencies that are not a geometric series, some of them > 1.
    inv = np.array([3.1, 1.7, 0.9, 0.5, 0.125, 0.03, 1e-3, 2.5e-5], dtype=F64)
    _rope(d, "rope_arbitrary_freq", (2, 10, 16), "interleaved", 11, index(11),
          freq_dtype=F64, inv_freq=inv)


@case
def rope_f64(d):
    _rope(d, "rope_f64", (2, 8, 16), "half", 1000, index(1000), freq_dtype=F64, dtype=F64)


@case
def rope_f16(d):
    _rope(d, "rope_f16", (2, 8, 16), "half", 5, index(5), dtype=F16)


@case
def bf16_rounding(d):
    """f32 -> bf16 on bit patterns where the rounding can go wrong: exact
    ties (low half 0x8000) to even and odd, one ulp either side of them,
    the largest finite values (to infinity), infinities, quiet and
    signalling NaNs, zeros, subnormals; then random bits (no NaNs)."""
    edges = np.array([
        0x3F808000, 0x3F818000, 0x3F808001, 0x3F807FFF, 0xBF808000,
        0x7F7FFFFF, 0xFF7FFFFF, 0x7F7F8000, 0x7F7F7FFF, 0x7F800000,
        0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC12345, 0x7FBFFFFF,
        0x00000000, 0x80000000, 0x00008000, 0x00018000, 0x00007FFF,
        0x807FFFFF, 0x00800000, 0x0000FFFF, 0x00010000,
    ], dtype=np.uint32)
    rng = rng_for("bf16_rounding")
    ties = (rng.integers(0, 0xFF00, 1000, dtype=np.uint32) << 16) | 0x8000
    rand = rng.integers(0, 2**32, 3072, dtype=np.uint64).astype(np.uint32)
    bits = np.concatenate([edges, ties, rand])
    x = bits.view(F32)
    nan = np.isnan(x)
    x_num = np.where(nan, F32(0), x)
    expected = np.where(nan, np.float32(np.nan), to_bf16(x_num))
    save(d, x=x, expected=expected.astype(F32))


@case
def rope_bf16(d):
    pos = np.array([0, 3, 9, 100, 4096, 7, 8, 1], dtype=np.int32)
    _rope(d, "rope_bf16", (8, 16), "interleaved", pos, pos, R=12, dtype="bf16")


def _rope_cache(d, name, shape, layout, P, positions, pos_arg=None, R=None, table_dtype=F32,
                dtype=F32, scaling=None):
    """Random cos/sin tables [P, R/2] with values in [-1.5, 1.5) (they need not
    be cosines and sines); positions outside [0, P) are clamped (PEOps.td)."""
    rng = rng_for(name)
    D = shape[-1]
    R = D if R is None else R
    x = uniform(rng, shape).astype(dtype)
    cos = uniform(rng, (P, R // 2), lo=-1.5, hi=1.5).astype(table_dtype)
    sin = uniform(rng, (P, R // 2), lo=-1.5, hi=1.5).astype(table_dtype)
    save(d, x=x, cos=cos, sin=sin)
    if pos_arg is not None:
        save(d, p=pos_arg)
    af = 1.0
    if scaling is not None:
        save(d, m=scalar_f32(scaling))
        af = float(F32(scaling))
    pos = np.asarray(positions)
    if pos.ndim == 0:
        pos = ref.positions_from_offset(pos, shape[-2])
    save(d, expected=ref.rope_cache(x, cos, sin, np.clip(pos, 0, P - 1), layout, R, af))


@case
def rope_cache_offset(d):
    _rope_cache(d, "rope_cache_offset", (2, 9, 16), "interleaved", 32, 4, index(4))


@case
def rope_cache_offset_clamp(d):
    # Positions 28..36 with P = 32: tokens 4..8 read row 31.
    _rope_cache(d, "rope_cache_offset_clamp", (2, 9, 16), "interleaved", 32, 28, index(28))


@case
def rope_cache_positions_clamp(d):
    pos = np.array([5, -1, 19, 25, 0, 7], dtype=np.int32)
    _rope_cache(d, "rope_cache_positions_clamp", (1, 2, 6, 16), "half", 20, pos, pos, R=8,
                table_dtype=F64)


@case
def rope_cache_batch_scaling(d):
    pos = rng_for("rope_cache_batch_scaling/p").integers(0, 16, (2, 4))
    _rope_cache(d, "rope_cache_batch_scaling", (2, 4, 16), "half", 16, pos, pos, scaling=0.6)


@case
def rope_cache_static_offset(d):
    _rope_cache(d, "rope_cache_static_offset", (3, 5, 10), "interleaved", 12, 6, R=6,
                table_dtype=F64)


@case
def rope_cache_f16(d):
    _rope_cache(d, "rope_cache_f16", (4, 16), "half", 8, 2, index(2), table_dtype=F16, dtype=F16)


# ===========================================================================
# A3/A4. Frequency ops returned directly (frequencies.mlir)
# ===========================================================================
# expected_f.npy: inv_freq in float64; expected_m.npy: [attention_scaling].


def _freq(d, inv_freq_and_factor):
    inv, af = inv_freq_and_factor
    save(d, expected_f=np.asarray(inv, dtype=F64), expected_m=np.array([af], dtype=F64))


def _seq(d, n, dtype=np.int64):
    save(d, n=np.array(n, dtype=dtype))


@case
def freq_default_f32(d):
    _freq(d, ref.default_freqs(10000.0, 32))


@case
def freq_default_f64(d):
    _freq(d, ref.default_freqs(500000.0, 16))


@case
def freq_linear_f32(d):
    _freq(d, ref.linear(10000.0, 32, 4.0))


@case
def freq_linear_f64(d):
    _freq(d, ref.linear(1000000.0, 64, 2.5))


@case
def freq_ntk_f32(d):
    _freq(d, ref.ntk(10000.0, 32, 2.0))


@case
def freq_ntk_f64(d):
    _freq(d, ref.ntk(10000.0, 8, 8.0))


# Dynamic NTK, R = 16, L = 32, factor 2, seq_len a run-time index.
for _n, _tag in ((10, "below"), (32, "at"), (33, "above"), (50, "above50"), (1000, "far")):
    def _dyn(d, n=_n):
        _seq(d, n)
        _freq(d, ref.dynamic_ntk(10000.0, 16, 2.0, 32, n))
    _dyn.__name__ = f"freq_dynntk_{_tag}"
    case(_dyn)


@case
def freq_dynntk_i64_f64(d):
    # R = 8, L = 64, factor 4, seq_len 77 as i64, f64 result.
    _seq(d, 77)
    _freq(d, ref.dynamic_ntk(20000.0, 8, 4.0, 64, 77))


@case
def freq_dynntk_i32(d):
    _seq(d, 200, np.int32)
    _freq(d, ref.dynamic_ntk(10000.0, 16, 2.0, 32, 200))


# YaRN, R = 32, L = 2048: correction range [4, 11] (truncated).
@case
def freq_yarn_default(d):
    _freq(d, ref.yarn(10000.0, 32, 4.0, 2048))


@case
def freq_yarn_f64(d):
    _freq(d, ref.yarn(10000.0, 32, 4.0, 2048))


@case
def freq_yarn_mscale(d):
    _freq(d, ref.yarn(10000.0, 32, 8.0, 2048, mscale=1.0, mscale_all_dim=0.5))


@case
def freq_yarn_mscale_zero(d):
    # mscale = 0 is "absent" (Python truthiness): get_mscale(factor).
    _freq(d, ref.yarn(10000.0, 32, 8.0, 2048, mscale=0.0, mscale_all_dim=1.0))


@case
def freq_yarn_mscale_only(d):
    # mscale without mscale_all_dim: get_mscale(factor).
    _freq(d, ref.yarn(10000.0, 32, 8.0, 2048, mscale=0.707))


@case
def freq_yarn_no_truncate(d):
    _freq(d, ref.yarn(10000.0, 32, 4.0, 2048, truncate=False))


@case
def freq_yarn_attention_factor(d):
    _freq(d, ref.yarn(500000.0, 64, 16.0, 4096, beta_fast=16.0, beta_slow=2.0,
                      attention_factor=0.8, mscale=1.0, mscale_all_dim=0.5))


@case
def freq_yarn_equal_betas(d):
    # No truncation and beta_fast == beta_slow: low == high, high += 0.001.
    _freq(d, ref.yarn(10000.0, 32, 4.0, 2048, beta_fast=4.0, beta_slow=4.0, truncate=False))


@case
def freq_yarn_factor1(d):
    _freq(d, ref.yarn(10000.0, 16, 1.0, 256))


# llama3: R = 32, base 10000, L = 256, low 1, high 4 puts pairs 0-4 in the
# high band, 5-6 in the medium band and 7-15 in the low band.
@case
def freq_llama3_f32(d):
    _freq(d, ref.llama3(10000.0, 32, 8.0, 1.0, 4.0, 256))


@case
def freq_llama3_f64(d):
    # Llama 3.1 parameters, R = 64.
    _freq(d, ref.llama3(500000.0, 64, 8.0, 1.0, 4.0, 8192))


@case
def freq_llama3_equal(d):
    # low_freq_factor == high_freq_factor: no medium band.
    _freq(d, ref.llama3(10000.0, 32, 4.0, 2.0, 2.0, 256))


# LongRoPE: R = 8, L = 16, max_position_embeddings 64, seq_len at run time.
LONGROPE_SHORT = [1.0, 1.25, 1.5, 2.0]
LONGROPE_LONG = [1.5, 3.0, 6.0, 12.0]

for _n, _tag in ((8, "short"), (16, "at"), (17, "long"), (64, "long64")):
    def _lr(d, n=_n):
        _seq(d, n)
        _freq(d, ref.longrope(10000.0, 8, LONGROPE_SHORT, LONGROPE_LONG, 16, 64, seq_len=n))
    _lr.__name__ = f"freq_longrope_{_tag}"
    case(_lr)


@case
def freq_longrope_noseq(d):
    _freq(d, ref.longrope(10000.0, 8, LONGROPE_SHORT, LONGROPE_LONG, 16, 64))


@case
def freq_longrope_attrs(d):
    # Explicit factor and attention_factor, seq_len i32 above L.
    _seq(d, 100, np.int32)
    _freq(d, ref.longrope(10000.0, 8, LONGROPE_SHORT, LONGROPE_LONG, 16, 64, seq_len=100,
                          factor=2.0, attention_factor=1.1))


@case
def freq_longrope_factor_only(d):
    # Explicit factor 8 (not 64 / 16 = 4): sqrt(1 + ln 8 / ln 16).
    _seq(d, 3, np.int32)
    _freq(d, ref.longrope(10000.0, 8, LONGROPE_SHORT, LONGROPE_LONG, 16, 64, seq_len=3,
                          factor=8.0))


# ===========================================================================
# A4 -> A3. Frequency ops feeding pe.rope (scaling_rope.mlir)
# ===========================================================================
# The frequency op rounds inv_freq once to its result type and the scaling to
# f32 (PEOps.td); the reference rotates with exactly those rounded values.


def _chain(d, name, shape, layout, freqs, positions, pos_arg=None, R=None, freq_dtype=F32,
           seq_len=None):
    rng = rng_for(name)
    x = uniform(rng, shape)
    save(d, x=x)
    if pos_arg is not None:
        save(d, p=pos_arg)
    if seq_len is not None:
        save(d, n=index(seq_len))
    inv, af = freqs
    inv = np.asarray(inv, dtype=F64).astype(freq_dtype).astype(F64)
    save(d, expected=ref.rope_inv_freq(x, inv, positions, layout, R, float(F32(af))))


@case
def chain_default(d):
    _chain(d, "chain_default", (2, 8, 16), "interleaved", ref.default_freqs(10000.0, 16), 12,
           index(12), freq_dtype=F64)


@case
def chain_linear(d):
    pos = np.array([0, 4, 9, 63, 64, 200], dtype=np.int32)
    _chain(d, "chain_linear", (2, 6, 16), "half", ref.linear(10000.0, 16, 4.0), pos, pos)


@case
def chain_ntk(d):
    _chain(d, "chain_ntk", (1, 2, 8, 32), "half", ref.ntk(10000.0, 16, 2.0), 5, index(5), R=16,
           freq_dtype=F64)


for _n, _tag in ((16, "below"), (32, "at"), (48, "above")):
    def _cd(d, n=_n, tag=_tag):
        # seq_len n with the tokens at positions n - 8 .. n - 1.
        _chain(d, f"chain_dynntk_{tag}", (2, 8, 16), "half",
               ref.dynamic_ntk(10000.0, 16, 2.0, 32, n), n - 8, index(n - 8), seq_len=n)
    _cd.__name__ = f"chain_dynntk_{_tag}"
    case(_cd)


@case
def chain_yarn(d):
    _chain(d, "chain_yarn", (2, 8, 32), "half", ref.yarn(10000.0, 32, 4.0, 2048), 30, index(30))


@case
def chain_yarn_mscale(d):
    _chain(d, "chain_yarn_mscale", (2, 8, 32), "interleaved",
           ref.yarn(10000.0, 32, 8.0, 2048, mscale=1.0, mscale_all_dim=0.5, truncate=False), 30,
           index(30), freq_dtype=F64)


@case
def chain_llama3(d):
    _chain(d, "chain_llama3", (1, 4, 8, 32), "half", ref.llama3(10000.0, 32, 8.0, 1.0, 4.0, 256),
           1000, index(1000), freq_dtype=F64)


for _n, _tag in ((12, "short"), (40, "long")):
    def _cl(d, n=_n, tag=_tag):
        _chain(d, f"chain_longrope_{tag}", (2, 4, 8, 16), "half",
               ref.longrope(10000.0, 8, LONGROPE_SHORT, LONGROPE_LONG, 16, 64, seq_len=n),
               n - 8, index(n - 8), R=8, seq_len=n)
    _cl.__name__ = f"chain_longrope_{_tag}"
    case(_cl)


# ===========================================================================
# A5. pe.alibi_bias (alibi.mlir)
# ===========================================================================


def _alibi(d, H, Tq, Tk, distance, q_offset, off_arg=None, slopes=None, save_slopes=None,
           sizes=False):
    if off_arg is not None:
        save(d, o=off_arg)
    if save_slopes is not None:
        save(d, s=save_slopes)
    if sizes:
        save(d, tq=index(Tq), tk=index(Tk))
    save(d, expected=ref.alibi_bias(H, Tq, Tk, distance, q_offset, slopes))


# Head counts 8, 6, 12, 40 x distances; Tq = 5 queries at positions 4..8 (a
# query offset), Tk = 9 keys, so the three distances disagree.
for _H in (8, 6, 12, 40):
    for _dist in ref.ALIBI_DISTANCES:
        def _al(d, H=_H, dist=_dist):
            _alibi(d, H, 5, 9, dist, 4, index(4))
        _al.__name__ = f"alibi_h{_H}_{_dist}"
        case(_al)


@case
def alibi_static_offset(d):
    # H = 12, static_offset 3 plus offset operand 2 (i32): positions 5 + i.
    _alibi(d, 12, 4, 10, "symmetric", 5, i32(2))


@case
def alibi_dynamic(d):
    # tensor<6x?x?xf32> with [Tq, Tk] = [3, 7], offset 4 (queries are the last 3).
    _alibi(d, 6, 3, 7, "signed", 4, np.array(4, np.int64), sizes=True)


@case
def alibi_slopes_f32(d):
    s = np.array([0.9, -0.5, 0.3, 2.0, 1e-3], dtype=F32)
    _alibi(d, 5, 4, 6, "symmetric", 2, index(2), slopes=s, save_slopes=s)


@case
def alibi_slopes_f64(d):
    s = np.array([1.0 / 3.0, 0.1, 7.0], dtype=F64)
    _alibi(d, 3, 6, 6, "signed", 0, slopes=s, save_slopes=s)


@case
def alibi_max_bias(d):
    # max_bias = 4 (ggml's generalisation; 8 is the paper), H = 12.
    _alibi(d, 12, 4, 8, "key", 0, slopes=ref.alibi_slopes_ggml(12, 4.0))


@case
def alibi_f64(d):
    _alibi(d, 40, 3, 5, "symmetric", 7, index(7))


@case
def alibi_f16(d):
    _alibi(d, 12, 4, 6, "signed", 2)


# ===========================================================================
# A6. pe.attention (attention.mlir)
# ===========================================================================


def _attn(d, name, B, H, Hkv, Tq, Tk, D, Dv=None, dtype=F32, bias_shape=None, mask_shape=None,
          bias_dtype=F32, causal=False, softcap=None, softcap_order="before_bias", scale=None,
          mask_fn=None, bias_scale=1.0, kv_lengths=None, causal_offset=None, poison=(),
          kv_dtype=None, bias_fn=None, lengths_dtype=np.int32, **masking):
    """``poison``: (tensor name 'q'|'k'|'v'|'bias', index, value) entries
    written after the inputs are drawn (NaN and infinities)."""
    rng = rng_for(name)
    Dv = D if Dv is None else Dv
    q = rng.standard_normal((B, H, Tq, D))
    k = rng.standard_normal((B, Hkv, Tk, D))
    v = uniform(rng, (B, Hkv, Tk, Dv), F64)

    def cast(a, t=dtype):
        a = a.astype(F32)
        return to_bf16(a) if t == "bf16" else a.astype(t)

    kv_dtype = dtype if kv_dtype is None else kv_dtype
    q, k, v = cast(q), cast(k, kv_dtype), cast(v, kv_dtype)
    bias = mask = None
    if bias_shape is not None:
        bias = (rng.standard_normal(bias_shape) * bias_scale).astype(bias_dtype)
        if bias_fn is not None:
            bias = bias_fn(bias)
    tensors = {"q": q, "k": k, "v": v, "bias": bias}
    for which, where, value in poison:
        tensors[which][where] = value
    save(d, q=q, k=k, v=v)
    if bias is not None:
        save(d, bias=bias)
    if mask_shape is not None:
        mask = rng.random(mask_shape) < 0.7
        if mask_fn is not None:
            mask = mask_fn(mask)
        save(d, mask=mask)
    if kv_lengths is not None:
        save(d, lengths=np.asarray(kv_lengths, dtype=lengths_dtype))
    if causal_offset is not None:
        save(d, offset=index(causal_offset))
    save(d, expected=ref.attention(q, k, v, scale, causal, bias, mask, softcap, softcap_order,
                                   kv_lengths=kv_lengths, causal_offset=causal_offset, **masking))


@case
def attn_mha(d):
    _attn(d, "attn_mha", 2, 4, 4, 8, 8, 16)


@case
def attn_mha_scale(d):
    _attn(d, "attn_mha_scale", 1, 2, 2, 6, 10, 8, scale=0.5)


@case
def attn_gqa_causal(d):
    _attn(d, "attn_gqa_causal", 1, 8, 2, 12, 12, 16, causal=True)


@case
def attn_mqa(d):
    _attn(d, "attn_mqa", 2, 4, 1, 5, 9, 16)


@case
def attn_causal_kv_offset(d):
    # Tq = 3 < Tk = 10: query i sees keys j <= i + 7 (bottom-right).
    _attn(d, "attn_causal_kv_offset", 1, 4, 2, 3, 10, 16, causal=True)


@case
def attn_causal_top_left(d):
    # Top-left causal (PyTorch is_causal) with Tq = 5 < Tk = 9: query i sees
    # keys j <= i, whatever Tk is.
    _attn(d, "attn_causal_top_left", 1, 4, 2, 5, 9, 16, causal=True,
          causal_alignment="top_left")


@case
def attn_causal_offset(d):
    # Top-left with a causal offset 3 (past length) and Tk = 12 (padded
    # cache): query i sees keys j <= i + 3; keys 7..11 are never seen.
    _attn(d, "attn_causal_offset", 1, 2, 2, 4, 12, 16, causal=True, causal_offset=3,
          causal_alignment="top_left")


@case
def attn_causal_offset_bottom_right(d):
    # Bottom-right plus a negative causal offset -2 (a tile of query rows
    # that ends two rows before the last) with valid lengths 9 and 12.
    _attn(d, "attn_causal_offset_bottom_right", 2, 2, 1, 4, 12, 16, causal=True,
          causal_offset=-2, kv_lengths=[9, 12])


@case
def attn_kv_lengths(d):
    # Per-batch valid KV lengths 5, 0 and 13 (> Tk, clamped to 9), not causal:
    # batch 1 has no valid key and gives 0.
    _attn(d, "attn_kv_lengths", 3, 2, 1, 4, 9, 16, kv_lengths=[5, 0, 13])


@case
def attn_kv_lengths_i64_extremes(d):
    # i64 valid lengths that do not fit 32 bits or are negative, clamped to
    # [0, Tk = 9] in 64 bits: 2^63 - 1 (all 9 keys; its low 32 bits read as
    # -1), 2^32 + 3 (all 9 keys; its low 32 bits read as 3), -5 (no key, the
    # batch gives 0) and -(2^32) + 4 (no key; its low 32 bits read as 4).
    _attn(d, "attn_kv_lengths_i64_extremes", 4, 2, 1, 4, 9, 16, causal=True,
          kv_lengths=[2**63 - 1, 2**32 + 3, -5, -(2**32) + 4],
          lengths_dtype=np.int64)


@case
def attn_empty_query(d):
    # A statically empty query (Tq = 0): the result is empty.
    _attn(d, "attn_empty_query", 1, 2, 2, 0, 8, 16)


@case
def attn_kv_lengths_causal(d):
    # Valid lengths with bottom-right causal: o[b] = L[b] - Tq per batch.
    _attn(d, "attn_kv_lengths_causal", 2, 4, 2, 3, 10, 16, causal=True,
          kv_lengths=[6, 10])


@case
def attn_window(d):
    # Sliding window W = 3 with bottom-right causal, Tq = Tk = 10: query i
    # sees keys i-2..i (Mistral).
    _attn(d, "attn_window", 1, 2, 2, 10, 10, 16, causal=True, window=3)


@case
def attn_window_long(d):
    # Window W = 70 over 200 queries and keys: key blocks of 64 are skipped
    # below the window, and the window boundary crosses blocks; with GQA and
    # a top-left causal mask plus valid lengths 200 and 150.
    _attn(d, "attn_window_long", 2, 4, 2, 200, 200, 32, causal=True, window=70,
          causal_alignment="top_left", kv_lengths=[200, 150])


@case
def attn_decode_masks(d):
    # One query per head (the decode kernel) with a padded cache: valid
    # lengths 7 and 16 of Tk = 16, bottom-right (the query sits at L[b] - 1)
    # and a window of 4 keys.
    _attn(d, "attn_decode_masks", 2, 4, 2, 1, 16, 16, causal=True, window=4,
          kv_lengths=[7, 16])


@case
def attn_decode_offset(d):
    # Decode with a top-left causal offset 9 into a cache of 16 entries.
    _attn(d, "attn_decode_offset", 1, 4, 1, 1, 16, 16, causal=True, causal_offset=9,
          causal_alignment="top_left")


@case
def attn_causal_dynamic(d):
    # The same through dynamic Tq/Tk dimensions.
    _attn(d, "attn_causal_dynamic", 1, 4, 2, 4, 11, 16, causal=True)


# NaN and infinities (issue: one NaN semantics for every pipeline). Tq = Tk =
# 80 spans an interior key block and a diagonal (masked) block of the
# generated kernel (64 keys per block); D = 16 so that the kernel applies.
@case
def attn_nan_q(d):
    # Row 70 of head 1 and row 10 of head 3 (an infinity: inf - inf = NaN in
    # the softmax) become NaN; no other row or head changes.
    _attn(d, "attn_nan_q", 1, 4, 2, 80, 80, 16, causal=True,
          poison=[("q", (0, 1, 70, 3), np.nan), ("q", (0, 3, 10, 0), np.inf)])


@case
def attn_nan_k(d):
    # Key 20 of KV head 0 is NaN: rows 20.. of heads 0 and 1 (which see it)
    # become NaN, rows 0..19 and heads 2, 3 do not. Key 70 of KV head 1 is
    # +inf in one channel: rows of heads 2, 3 whose logit is +inf become NaN,
    # those whose logit is -inf ignore the key.
    _attn(d, "attn_nan_k", 1, 4, 2, 80, 80, 16, causal=True,
          poison=[("k", (0, 0, 20, 2), np.nan), ("k", (0, 1, 70, 5), np.inf)])


@case
def attn_nan_v(d):
    # Value row 75 of KV head 0 is NaN: only rows 75.. of heads 0, 1 see it
    # (rows 64..74 share its diagonal key block and must stay finite); value
    # row 5 of KV head 1 is +inf in one channel: that channel is +inf in
    # rows 5.. of heads 2, 3.
    _attn(d, "attn_nan_v", 1, 4, 2, 80, 80, 16, causal=True,
          poison=[("v", (0, 0, 75, 1), np.nan), ("v", (0, 1, 5, 0), np.inf)])


@case
def attn_nan_bias(d):
    # A NaN and a +inf bias entry make their rows NaN; -inf entries mask keys
    # (row 2 is fully masked by them and gives 0).
    def poison():
        out = [("bias", (0, 3, 7), np.nan), ("bias", (0, 5, 1), np.inf)]
        out += [("bias", (0, 2, j), -np.inf) for j in range(10)]
        return out
    _attn(d, "attn_nan_bias", 1, 2, 2, 8, 10, 16, bias_shape=(1, 8, 10), poison=poison())


@case
def attn_nan_decode_padding(d):
    # Decode with per-batch lengths [60, 100]: batch 0's value rows past 60
    # are NaN padding and must not reach it; key 30 of batch 1, KV head 0 is
    # NaN, which makes batch 1's heads 0 and 1 NaN and nothing else.
    _attn(d, "attn_nan_decode_padding", 2, 4, 2, 1, 100, 16, kv_lengths=[60, 100],
          poison=[("v", (0, 0, slice(60, 100), slice(None)), np.nan),
                  ("k", (1, 0, 30, 4), np.nan)])


@case
def attn_causal_diagonal_skip(d):
    # Bottom-right causal with Tq = 70 < Tk = 150 and valid lengths 150 and
    # 121: the diagonal crosses the 64-key blocks at offsets 80 and 51, so in
    # a query block's last key blocks the first groups of 4 rows need only
    # some of the 16-key score vectors, or none (the kernel computes only
    # those). Key 130 of KV head 0 in batch 0 is NaN: rows 50.. of heads 0
    # and 1 see it and become NaN; rows 48 and 49, in the group of rows 50
    # and 51 and in the same score vector, and rows below must not.
    _attn(d, "attn_causal_diagonal_skip", 2, 4, 2, 70, 150, 32, causal=True,
          kv_lengths=[150, 121], poison=[("k", (0, 0, 130, 3), np.nan)])


@case
def attn_causal_tq_gt_tk(d):
    # Tq = 6 > Tk = 4: queries 0 and 1 see no key (j <= i - 2) and give 0.
    _attn(d, "attn_causal_tq_gt_tk", 1, 2, 2, 6, 4, 8, causal=True)


@case
def attn_bias_rank2(d):
    _attn(d, "attn_bias_rank2", 2, 4, 2, 6, 8, 16, bias_shape=(6, 8), bias_scale=2.0)


@case
def attn_bias_rank3(d):
    # [H, 1, Tk]: broadcast over batch (missing) and queries (1).
    _attn(d, "attn_bias_rank3", 2, 4, 2, 6, 8, 16, bias_shape=(4, 1, 8), bias_scale=2.0)


@case
def attn_bias_rank4(d):
    # [B, 1, Tq, Tk] in f16 (the bias may have any float type).
    _attn(d, "attn_bias_rank4", 2, 4, 4, 5, 7, 16, bias_shape=(2, 1, 5, 7), bias_dtype=F16,
          bias_scale=2.0)


@case
def attn_bias_rank4_full(d):
    _attn(d, "attn_bias_rank4_full", 1, 4, 2, 5, 7, 8, bias_shape=(1, 4, 5, 7), causal=True,
          bias_scale=3.0)


def _hf_additive_mask(bias):
    """[B, 1, Tq, Tk] in the form Hugging Face passes: a random bias plus
    -inf for the causal future (bottom-right), for padding keys of batch 1
    (keys >= Tk - 30) and for every key of row 3 of batch 0 (a fully masked
    row: output 0)."""
    B, _, Tq, Tk = bias.shape
    i = np.arange(Tq)[:, None]
    j = np.arange(Tk)[None, :]
    bias[:, :, (j > i + Tk - Tq)] = -np.inf
    bias[1, :, :, Tk - 30:] = -np.inf
    bias[0, :, 3, :] = -np.inf
    return bias


@case
def attn_bias_hf_mask(d):
    # Generated-kernel sizes: 70 query rows (two row blocks), 150 keys (three
    # key blocks, the last partial), GQA 4/2, D 32; a NaN in the value row of
    # a padding key of batch 1, which no row sees.
    _attn(d, "attn_bias_hf_mask", 2, 4, 2, 70, 150, 32, bias_shape=(2, 1, 70, 150),
          bias_fn=_hf_additive_mask, poison=(("v", (1, 1, 140, 5), np.nan),))


@case
def attn_bias_key_broadcast(d):
    # [1, H, Tq, 1]: one bias per query row and head (a splat over the keys),
    # softcap after the bias, 40 keys (a partial block).
    _attn(d, "attn_bias_key_broadcast", 1, 4, 4, 20, 40, 16, bias_shape=(1, 4, 20, 1),
          softcap=4.0, softcap_order="after_bias", bias_scale=2.0)


@case
def attn_bias_decode(d):
    # One query per head over 200 keys with a [B, 1, 1, Tk] padding mask in
    # bf16 (keys >= 170 of batch 0 and >= 190 of batch 1 masked).
    def pad(bias):
        bias[0, ..., 170:] = -np.inf
        bias[1, ..., 190:] = -np.inf
        return bias
    _attn(d, "attn_bias_decode", 2, 8, 2, 1, 200, 64, bias_shape=(2, 1, 1, 200),
          bias_dtype=F32, bias_fn=lambda b: pad(to_bf16(b.astype(F32))))


@case
def attn_bf16_bias(d):
    # bf16 attention (bf16 dot products where the target has them) with a
    # rank-2 f32 bias, 80 x 80, causal, D 64.
    _attn(d, "attn_bf16_bias", 1, 2, 2, 80, 80, 64, dtype="bf16", bias_shape=(80, 80),
          causal=True)


@case
def attn_mask_blocks(d):
    # Generated-kernel sizes (70 x 150, GQA 4/2, D 32) with a random
    # [B, 1, Tq, Tk] mask and a bias under a softcap applied after it: the
    # mask disallows keys whatever the capped score is. Row 5 of batch 1 has
    # no allowed key (output 0); key 100 of batch 0 is masked for every row
    # and its value row holds a NaN that must reach no row.
    def shape_mask(m):
        m[..., 0] = True
        m[1, :, 5, :] = False
        m[0, :, :, 100] = False
        return m
    _attn(d, "attn_mask_blocks", 2, 4, 2, 70, 150, 32, mask_shape=(2, 1, 70, 150),
          mask_fn=shape_mask, bias_shape=(70, 150), softcap=5.0, softcap_order="after_bias",
          poison=(("v", (0, 1, 100, 7), np.nan),))


@case
def attn_mask_row_broadcast(d):
    # [1, H, Tq, 1]: whole rows allowed or not (a splat over the keys); the
    # disallowed rows are 0. One query per head is the decode shape: the
    # prefill kernel runs it (a remark says so).
    def some_rows(m):
        m[0, 0, 0, 0] = False
        m[0, 1, 0, 0] = True
        return m
    _attn(d, "attn_mask_row_broadcast", 1, 4, 2, 1, 90, 16, mask_shape=(1, 4, 1, 1),
          mask_fn=some_rows)


@case
def attn_bias_mask_dynamic(d):
    # Dynamic Tq (20) and Tk (33): a [B, H, Tq, Tk] bias whose H, Tq and Tk
    # are dynamic and a [Tq, Tk] mask whose both dimensions are, causal.
    def keep0(m):
        m[..., 0] = True
        return m
    _attn(d, "attn_bias_mask_dynamic", 2, 4, 2, 20, 33, 16, bias_shape=(2, 4, 20, 33),
          mask_shape=(20, 33), mask_fn=keep0, causal=True)


@case
def attn_mask(d):
    # [B, 1, Tq, Tk] random mask, every row keeps key 0.
    def keep0(m):
        m[..., 0] = True
        return m
    _attn(d, "attn_mask", 2, 4, 2, 6, 8, 16, mask_shape=(2, 1, 6, 8), mask_fn=keep0)


@case
def attn_mask_rank2_causal(d):
    def keep_diag(m):
        for i in range(m.shape[0]):
            m[i, i + 2] = True
        return m
    _attn(d, "attn_mask_rank2_causal", 1, 4, 4, 6, 8, 16, mask_shape=(6, 8), causal=True,
          mask_fn=keep_diag)


@case
def attn_masked_row(d):
    # Row 2 of head 1 and all of query 4 are fully masked: output 0, not NaN.
    def blank(m):
        m[:] = True
        m[0, 1, 2, :] = False
        m[0, :, 4, :] = False
        return m
    _attn(d, "attn_masked_row", 1, 4, 2, 6, 8, 16, mask_shape=(1, 4, 6, 8), mask_fn=blank)


@case
def attn_softcap_before(d):
    # Logits of order 10 against a cap of 5 and a bias of order 4: the two
    # orders give clearly different results.
    _attn(d, "attn_softcap_before", 1, 4, 2, 6, 8, 16, bias_shape=(4, 6, 8), bias_scale=4.0,
          softcap=5.0, scale=1.5)


@case
def attn_softcap_after(d):
    _attn(d, "attn_softcap_after", 1, 4, 2, 6, 8, 16, bias_shape=(4, 6, 8), bias_scale=4.0,
          softcap=5.0, softcap_order="after_bias", scale=1.5)


@case
def attn_softcap_nobias(d):
    _attn(d, "attn_softcap_nobias", 1, 2, 2, 6, 8, 16, softcap=2.0, scale=1.0, causal=True)


@case
def attn_dv(d):
    # Dv = 8 != D = 16.
    _attn(d, "attn_dv", 2, 4, 2, 5, 9, 16, Dv=8, causal=True)


@case
def attn_f16(d):
    _attn(d, "attn_f16", 1, 8, 2, 8, 8, 16, dtype=F16, causal=True)


@case
def attn_bf16(d):
    _attn(d, "attn_bf16", 1, 4, 4, 6, 6, 16, dtype="bf16", bias_shape=(6, 6))


# Half-precision KV caches read by f32 attention: the reference sees the
# f16/bf16-rounded keys and values exactly (they are what the cache holds).
@case
def attn_f16_cache_decode(d):
    _attn(d, "attn_f16_cache_decode", 2, 8, 2, 1, 200, 64, kv_dtype=np.float16,
          causal=True, kv_lengths=[150, 200])


@case
def attn_bf16_cache_decode(d):
    _attn(d, "attn_bf16_cache_decode", 1, 8, 2, 1, 130, 64, kv_dtype="bf16", causal=True)


@case
def attn_bf16_cache_decode_d128(d):
    _attn(d, "attn_bf16_cache_decode_d128", 2, 8, 2, 1, 200, 128, kv_dtype="bf16",
          causal=True, kv_lengths=[150, 200])


@case
def attn_bf16_cache_decode_gqa8(d):
    # Groups of 8, D = 128: P V in two 64-column chunks over 64-key blocks,
    # the accumulators kept in a buffer between blocks; 150 keys (a last
    # block of 22).
    _attn(d, "attn_bf16_cache_decode_gqa8", 1, 16, 2, 1, 150, 128, kv_dtype="bf16",
          causal=True)


@case
def attn_bf16_cache_decode_dv(d):
    # D = 48 with Dv = 64 (value rows wider than key rows), MQA 4/1, 77 keys.
    _attn(d, "attn_bf16_cache_decode_dv", 1, 4, 1, 1, 77, 48, Dv=64, kv_dtype="bf16")


@case
def attn_bf16_cache_decode_mqa32(d):
    # 32 query heads on one KV head, D = 32: one P V accumulator per head;
    # 45 keys.
    _attn(d, "attn_bf16_cache_decode_mqa32", 1, 32, 1, 1, 45, 32, kv_dtype="bf16",
          causal=True)


@case
def attn_gqa_decode_d128(d):
    _attn(d, "attn_gqa_decode_d128", 2, 8, 2, 1, 200, 128, causal=True,
          kv_lengths=[150, 199])


@case
def attn_gqa8_decode_d128(d):
    _attn(d, "attn_gqa8_decode_d128", 2, 16, 2, 1, 200, 128, causal=True,
          kv_lengths=[150, 199])


# Decode with a sliding window over a longer cache: the visible keys
# [L - W, L) start off a multiple of 16, so the kernel's blocks of 16 keys
# (P taken in the P V loop) and of 64 keys (several value chunks) start at
# the window's first key and end in a partial block.
@case
def attn_decode_window_gqa4_d128(d):
    # Groups of 4, D = 128 (one chunk of 32 accumulators): lengths 237 and
    # 300, a window of 150: keys [87, 237) and [150, 300).
    _attn(d, "attn_decode_window_gqa4_d128", 2, 8, 2, 1, 300, 128, causal=True,
          window=150, kv_lengths=[237, 300])


@case
def attn_decode_window_gqa8_d128(d):
    # Groups of 8, D = 128 (two chunks over 64-key blocks), a window of 101
    # into lengths 291 and 77: keys [190, 291) and [0, 77).
    _attn(d, "attn_decode_window_gqa8_d128", 2, 16, 2, 1, 300, 128, causal=True,
          window=101, kv_lengths=[291, 77])


@case
def attn_f16_cache_prefill(d):
    _attn(d, "attn_f16_cache_prefill", 1, 4, 2, 80, 80, 32, kv_dtype=np.float16, causal=True)


# bf16 query, key and value with the bf16 dot-product kernel on targets with
# AVX512-BF16 (Q K^T and P V from bf16 pairs, f32 accumulation, P rounded to
# bf16): sizes that span several key blocks with a partial last one, odd
# key counts (a key pair with one padding key) and GQA.
@case
def attn_bf16_prefill_gqa(d):
    _attn(d, "attn_bf16_prefill_gqa", 1, 8, 2, 150, 150, 64, dtype="bf16", causal=True)


@case
def attn_bf16_prefill_lengths(d):
    # Not causal, MQA 4/1, Tq = 70, Tk = 133 (odd), valid lengths 133 and 77,
    # Dv = 48 != D = 32, bf16 result.
    _attn(d, "attn_bf16_prefill_lengths", 2, 4, 1, 70, 133, 32, Dv=48, dtype="bf16",
          kv_lengths=[133, 77])


@case
def attn_bf16_nan_v(d):
    # attn_nan_v in bf16: value row 75 of KV head 0 is NaN (seen by rows
    # 75.. of heads 0, 1 only; rows 64..74 share its key pair block and must
    # stay finite), value row 5 of KV head 1 is +inf in one channel.
    _attn(d, "attn_bf16_nan_v", 1, 4, 2, 80, 80, 16, dtype="bf16", causal=True,
          poison=[("v", (0, 0, 75, 1), np.nan), ("v", (0, 1, 5, 0), np.inf)])


@case
def attn_bf16_causal_diagonal_skip(d):
    # attn_causal_diagonal_skip in bf16 (the bf16 dot-product kernel, where
    # keys go in channel pairs and values in key pairs).
    _attn(d, "attn_bf16_causal_diagonal_skip", 2, 4, 2, 70, 150, 32, dtype="bf16",
          causal=True, kv_lengths=[150, 121], poison=[("k", (0, 0, 130, 3), np.nan)])


@case
def attn_bf16_rope(d):
    # pe.rope (half, f64 table, queries and keys at 3 + t) of bf16 q and k,
    # then causal GQA 4/2 attention, T = 100, D = 64: the rotated q and k are
    # bf16 (the rope's result type), which the reference rounds likewise.
    rng = rng_for("attn_bf16_rope")
    q = to_bf16(rng.standard_normal((1, 4, 100, 64)).astype(F32))
    k = to_bf16(rng.standard_normal((1, 2, 100, 64)).astype(F32))
    v = to_bf16(uniform(rng, (1, 2, 100, 64)))
    inv = 10000.0 ** (-np.arange(0, 64, 2, dtype=F64) / 64)
    save(d, q=q, k=k, v=v, f=inv)
    qr = to_bf16(ref.rope_inv_freq(q, inv, 3, "half").astype(F32))
    kr = to_bf16(ref.rope_inv_freq(k, inv, 3, "half").astype(F32))
    save(d, expected=ref.attention(qr, kr, v, causal=True))


@case
def attn_bf16_alibi(d):
    # An f32 pe.alibi_bias (symmetric, 4 heads) on bf16 causal attention,
    # T = 130, D = 32 (the fused pipeline moves the bias into the op).
    rng = rng_for("attn_bf16_alibi")
    q = to_bf16(rng.standard_normal((1, 4, 130, 32)).astype(F32))
    k = to_bf16(rng.standard_normal((1, 4, 130, 32)).astype(F32))
    v = to_bf16(uniform(rng, (1, 4, 130, 32)))
    save(d, q=q, k=k, v=v)
    bias = ref.alibi_bias(4, 130, 130, "symmetric", 0)
    save(d, expected=ref.attention(q, k, v, causal=True, bias=bias))


@case
def attn_f64(d):
    _attn(d, "attn_f64", 1, 4, 2, 6, 8, 16, dtype=F64, causal=True, bias_shape=(4, 6, 8),
          softcap=3.0, softcap_order="after_bias", mask_shape=(1, 1, 6, 8),
          mask_fn=lambda m: m | np.eye(6, 8, k=2, dtype=bool))


# ===========================================================================
# End to end (e2e.mlir)
# ===========================================================================


def _qkv(name, H, Hkv, Tq, Tk, D):
    rng = rng_for(name)
    q = rng.standard_normal((1, H, Tq, D)).astype(F32)
    k = rng.standard_normal((1, Hkv, Tk, D)).astype(F32)
    v = uniform(rng, (1, Hkv, Tk, D))
    return q, k, v


@case
def e2e_llama3_prefill(d):
    # Llama 3.1 rope (half layout, llama3 scaling of base 500000) on q and k
    # at positions 0..15, then GQA (H = 8, Hkv = 2) causal attention.
    q, k, v = _qkv("e2e_llama3_prefill", 8, 2, 16, 16, 32)
    save(d, q=q, k=k, v=v)
    inv, _ = ref.llama3(500000.0, 32, 8.0, 1.0, 4.0, 8192)
    inv = f32(inv)
    qr = ref.rope_inv_freq(q, inv, 0, "half")
    kr = ref.rope_inv_freq(k, inv, 0, "half")
    save(d, expected=ref.attention(qr, kr, v, causal=True))


@case
def tiled_rope_alibi_attention(d):
    # RoPE (half, an f64 table, queries at 5 + i, keys at 3 + j) and ALiBi
    # (symmetric, queries at 2 + i) inside one causal GQA attention (H = 8,
    # Hkv = 2, T = 48): the untiled reference for the tiling tests.
    q, k, v = _qkv("tiled_rope_alibi_attention", 8, 2, 48, 48, 16)
    inv = 10000.0 ** (-np.arange(0, 16, 2, dtype=F64) / 16)
    save(d, q=q, k=k, v=v, f=inv)
    qr = ref.rope_inv_freq(q, inv, 5, "half")
    kr = ref.rope_inv_freq(k, inv, 3, "half")
    bias = ref.alibi_bias(8, 48, 48, "symmetric", 2)
    save(d, expected=ref.attention(qr, kr, v, causal=True, bias=bias))


@case
def attn_bshd_rope_gqa(d):
    # [B, S, H, D] operands (layout = bshd): RoPE (half, f64 table, queries
    # at 7 + i, keys at 0 + j) on Q and K, causal bottom-right, GQA 8/2,
    # Tq = 40 < Tk = 72, two batches; the reference works in [B, H, S, D] and
    # the result is transposed back.
    rng = rng_for("attn_bshd_rope_gqa")
    q = rng.standard_normal((2, 8, 40, 32)).astype(F32)
    k = rng.standard_normal((2, 2, 72, 32)).astype(F32)
    v = uniform(rng, (2, 2, 72, 32))
    inv = 10000.0 ** (-np.arange(0, 32, 2, dtype=F64) / 32)
    t = lambda a: np.ascontiguousarray(np.transpose(a, (0, 2, 1, 3)))
    save(d, q=t(q), k=t(k), v=t(v), f=inv)
    qr = ref.rope_inv_freq(q, inv, 7, "half")
    kr = ref.rope_inv_freq(k, inv, 0, "half")
    save(d, expected=t(ref.attention(qr, kr, v, causal=True)))


@case
def attn_bshd_values_lengths(d):
    # Prefill in [B, S, H, D] with a value width Dv = 20 != D = 32 (a partial
    # last vector at 8 and at 16 lanes), GQA 4/2, Tq = 24, Tk = 150 (three
    # key blocks, the last partial), not causal, valid lengths 150 and 97;
    # batch 1's value rows past its length are NaN, which no output may see.
    rng = rng_for("attn_bshd_values_lengths")
    q = rng.standard_normal((2, 4, 24, 32)).astype(F32)
    k = rng.standard_normal((2, 2, 150, 32)).astype(F32)
    v = uniform(rng, (2, 2, 150, 20))
    lengths = [150, 97]
    v_in = v.copy()
    v_in[1, :, 97:, :] = np.nan
    save(d, q=_bshd(q), k=_bshd(k), v=_bshd(v_in),
         lengths=np.asarray(lengths, dtype=np.int32))
    save(d, expected=_bshd(ref.attention(q, k, v, kv_lengths=lengths)))


@case
def attn_bshd_decode_alibi(d):
    # Decode (one query per head) in [B, S, H, D]: ALiBi (symmetric, query at
    # 15) over a cache of 16 keys with valid lengths 16 and 9, MQA 4/1.
    rng = rng_for("attn_bshd_decode_alibi")
    q = rng.standard_normal((2, 4, 1, 16)).astype(F32)
    k = rng.standard_normal((2, 1, 16, 16)).astype(F32)
    v = uniform(rng, (2, 1, 16, 16))
    t = lambda a: np.ascontiguousarray(np.transpose(a, (0, 2, 1, 3)))
    save(d, q=t(q), k=t(k), v=t(v), lengths=np.array([16, 9], dtype=np.int32))
    bias = ref.alibi_bias(4, 1, 16, "symmetric", 15)
    save(d, expected=t(ref.attention(q, k, v, bias=bias, kv_lengths=[16, 9])))


@case
def rope_cache_per_token(d):
    # Per-token caches [B, T, R/2] (ONNX RotaryEmbedding without position_ids):
    # x [2, 3, 5, 16], interleaved, partial R = 12, arbitrary table values and
    # an attention scaling of 0.75.
    rng = rng_for("rope_cache_per_token")
    x = uniform(rng, (2, 3, 5, 16))
    cos = uniform(rng, (2, 5, 6))
    sin = uniform(rng, (2, 5, 6))
    save(d, x=x, c=cos, s=sin, m=scalar_f32(0.75))
    save(d, expected=ref.rope_cache_per_token(x, cos, sin, "interleaved", 12,
                                              attention_factor=0.75))


@case
def rope_bshd(d):
    # pe.rope {sequence_dim = 1} on [B, S, H, D] = [2, 7, 3, 32] at offset
    # positions 11 + s, half layout, partial R = 24, an f64 table: the
    # reference rotates the [B, H, S, D] transpose.
    rng = rng_for("rope_bshd")
    x = uniform(rng, (2, 7, 3, 32))
    inv = 10000.0 ** (-np.arange(0, 24, 2, dtype=F64) / 24)
    save(d, x=x, f=inv, o=index(11))
    t = lambda a: np.ascontiguousarray(np.transpose(a, (0, 2, 1, 3)))
    save(d, expected=t(ref.rope_inv_freq(t(x), inv, 11, "half", 24)))


@case
def e2e_bshd_llama(d):
    # A Llama block in [B, S, H, D] as Hugging Face holds it: pe.rope
    # {sequence_dim = 1} on Q and K, then a causal GQA bshd attention (the
    # fused pipeline moves the ropes into it).
    rng = rng_for("e2e_bshd_llama")
    q = rng.standard_normal((1, 8, 24, 32)).astype(F32)
    k = rng.standard_normal((1, 2, 24, 32)).astype(F32)
    v = uniform(rng, (1, 2, 24, 32))
    inv = 10000.0 ** (-np.arange(0, 32, 2, dtype=F64) / 32)
    t = lambda a: np.ascontiguousarray(np.transpose(a, (0, 2, 1, 3)))
    save(d, q=t(q), k=t(k), v=t(v), f=inv)
    qr = ref.rope_inv_freq(q, inv, 0, "half")
    kr = ref.rope_inv_freq(k, inv, 0, "half")
    save(d, expected=t(ref.attention(qr, kr, v, causal=True)))


@case
def attn_lse_split(d):
    # The lse result of two attentions over the key halves [0, 24) and
    # [24, 48) of one top-left causal attention at offset 24 (20 new queries
    # after 24 cached keys, GQA 4/2; batch 1 has only 20 valid keys, all in
    # the first half, so its second-half rows are empty: lse -inf, output 0):
    # each half's (out, lse) against the float64 reference.
    # selftest_pe_ref checks the combination identity.
    rng = rng_for("attn_lse_split")
    q = rng.standard_normal((2, 4, 20, 16)).astype(F32)
    k = rng.standard_normal((2, 2, 48, 16)).astype(F32)
    v = uniform(rng, (2, 2, 48, 16))
    save(d, q=q, k1=np.ascontiguousarray(k[:, :, :24]), v1=np.ascontiguousarray(v[:, :, :24]),
         k2=np.ascontiguousarray(k[:, :, 24:]), v2=np.ascontiguousarray(v[:, :, 24:]),
         l1=np.array([24, 20], dtype=np.int32), l2=np.array([24, 0], dtype=np.int32))
    o1, s1 = ref.attention(q, k[:, :, :24], v[:, :, :24], causal=True, causal_alignment="top_left",
                           causal_offset=24, kv_lengths=[24, 20], return_lse=True)
    o2, s2 = ref.attention(q, k[:, :, 24:], v[:, :, 24:], causal=True, causal_alignment="top_left",
                           causal_offset=0, kv_lengths=[24, 0], return_lse=True)
    save(d, o1=o1, s1=s1, o2=o2, s2=s2)


@case
def attn_lse_alibi_softcap(d):
    # The lse result of the prefill kernel (two query blocks, three key
    # blocks, GQA 4/2, D 32) with the score modifications that touch the
    # softmax's units: ALiBi (symmetric), an explicit f32 bias, and ALiBi
    # with a softcap of 4 (before the bias). The generated kernel keeps
    # scores in base 2 (times log2 e) without a softcap and in natural units
    # with one; its lse converts back (m ln 2 + log l). Scores are scaled
    # up (q, k ~ 2 N(0, 1), scale 1/sqrt(32): std about 4) so that a wrong
    # unit in m, the slopes or the bias moves the outputs and lse far
    # beyond the tolerance.
    rng = rng_for("attn_lse_alibi_softcap")
    T = 130
    q = (2 * rng.standard_normal((1, 4, T, 32))).astype(F32)
    k = (2 * rng.standard_normal((1, 2, T, 32))).astype(F32)
    v = uniform(rng, (1, 2, T, 32))
    bias = (3 * rng.standard_normal((1, 4, T, T))).astype(F32)
    save(d, q=q, k=k, v=v, bias=bias)
    alibi = ref.alibi_bias(4, T, T, "symmetric", 0)
    o1, s1 = ref.attention(q, k, v, causal=True, bias=alibi, return_lse=True)
    o2, s2 = ref.attention(q, k, v, causal=True, bias=bias, return_lse=True)
    o3, s3 = ref.attention(q, k, v, causal=True, bias=alibi, softcap=4.0,
                           softcap_order="before_bias", return_lse=True)
    save(d, o1=o1, s1=s1, o2=o2, s2=s2, o3=o3, s3=s3)


@case
def attn_lse_decode(d):
    # lse of a decode step (the decode kernel): one query per head, GQA 8/2,
    # 32 cached keys with valid lengths 32, 5 and 0 (an empty row: lse -inf,
    # output 0), bottom-right causal, a window of 8 keys.
    rng = rng_for("attn_lse_decode")
    q = rng.standard_normal((3, 8, 1, 16)).astype(F32)
    k = rng.standard_normal((3, 2, 32, 16)).astype(F32)
    v = uniform(rng, (3, 2, 32, 16))
    lengths = np.array([32, 5, 0], dtype=np.int32)
    save(d, q=q, k=k, v=v, l=lengths)
    o, lse = ref.attention(q, k, v, causal=True, window=8, kv_lengths=lengths,
                           return_lse=True)
    save(d, o=o, s=lse)


# Head dimensions that are not a whole number of vectors (masked tails in the
# generated kernels: D = 8 is half a 16-lane vector, 10 and 72 are partial
# for 16 and 8 lanes, 80 and 96 whole for 16 and 8 lanes; with 4 lanes only
# 10 is partial). Tiny shapes: they also run under qemu-aarch64.


@case
def attn_tail_d8_gqa_causal(d):
    _attn(d, "attn_tail_d8_gqa_causal", 1, 4, 2, 9, 9, 8, causal=True)


@case
def attn_tail_d10_scale(d):
    _attn(d, "attn_tail_d10_scale", 2, 2, 2, 5, 7, 10, scale=0.3)


@case
def attn_tail_d10_dv6(d):
    # MQA 2/1 with Dv = 6 != D = 10.
    _attn(d, "attn_tail_d10_dv6", 1, 2, 1, 6, 11, 10, Dv=6)


@case
def attn_tail_d72_gqa_causal(d):
    _attn(d, "attn_tail_d72_gqa_causal", 1, 4, 2, 6, 6, 72, causal=True)


@case
def attn_tail_d80_blocks(d):
    # Tk = 70: a whole key block of 64 and a partial one.
    _attn(d, "attn_tail_d80_blocks", 1, 2, 2, 5, 70, 80)


@case
def attn_tail_d96_mqa_causal(d):
    _attn(d, "attn_tail_d96_mqa_causal", 1, 2, 1, 7, 7, 96, causal=True)


def _attn_tail_rope(d, name, H, Hkv, Tq, Tk, D, layout, q_off, causal):
    """RoPE (f64 table, queries at q_off + i, keys at j) on Q and K inside
    the attention, then the attention of the rotated q, k."""
    rng = rng_for(name)
    q = rng.standard_normal((1, H, Tq, D)).astype(F32)
    k = rng.standard_normal((1, Hkv, Tk, D)).astype(F32)
    v = uniform(rng, (1, Hkv, Tk, D))
    inv = 10000.0 ** (-np.arange(0, D, 2, dtype=F64) / D)
    save(d, q=q, k=k, v=v, f=inv)
    qr = ref.rope_inv_freq(q, inv, q_off, layout)
    kr = ref.rope_inv_freq(k, inv, 0, layout)
    save(d, expected=ref.attention(qr, kr, v, causal=causal))


@case
def attn_tail_rope_d80_half(d):
    # Half layout, 40 pairs (2.5 vectors of 16), causal GQA 4/2, queries at
    # 5..8 over keys 0..8.
    _attn_tail_rope(d, "attn_tail_rope_d80_half", 4, 2, 4, 9, 80, "half", 5, True)


@case
def attn_tail_rope_d10_interleaved(d):
    # Interleaved layout, 5 pairs.
    _attn_tail_rope(d, "attn_tail_rope_d10_interleaved", 2, 2, 5, 5, 10,
                    "interleaved", 0, False)


@case
def attn_tail_decode_d10_gqa(d):
    _attn(d, "attn_tail_decode_d10_gqa", 2, 4, 2, 1, 20, 10, causal=True,
          kv_lengths=[20, 13])


@case
def attn_tail_decode_d72_mqa(d):
    _attn(d, "attn_tail_decode_d72_mqa", 1, 4, 1, 1, 33, 72, causal=True)


@case
def attn_tail_decode_rope_d80(d):
    # Decode with RoPE on the query (position 20) and the 21 cached keys
    # (0..20, rotated in the kernel), half layout, GQA 4/2.
    _attn_tail_rope(d, "attn_tail_decode_rope_d80", 4, 2, 1, 21, 80, "half", 20,
                    True)


@case
def split_decode_lse_masks(d):
    # A decode step over 200 cached keys in many key splits (the GPU
    # split-KV kernels with 32 keys per split: 7 splits): GQA 8/2, valid
    # lengths 200, 45 and 0 (splits past L[b] are empty; the last batch has
    # no valid key: lse -inf, output 0), bottom-right causal, a window of 100
    # keys (the first splits of batch 0 are empty too). Scores of spread 3
    # give the splits different maxima, so a wrong merge shows. Value rows
    # 97 and 98 of batch 0 (outside the window, but in a staged key tile)
    # hold a NaN and an infinity that must not reach any row.
    rng = rng_for("split_decode_lse_masks")
    q = (3 * rng.standard_normal((3, 8, 1, 32))).astype(F32)
    k = rng.standard_normal((3, 2, 200, 32)).astype(F32)
    v = uniform(rng, (3, 2, 200, 32))
    v[0, 0, 97, :] = np.nan
    v[0, 1, 98, 3] = np.inf
    lengths = np.array([200, 45, 0], dtype=np.int32)
    save(d, q=q, k=k, v=v, l=lengths)
    o, lse = ref.attention(q, k, v, causal=True, window=100, kv_lengths=lengths,
                           return_lse=True)
    save(d, o=o, s=lse)


@case
def split_decode_rope_f16(d):
    # pe.rope (half, f64 table) of an f16 query at position 299 and of 300
    # f16 cached keys at 0..299, then causal MHA attention with a softcap of
    # 20: the GPU split-KV kernels with 64 keys per split (5 splits, counted
    # at run time: the key length is dynamic). The rotated q and k are f16
    # (the rope's result type), which the reference rounds likewise.
    rng = rng_for("split_decode_rope_f16")
    q = rng.standard_normal((2, 4, 1, 64)).astype(F16)
    k = rng.standard_normal((2, 4, 300, 64)).astype(F16)
    v = uniform(rng, (2, 4, 300, 64)).astype(F16)
    inv = 10000.0 ** (-np.arange(0, 64, 2, dtype=F64) / 64)
    save(d, q=q, k=k, v=v, f=inv)
    qr = ref.rope_inv_freq(q, inv, 299, "half").astype(F16)
    kr = ref.rope_inv_freq(k, inv, 0, "half").astype(F16)
    save(d, expected=ref.attention(qr, kr, v, causal=True, softcap=20.0))


@case
def rope_cache_offset_saturates(d):
    # Offset 2^63 - 2 with 4 tokens over a 16-row cache: positions 2^63 - 2,
    # 2^63 - 1 and then past INT64_MAX, which saturate there instead of
    # wrapping to negative positions; every token reads the clamped last row.
    rng = rng_for("rope_cache_offset_saturates")
    x = uniform(rng, (2, 4, 32))
    cos = uniform(rng, (16, 16))
    sin = uniform(rng, (16, 16))
    save(d, x=x, c=cos, s=sin, o=index(2**63 - 2))
    save(d, expected=ref.rope_cache(x, cos, sin, np.full(4, 15), "half"))


@case
def e2e_llama3_decode(d):
    # 4 new queries at positions 12..15 (offset operand) against 16 cached
    # keys at 0..15; causal bottom-right.
    q, k, v = _qkv("e2e_llama3_decode", 8, 2, 4, 16, 32)
    save(d, q=q, k=k, v=v, past=index(12))
    inv, _ = ref.llama3(500000.0, 32, 8.0, 1.0, 4.0, 8192)
    inv = f32(inv)
    qr = ref.rope_inv_freq(q, inv, 12, "half")
    kr = ref.rope_inv_freq(k, inv, 0, "half")
    save(d, expected=ref.attention(qr, kr, v, causal=True))


@case
def e2e_decode_rope_d256(d):
    # One query at position 299 against 300 keys at 0..299, both rotated
    # (the fused decode kernel rotates the keys), head dimension 256 (one key
    # per step of the score loop), 18 score blocks and a 12-key tail.
    q, k, v = _qkv("e2e_decode_rope_d256", 8, 2, 1, 300, 256)
    save(d, q=q, k=k, v=v)
    inv, _ = ref.default_freqs(10000.0, 256)
    inv = f32(inv)
    qr = ref.rope_inv_freq(q, inv, 299, "half")
    kr = ref.rope_inv_freq(k, inv, 0, "half")
    save(d, expected=ref.attention(qr, kr, v, causal=True))


@case
def e2e_rope_huge_offset(d):
    # RoPE on q at positions 2^61 + 7 + i and on k at 2^61 + j, fused into
    # causal attention: the generated kernel's rotation at huge angles.
    q, k, v = _qkv("e2e_rope_huge_offset", 2, 2, 4, 8, 32)
    inv, _ = ref.default_freqs(10000.0, 32)
    save(d, q=q, k=k, v=v, f=np.asarray(inv, dtype=F64), qo=index(2**61 + 7), ko=index(2**61))
    qr = ref.rope_inv_freq(q, inv, 2**61 + 7, "half")
    kr = ref.rope_inv_freq(k, inv, 2**61, "half")
    save(d, expected=ref.attention(qr, kr, v, causal=True))


@case
def e2e_yarn_interleaved(d):
    # YaRN with its attention scaling (logits grow by its square), interleaved
    # layout, MQA, non-causal, positions from a tensor.
    q, k, v = _qkv("e2e_yarn_interleaved", 4, 1, 6, 6, 16)
    pos = np.array([100, 101, 102, 103, 104, 105], dtype=np.int64)
    save(d, q=q, k=k, v=v, p=pos)
    inv, af = ref.yarn(10000.0, 16, 8.0, 64)
    inv, af = f32(inv), float(F32(af))
    qr = ref.rope_inv_freq(q, inv, pos, "interleaved", attention_factor=af)
    kr = ref.rope_inv_freq(k, inv, pos, "interleaved", attention_factor=af)
    save(d, expected=ref.attention(qr, kr, v))


@case
def e2e_alibi(d):
    # ALiBi (H = 6, symmetric) as the bias of causal attention with a KV
    # offset: queries at positions 6..9 of 10 keys.
    q, k, v = _qkv("e2e_alibi", 6, 6, 4, 10, 16)
    save(d, q=q, k=k, v=v)
    bias = ref.alibi_bias(6, 4, 10, "symmetric", 6)
    save(d, expected=ref.attention(q, k, v, causal=True, bias=bias))


@case
def e2e_alibi_slopes(d):
    # ALiBi with an explicit slope table (BLOOM-style per-head slopes given
    # as data), causal, 32 queries over 48 keys so the kernel's key blocks
    # and masks are exercised; the fused pipeline moves the table into the
    # attention's alibi encoding.
    q, k, v = _qkv("e2e_alibi_slopes", 4, 4, 32, 48, 16)
    slopes = np.array([0.5, 0.125, 0.03125, 0.3], dtype=F32)
    save(d, q=q, k=k, v=v, s=slopes)
    bias = ref.alibi_bias(4, 32, 48, "key", 0, slopes=slopes)
    save(d, expected=ref.attention(q, k, v, causal=True, bias=bias))


@case
def e2e_alibi_encoder(d):
    # Non-causal ALiBi with the signed distance (differs from symmetric here).
    q, k, v = _qkv("e2e_alibi_encoder", 6, 6, 7, 7, 16)
    save(d, q=q, k=k, v=v)
    bias = ref.alibi_bias(6, 7, 7, "signed", 0)
    save(d, expected=ref.attention(q, k, v, bias=bias))


# ===========================================================================
# Properties (prop_*.mlir; checked by props.py on the pe-run outputs)
# ===========================================================================


@case
def prop_norm(d):
    # Random x and default frequencies at large positions.
    rng = rng_for("prop_norm")
    save(d, x=uniform(rng, (2, 3, 16, 32), lo=-2.0, hi=2.0),
         f=ref.default_freqs(10000.0, 32)[0].astype(F32),
         f24=ref.default_freqs(10000.0, 24)[0].astype(F32),
         o=index(5000))


@case
def prop_relative(d):
    # q and k of unit norm per token; offsets (m, n) with the same n - m.
    rng = rng_for("prop_relative")
    save(d, q=unit_rows(rng, (2, 8, 32)), k=unit_rows(rng, (2, 8, 32)),
         f=ref.default_freqs(10000.0, 32)[0].astype(F32))
    for tag, off in (("m0", 0), ("n0", 5), ("m1", 1000), ("n1", 1005), ("m2", 70000),
                     ("n2", 70005), ("n3", 9)):
        save(d, **{tag: index(off)})


@case
def prop_pos0(d):
    # PE(p = 0) rows (closed form, not pe_ref): interleaved [0, 1, 0, 1, ...],
    # concat [0 .. 0 | 1 .. 1] (+ a final 0 for odd C).
    save(d, zeros1=np.zeros((1, 16), F32), zeros16=np.zeros((4, 16), F32),
         zeros9=np.zeros((1, 2, 3, 9), F32), p0=np.zeros(4, np.int32))
    inter16 = np.tile([0.0, 1.0], 8)
    inter9 = np.array([0, 1, 0, 1, 0, 1, 0, 1, 0], F64)
    concat16 = np.array([0] * 8 + [1] * 8, F64)
    concat9 = np.array([0] * 4 + [1] * 4 + [0], F64)
    save(d, expected_inter1=inter16[None, :].copy(), expected_concat1=concat16[None, :].copy())
    save(d, expected_inter16=np.broadcast_to(inter16, (4, 16)).copy(),
         expected_inter9=np.broadcast_to(inter9, (1, 2, 3, 9)).copy(),
         expected_concat16=np.broadcast_to(concat16, (4, 16)).copy(),
         expected_concat9=np.broadcast_to(concat9, (1, 2, 3, 9)).copy())


LARGE_POSITIONS = [0, 1000, 65535, 2**20 - 1, 2**20]


@case
def prop_large_positions(d):
    # Unit-norm rows, positions up to 2^20, default frequencies in f32 and in
    # f64; expected in float64 (pe_ref) from the exact frequency values.
    rng = rng_for("prop_large_positions")
    x = unit_rows(rng, (3, 5, 64))
    pos = np.array(LARGE_POSITIONS, dtype=np.int64)
    inv = ref.default_freqs(10000.0, 64)[0]
    f32v, f64v = inv.astype(F32), inv.astype(F64)
    save(d, x=x, p=pos, p32=pos.astype(np.int32), f32=f32v, f64=f64v)
    for layout in ref.ROPE_LAYOUTS:
        save(d, **{f"expected_{layout}_f32": ref.rope_inv_freq(x, f32v, pos, layout),
                   f"expected_{layout}_f64": ref.rope_inv_freq(x, f64v, pos, layout)})
    # Hugging Face forms p * inv_freq in f32; the error that costs (up to
    # p * 2^-24 rad) is what the f64 angle avoids. props.py large_sanity checks
    # that this bound is violated by the f32-angle formula, i.e. that the test
    # can tell the two apart.
    ang32 = (pos.astype(F32)[:, None] * f32v[None, :]).astype(F64)
    a, b = x[..., 0::2].astype(F64), x[..., 1::2].astype(F64)
    hf = np.empty(x.shape, F64)
    hf[..., 0::2] = a * np.cos(ang32) - b * np.sin(ang32)
    hf[..., 1::2] = a * np.sin(ang32) + b * np.cos(ang32)
    save(d, f32angle_interleaved=hf)


# Offsets of prop_freq_op_long_positions: tokens at 2^e .. 2^e + 7.
FREQ_OP_OFFSETS = [2**17, 2**18, 2**19, 2**20]


@case
def prop_freq_op_long_positions(d):
    # README-style IR: pe.llama3_scale (base 500000, factor 8, 1, 4, 8192;
    # R = D = 64) with an f32 result type feeding pe.rope half. The angles use
    # the frequency op's exact values (PEOps.td), so the expected values come
    # from the float64 table. f32table_*: the same with the f32-rounded table,
    # which props.py differ shows to be beyond the 2e-6 bound.
    rng = rng_for("prop_freq_op_long_positions")
    inv, _ = ref.llama3(500000.0, 64, 8.0, 1.0, 4.0, 8192)
    x = uniform(rng, (1, 8, 8, 64))
    save(d, x=x)
    for n, o in enumerate(FREQ_OP_OFFSETS):
        save(d, **{f"o{n}": index(o),
                   f"expected{n}": ref.rope_inv_freq(x, inv, o, "half"),
                   f"f32table{n}": ref.rope_inv_freq(x, f32(inv), o, "half")})
    # Attention through fusion: queries at 2^20 .. 2^20 + 15, keys at
    # 2^17 .. 2^17 + 15 (GQA 8/2, causal).
    q, k, v = (uniform(rng, (1, h, 16, 64)) for h in (8, 2, 2))
    qo, ko = 2**20, 2**17
    save(d, q=q, k=k, v=v, qo=index(qo), ko=index(ko))
    for name, table in (("expected_attn", inv), ("f32table_attn", f32(inv))):
        save(d, **{name: ref.attention(ref.rope_inv_freq(q, table, qo, "half"),
                                       ref.rope_inv_freq(k, table, ko, "half"),
                                       v, causal=True)})


@case
def key_tiled_attention(d):
    # The untiled reference of the key-tiled attention test: RoPE (half, f64
    # table, queries at 5 + i, keys at 3 + j), ALiBi (symmetric, queries at
    # 2 + i), top-left causal with the queries at tokens 30 + i, and valid
    # lengths 45 and 13 (the second batch's last two key tiles of 16 hold no
    # valid key); GQA 8/2, Tq = 12, Tk = 45.
    rng = rng_for("key_tiled_attention")
    q = rng.standard_normal((2, 8, 12, 16)).astype(F32)
    k = rng.standard_normal((2, 2, 45, 16)).astype(F32)
    v = uniform(rng, (2, 2, 45, 16))
    inv = 10000.0 ** (-np.arange(0, 16, 2, dtype=F64) / 16)
    lengths = np.array([45, 13], dtype=np.int32)
    save(d, q=q, k=k, v=v, f=inv, lengths=lengths)
    qr = ref.rope_inv_freq(q, inv, 5, "half")
    kr = ref.rope_inv_freq(k, inv, 3, "half")
    bias = ref.alibi_bias(8, 12, 45, "symmetric", 2)
    save(d, expected=ref.attention(qr, kr, v, causal=True, bias=bias,
                                   causal_alignment="top_left",
                                   causal_offset=30, kv_lengths=lengths))


@case
def key_tiled_bottom_right(d):
    # The untiled reference of the key-tiled bottom-right test: causal
    # bottom-right with valid lengths 0 and 23 (batch 0 has no valid key:
    # output 0, lse -inf), a sliding window of 5, ALiBi with the key distance
    # (BLOOM; each key tile's log-sum-exp is shifted back by m_h * j0), Tq = 6,
    # Tk = 37, Dv = 8, and the lse result.
    rng = rng_for("key_tiled_bottom_right")
    q = rng.standard_normal((2, 4, 6, 16)).astype(F32)
    k = rng.standard_normal((2, 4, 37, 16)).astype(F32)
    v = uniform(rng, (2, 4, 37, 8))
    lengths = np.array([0, 23], dtype=np.int64)
    save(d, q=q, k=k, v=v, lengths=lengths)
    bias = ref.alibi_bias(4, 6, 37, "key")
    out, lse = ref.attention(q, k, v, causal=True, bias=bias, window=5,
                             kv_lengths=lengths, return_lse=True)
    save(d, expected=out, expected_lse=lse)


@case
def key_tiled_bshd_heads(d):
    # The untiled reference of the head- and key-tiled bshd test: [B, S, H,
    # D] operands, GQA 8/2, Tq = 10, Tk = 29, a [Tq, Tk] mask (a row with
    # every key masked outputs 0), a softcap of 20 before the bias, and
    # key-distance ALiBi with explicit f32 slopes.
    rng = rng_for("key_tiled_bshd_heads")
    q = rng.standard_normal((1, 8, 10, 16)).astype(F32)
    k = rng.standard_normal((1, 2, 29, 16)).astype(F32)
    v = uniform(rng, (1, 2, 29, 16))
    slopes = uniform(rng, (8,), lo=0.05, hi=0.5)
    mask = rng.random((10, 29)) < 0.6
    mask[3, :] = False
    t = lambda a: np.ascontiguousarray(np.transpose(a, (0, 2, 1, 3)))
    save(d, q=t(q), k=t(k), v=t(v), s=slopes, mask=mask)
    bias = ref.alibi_bias(8, 10, 29, "key", 0, slopes.astype(F64))
    save(d, expected=t(ref.attention(q, k, v, bias=bias, mask=mask,
                                     softcap=20.0)))


# The tensor-core attention kernel (convert-pe-to-gpu{tensor-cores=emulate}
# on the Vulkan target: the mma.sync fragments, shuffles and online softmax
# of the NVVM kernel with mma.sync emulated through workgroup memory): f16
# operands, head dimensions 64 and 128, Tq and Tk that are not multiples of
# the 64-row block or the 32-key tile. The references use the f16 inputs
# exactly.
def _f16(rng, shape, uniform_values=False):
    a = uniform(rng, shape, F64) if uniform_values else rng.standard_normal(shape)
    return a.astype(F16)


def _bhsd_to_bshd(a):
    return np.ascontiguousarray(np.transpose(a, (0, 2, 1, 3)))


@case
def tc_rope_causal_gqa_d64(d):
    # RoPE (half, f64 table) on Q and K, bottom-right causal, GQA 4/2:
    # 2 x 70 rows per KV head in 3 blocks of 64 (one across two heads), 90
    # keys in 3 tiles of 32 (the last one partial).
    rng = rng_for("tc_rope_causal_gqa_d64")
    q = _f16(rng, (1, 4, 70, 64))
    k = _f16(rng, (1, 2, 90, 64))
    v = _f16(rng, (1, 2, 90, 64), uniform_values=True)
    inv = 10000.0 ** (-np.arange(0, 64, 2, dtype=F64) / 64)
    save(d, q=q, k=k, v=v, f=inv)
    qr = ref.rope_inv_freq(q, inv, 0, "half")
    kr = ref.rope_inv_freq(k, inv, 0, "half")
    save(d, expected=ref.attention(qr, kr, v, causal=True))


@case
def tc_bf16_rope_causal_gqa_d64(d):
    # tc_rope_causal_gqa_d64 in bf16 with an f32 result: the bf16 buffers and
    # workgroup tiles go through pe-gpu-bf16-storage on SPIR-V. The rotated
    # q and k are rounded to bf16 (as the unfused pe.rope rounds them).
    rng = rng_for("tc_bf16_rope_causal_gqa_d64")
    q = to_bf16(rng.standard_normal((1, 4, 70, 64)).astype(F32))
    k = to_bf16(rng.standard_normal((1, 2, 90, 64)).astype(F32))
    v = to_bf16(uniform(rng, (1, 2, 90, 64), F32))
    inv = 10000.0 ** (-np.arange(0, 64, 2, dtype=F64) / 64)
    save(d, q=q, k=k, v=v, f=inv)
    qr = to_bf16(ref.rope_inv_freq(q, inv, 0, "half").astype(F32))
    kr = to_bf16(ref.rope_inv_freq(k, inv, 0, "half").astype(F32))
    save(d, expected=ref.attention(qr, kr, v, causal=True))


@case
def tc_bias_mask_d64(d):
    # f16 GQA 4/2, D 64, 70 x 90 with a [1, 1, Tq, Tk] bias (-inf for the
    # padding keys >= 80) after a softcap of 8, a random [Tq, Tk] mask that
    # always allows key 0, bottom-right causal.
    rng = rng_for("tc_bias_mask_d64")
    q = _f16(rng, (1, 4, 70, 64))
    k = _f16(rng, (1, 2, 90, 64))
    v = _f16(rng, (1, 2, 90, 64), uniform_values=True)
    bias = rng.standard_normal((1, 1, 70, 90)).astype(F32)
    bias[..., 80:] = -np.inf
    mask = rng.random((70, 90)) < 0.7
    mask[:, 0] = True
    save(d, q=q, k=k, v=v, bias=bias, mask=mask)
    save(d, expected=ref.attention(q, k, v, causal=True, bias=bias, mask=mask, softcap=8.0))


@case
def tc_alibi_window_softcap_bshd_d128(d):
    # [B, S, H, D] operands, D = 128: symmetric ALiBi (queries at 32 + i),
    # a softcap of 2 before the bias, bottom-right causal with a window of 24
    # keys; 2 batches, GQA 4/2, Tq = 45, Tk = 77.
    rng = rng_for("tc_alibi_window_softcap_bshd_d128")
    q = _f16(rng, (2, 4, 45, 128))
    k = _f16(rng, (2, 2, 77, 128))
    v = _f16(rng, (2, 2, 77, 128), uniform_values=True)
    save(d, q=_bhsd_to_bshd(q), k=_bhsd_to_bshd(k), v=_bhsd_to_bshd(v))
    bias = ref.alibi_bias(4, 45, 77, "symmetric", 32)
    save(d, expected=_bhsd_to_bshd(ref.attention(q, k, v, causal=True, bias=bias, softcap=2.0,
                                                 window=24)))


@case
def tc_gqa_lengths_lse_d64(d):
    # GQA 8/2, Tq = 37 new queries after 40 cached keys (top-left causal,
    # offset 40), Tk = 83 with valid lengths 83, 41 and 0 (batch 2's rows
    # see no key: output 0, lse -inf), partial interleaved RoPE (32 of 64
    # channels, queries at 40 + i), and the lse result.
    rng = rng_for("tc_gqa_lengths_lse_d64")
    q = _f16(rng, (3, 8, 37, 64))
    k = _f16(rng, (3, 2, 83, 64))
    v = _f16(rng, (3, 2, 83, 64), uniform_values=True)
    inv = 10000.0 ** (-np.arange(0, 32, 2, dtype=F64) / 32)
    lengths = [83, 41, 0]
    save(d, q=q, k=k, v=v, f=inv, lengths=np.array(lengths, dtype=np.int32))
    qr = ref.rope_inv_freq(q, inv, 40, "interleaved", rotary_dim=32)
    kr = ref.rope_inv_freq(k, inv, 0, "interleaved", rotary_dim=32)
    out, lse = ref.attention(qr, kr, v, causal=True, causal_alignment="top_left",
                             causal_offset=40, kv_lengths=lengths, return_lse=True)
    save(d, expected=out, lse=lse)


@case
def tc_mqa_d128_dv64(d):
    # MQA 4/1 without a mask, D = 128, Dv = 64, scale 0.1, Tq = 20, Tk = 45.
    rng = rng_for("tc_mqa_d128_dv64")
    q = _f16(rng, (1, 4, 20, 128))
    k = _f16(rng, (1, 1, 45, 128))
    v = _f16(rng, (1, 1, 45, 64), uniform_values=True)
    save(d, q=q, k=k, v=v)
    save(d, expected=ref.attention(q, k, v, scale=0.1))


@case
def tc_stages_rope_causal_d64(d):
    # The two-stage K/V buffer over many key tiles: interleaved RoPE on Q
    # and K (K rotated in place in its stage), bottom-right causal, GQA 2/1,
    # 2 batches, Tq = 130, Tk = 200: 260 rows per KV head in 5 blocks (one
    # across the two heads), 7 key tiles of 32 (the last one 8 keys), so each
    # stage holds 3 or 4 tiles in turn.
    rng = rng_for("tc_stages_rope_causal_d64")
    q = _f16(rng, (2, 2, 130, 64))
    k = _f16(rng, (2, 1, 200, 64))
    v = _f16(rng, (2, 1, 200, 64), uniform_values=True)
    inv = 10000.0 ** (-np.arange(0, 64, 2, dtype=F64) / 64)
    save(d, q=q, k=k, v=v, f=inv)
    qr = ref.rope_inv_freq(q, inv, 0, "interleaved")
    kr = ref.rope_inv_freq(k, inv, 0, "interleaved")
    save(d, expected=ref.attention(qr, kr, v, causal=True))


@case
def tensor_level_math(d):
    # Elementwise arith and math ops on whole tensors (as TOSA frontends leave
    # them): exp(x) * w - tanh(x) + cos(x) on [4, 8], test/Pipelines/
    # tensor-level-execution.test.
    rng = rng_for("tensor_level_math")
    x = uniform(rng, (4, 8))
    w = uniform(rng, (4, 8))
    save(d, x=x, w=w)
    x64, w64 = x.astype(F64), w.astype(F64)
    save(d, expected=np.exp(x64) * w64 - np.tanh(x64) + np.cos(x64))


# ===========================================================================
# Standalone sequence kernels: f16/bf16, other sequence dimensions,
# per-token caches, sinusoidal positions tensors (generated kernels).
# ===========================================================================


def _bshd(a):
    """[B, S, H, D] <-> [B, H, S, D]."""
    return np.ascontiguousarray(np.transpose(a, (0, 2, 1, 3)))


def _bhsd(a):
    """[B, S, H, D] <-> [B, H, S, D] (its own inverse)."""
    return np.ascontiguousarray(np.transpose(a, (0, 2, 1, 3)))


@case
def rope_bf16_offset_tail(d):
    # bf16 [2, 3, 70, 40], half layout, partial R = 36 (18 pairs: a masked
    # last vector on every target), offset 9; 70 tokens span two blocks.
    _rope(d, "rope_bf16_offset_tail", (2, 3, 70, 40), "half", 9, index(9), R=36,
          dtype="bf16")


@case
def rope_f16_cache_bf16(d):
    # f16 [2, 2, 9, 20] interleaved with bf16 caches [16, 10], static offset
    # 4 (rows 4..12), attention scaling 0.5.
    rng = rng_for("rope_f16_cache_bf16")
    x = uniform(rng, (2, 2, 9, 20)).astype(F16)
    cos = to_bf16(uniform(rng, (16, 10), lo=-1.5, hi=1.5))
    sin = to_bf16(uniform(rng, (16, 10), lo=-1.5, hi=1.5))
    save(d, x=x, c=cos, s=sin, m=scalar_f32(0.5))
    save(d, expected=ref.rope_cache(x, cos, sin, ref.positions_from_offset(4, 9),
                                    "interleaved", 20, float(F32(0.5))))


@case
def rope_bshd_bf16_per_token(d):
    # bf16 [B, S, H, D] = [2, 5, 3, 24], sequence_dim = 1, half layout, f16
    # per-token caches [2, 5, 12]: token s of batch b uses row [b, s].
    rng = rng_for("rope_bshd_bf16_per_token")
    x = to_bf16(uniform(rng, (2, 5, 3, 24)))
    cos = uniform(rng, (2, 5, 12)).astype(F16)
    sin = uniform(rng, (2, 5, 12)).astype(F16)
    save(d, x=x, c=cos, s=sin)
    save(d, expected=_bshd(ref.rope_cache_per_token(_bshd(x), cos, sin, "half", 24)))


@case
def rope_sbhd_f16(d):
    # f16 [S, B, H, D] = [70, 2, 3, 16], sequence_dim = 0 (tokens first),
    # interleaved, f64 frequencies, offset 100.
    rng = rng_for("rope_sbhd_f16")
    x = uniform(rng, (70, 2, 3, 16)).astype(F16)
    inv = 10000.0 ** (-np.arange(0, 16, 2, dtype=F64) / 16)
    save(d, x=x, f=inv, o=index(100))
    t = lambda a: np.ascontiguousarray(np.transpose(a, (1, 2, 0, 3)))
    u = lambda a: np.ascontiguousarray(np.transpose(a, (2, 0, 1, 3)))
    save(d, expected=u(ref.rope_inv_freq(t(x), inv, 100, "interleaved", 16)))


@case
def sin_concat_bf16_batch_positions(d):
    # bf16 [2, 3, 20, 24] concat, [B, T] i32 positions (batch b = dimension
    # 0, shared by its 3 rows), up to 2^20 + 3.
    rng = rng_for("sin_concat_bf16_batch_positions")
    pos = rng.integers(0, 5000, (2, 20)).astype(np.int32)
    pos[1, 7] = 2**20 + 3
    pos[0, 0] = 0
    _sinusoidal(d, "sin_concat_bf16_batch_positions", (2, 3, 20, 24), "bf16", pos,
                pos, layout="concat")


@case
def sin_interleaved_f16_positions(d):
    # f16 [5, 40] interleaved, 1-D i64 positions (not increasing), scale_input
    # (x times sqrt(40)).
    pos = np.array([3, 0, 77, 4096, 12], dtype=np.int64)
    _sinusoidal(d, "sin_interleaved_f16_positions", (5, 40), F16, pos, pos,
                scale_input=True)


@case
def attn_rope_cache_f16(d):
    # f32 attention [1, 2, 6, 16] (MHA, non-causal) with interleaved RoPE from
    # f16 cos/sin caches [16, 8] (arbitrary values) at positions 0 .. 5 for
    # the queries and the keys.
    rng = rng_for("attn_rope_cache_f16")
    q = uniform(rng, (1, 2, 6, 16))
    k = uniform(rng, (1, 2, 6, 16))
    v = uniform(rng, (1, 2, 6, 16))
    cos = uniform(rng, (16, 8), lo=-1.5, hi=1.5).astype(F16)
    sin = uniform(rng, (16, 8), lo=-1.5, hi=1.5).astype(F16)
    save(d, q=q, k=k, v=v, c=cos, s=sin)
    pos = ref.positions_from_offset(0, 6)
    qr = ref.rope_cache(q, cos, sin, pos, "interleaved")
    kr = ref.rope_cache(k, cos, sin, pos, "interleaved")
    save(d, expected=ref.attention(qr, kr, v))


@case
def attn_positions_prefill_gqa(d):
    # RoPE positions tensors of pe.attention: [T] i32 positions of the
    # queries (Hugging Face position_ids, here 1000 + 3 i: not an arange) and
    # other [T] i32 positions of the keys (random in [0, 5000)), half layout,
    # f64 table, causal (by index) GQA 8/2, D = 64, Tq = Tk = 24.
    rng = rng_for("attn_positions_prefill_gqa")
    q = rng.standard_normal((1, 8, 24, 64)).astype(F32)
    k = rng.standard_normal((1, 2, 24, 64)).astype(F32)
    v = uniform(rng, (1, 2, 24, 64))
    inv = 10000.0 ** (-np.arange(0, 64, 2, dtype=F64) / 64)
    pq = (1000 + 3 * np.arange(24)).astype(np.int32)
    pk = rng.integers(0, 5000, 24).astype(np.int32)
    save(d, q=q, k=k, v=v, f=inv, pq=pq, pk=pk)
    qr = ref.rope_inv_freq(q, inv, pq, "half")
    kr = ref.rope_inv_freq(k, inv, pk, "half")
    save(d, expected=ref.attention(qr, kr, v, causal=True))


@case
def attn_positions_batch_bshd(d):
    # [B, T] i64 positions (continuous batching: batch 0 at 0, 5, ..., 95,
    # batch 1 at 37..56; the keys at the same positions) in the [B, S, H, D]
    # layout, interleaved layout, f64 table, MHA 4/4, D = 32, not causal.
    # (RoPE scores depend on position differences only, so batch 0's spacing
    # is what tells the positions from the offset form.)
    rng = rng_for("attn_positions_batch_bshd")
    q = rng.standard_normal((2, 4, 20, 32)).astype(F32)
    k = rng.standard_normal((2, 4, 20, 32)).astype(F32)
    v = uniform(rng, (2, 4, 20, 32))
    inv = 10000.0 ** (-np.arange(0, 32, 2, dtype=F64) / 32)
    p = np.stack([5 * np.arange(20), 37 + np.arange(20)]).astype(np.int64)
    save(d, q=_bhsd(q), k=_bhsd(k), v=_bhsd(v), f=inv, p=p)
    qr = ref.rope_inv_freq(q, inv, p, "interleaved")
    kr = ref.rope_inv_freq(k, inv, p, "interleaved")
    save(d, expected=_bhsd(ref.attention(qr, kr, v)))


@case
def attn_positions_decode_gqa(d):
    # Decode (one query per head): [B, 1] i64 query positions (40 and 17),
    # [B, Tk] i32 key positions (0..40 and 0..17 then padding past the valid
    # lengths 41 and 18), the keys rotated in the kernel, half layout, f32
    # table, causal bottom-right over the valid keys, GQA 8/2, D = 64.
    rng = rng_for("attn_positions_decode_gqa")
    q = rng.standard_normal((2, 8, 1, 64)).astype(F32)
    k = rng.standard_normal((2, 2, 41, 64)).astype(F32)
    v = uniform(rng, (2, 2, 41, 64))
    inv = (10000.0 ** (-np.arange(0, 64, 2, dtype=F64) / 64)).astype(F32)
    pq = np.array([[40], [17]], dtype=np.int64)
    pk = np.stack([np.arange(41), np.minimum(np.arange(41), 17)]).astype(np.int32)
    lengths = np.array([41, 18], dtype=np.int32)
    save(d, q=q, k=k, v=v, f=inv, pq=pq, pk=pk, l=lengths)
    qr = ref.rope_inv_freq(q, inv, pq, "half")
    kr = ref.rope_inv_freq(k, inv, pk, "half")
    save(d, expected=ref.attention(qr, kr, v, causal=True, kv_lengths=lengths))


@case
def attn_positions_decode_query_only_bshd(d):
    # Decode in [B, S, H, D] with a query_only rope (the cache holds rotated
    # keys): the query at its [T] i32 position 300, MQA 4/1, D = 128, 33
    # keys, causal bottom-right (every key).
    rng = rng_for("attn_positions_decode_query_only_bshd")
    q = rng.standard_normal((1, 4, 1, 128)).astype(F32)
    k = rng.standard_normal((1, 1, 33, 128)).astype(F32)
    v = uniform(rng, (1, 1, 33, 128))
    inv = 500000.0 ** (-np.arange(0, 128, 2, dtype=F64) / 128)
    p = np.array([300], dtype=np.int32)
    save(d, q=_bhsd(q), k=_bhsd(k), v=_bhsd(v), f=inv, p=p)
    qr = ref.rope_inv_freq(q, inv, p, "half")
    save(d, expected=_bhsd(ref.attention(qr, k, v, causal=True)))


@case
def attn_positions_cache_d80(d):
    # A head dimension that is not a whole number of vectors: D = 80, half
    # layout with cos/sin caches [512, 40] (arbitrary values), [T] i64
    # positions of the queries and the keys (random in [0, 512)), causal GQA
    # 4/2, Tq = 7 < Tk = 11.
    rng = rng_for("attn_positions_cache_d80")
    q = rng.standard_normal((1, 4, 7, 80)).astype(F32)
    k = rng.standard_normal((1, 2, 11, 80)).astype(F32)
    v = uniform(rng, (1, 2, 11, 80))
    c = uniform(rng, (512, 40))
    s = uniform(rng, (512, 40))
    pq = rng.integers(0, 512, 7).astype(np.int64)
    pk = rng.integers(0, 512, 11).astype(np.int64)
    save(d, q=q, k=k, v=v, c=c, s=s, pq=pq, pk=pk)
    qr = ref.rope_cache(q, c, s, pq, "half")
    kr = ref.rope_cache(k, c, s, pk, "half")
    save(d, expected=ref.attention(qr, kr, v, causal=True))


@case
def tc_rope_positions_gqa_d64(d):
    # RoPE (half, f64 table) with [B, T] i64 positions tensors inside the
    # tensor-core attention: batch 0's queries and keys at 3 t, batch 1's at
    # 500 + t (keys) and the last 40 of them (queries), bottom-right causal,
    # GQA 4/2, D = 64, Tq = 40, Tk = 70 (3 key tiles of 32).
    rng = rng_for("tc_rope_positions_gqa_d64")
    q = _f16(rng, (2, 4, 40, 64))
    k = _f16(rng, (2, 2, 70, 64))
    v = _f16(rng, (2, 2, 70, 64), uniform_values=True)
    inv = 10000.0 ** (-np.arange(0, 64, 2, dtype=F64) / 64)
    pk = np.stack([3 * np.arange(70), 500 + np.arange(70)]).astype(np.int64)
    pq = np.ascontiguousarray(pk[:, 30:])
    save(d, q=q, k=k, v=v, f=inv, pq=pq, pk=pk)
    qr = ref.rope_inv_freq(q, inv, pq, "half")
    kr = ref.rope_inv_freq(k, inv, pk, "half")
    save(d, expected=ref.attention(qr, kr, v, causal=True))

def main(argv):
    if len(argv) != 3 or argv[1] not in CASES:
        names = " ".join(sorted(CASES))
        sys.stderr.write(f"usage: cases.py CASE DIR\nknown cases: {names}\n")
        return 2
    d = argv[2]
    os.makedirs(d, exist_ok=True)
    CASES[argv[1]](d)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

