"""Float64 numpy reference for the PE (positional-encoding) dialect.

Written only from the formula sheet ``PE-FORMULAS.md`` (sections A1-A6) and the
op semantics of the project, never from the compiler's own code, so that the
integration tests compare the JIT against an independent implementation.

Everything here is a pure function that computes in float64.

Shape conventions
-----------------
* ``x[..., T, D]``: the last two axes are (tokens, channels).
* ``positions`` is one of
    - an int offset ``p0``          -> positions ``p0 + arange(T)``,
    - an int array ``[T]``          -> shared by every leading index of ``x``,
    - an int array ``[B, T]``       -> batch-dependent; row ``b`` applies to
      ``x[b, ...]`` (``x`` must then have at least three axes).
* RoPE rotates channels ``[0, R)`` (``R`` = rotary dim, even) and copies
  ``[R, D)`` through unchanged.
"""

import math

import numpy as np

F64 = np.float64

# --------------------------------------------------------------------------
# Positions
# --------------------------------------------------------------------------


def positions_from_offset(offset, T):
    """Absolute positions of a chunk of ``T`` tokens starting at ``offset``.

    Formula sheet notation: position ``p`` = cache offset + index in chunk.
    """
    return int(offset) + np.arange(T, dtype=np.int64)


def _positions_for(x, positions):
    """Return ``positions`` shaped to broadcast against ``x[..., T]``.

    The result has shape ``[T]`` or ``[B, 1, ..., 1, T]`` (same rank as
    ``x[..., T]``); appending a trailing axis makes it broadcast against
    per-channel quantities ``[..., T, C]``.
    """
    T = x.shape[-2]
    pos = np.asarray(positions)
    if pos.ndim == 0:
        pos = positions_from_offset(pos, T)
    if pos.ndim == 1:
        if pos.shape[0] != T:
            raise ValueError(f"positions has length {pos.shape[0]}, x has T={T}")
        return pos
    if pos.ndim == 2:
        if x.ndim < 3 or pos.shape != (x.shape[0], T):
            raise ValueError(
                f"batch positions {pos.shape} do not match x {x.shape} "
                "(expected [x.shape[0], T])")
        return pos.reshape((pos.shape[0],) + (1,) * (x.ndim - 3) + (T,))
    raise ValueError(f"positions must be a scalar, [T] or [B, T]; got {pos.shape}")


# --------------------------------------------------------------------------
# A1. Sinusoidal absolute PE
# --------------------------------------------------------------------------

SINUSOIDAL_LAYOUTS = ("interleaved", "concat")


def sinusoidal_table(positions, dim, base=10000.0, layout="interleaved"):
    """Sinusoidal PE rows for ``positions`` (formula sheet A1).

    Returns ``[len(positions), dim]`` (more generally ``positions.shape + (dim,)``).

    * ``interleaved`` (DistilBERT / "Attention is all you need"):
      ``angle[p, j] = p / base^(2*(j//2)/dim)``; even columns ``sin``, odd
      columns ``cos``, i.e. ``PE[p,2k] = sin(p*base^(-2k/dim))``,
      ``PE[p,2k+1] = cos(p*base^(-2k/dim))``.
    * ``concat`` (fairseq / tensor2tensor): ``h = dim//2``,
      ``w_k = exp(-k*ln(base)/(h-1))`` for ``k in [0, h)`` (``w = 1`` when
      ``h == 1``); ``PE[p] = [sin(p*w) | cos(p*w)]``; odd ``dim`` gets a final
      zero column.  Note the denominator ``h-1``, not ``h``.
    """
    p = np.asarray(positions, dtype=F64)[..., None]
    if layout == "interleaved":
        j = np.arange(dim)
        angle = p / np.power(F64(base), 2.0 * (j // 2) / dim)
        return np.where(j % 2 == 0, np.sin(angle), np.cos(angle))
    if layout == "concat":
        h = dim // 2
        if h > 1:
            w = np.exp(-np.arange(h, dtype=F64) * math.log(base) / (h - 1))
        else:
            w = np.ones(h, dtype=F64)
        table = np.concatenate([np.sin(p * w), np.cos(p * w)], axis=-1)
        if dim % 2 == 1:
            table = np.concatenate([table, np.zeros_like(table[..., :1])], axis=-1)
        return table
    raise ValueError(f"unknown sinusoidal layout {layout!r}; use {SINUSOIDAL_LAYOUTS}")


def add_sinusoidal(x, positions, base=10000.0, layout="interleaved", scale_input=False):
    """``x * (sqrt(dim) if scale_input else 1) + PE[positions]`` (sheet A1).

    ``x[..., T, dim]``; the table broadcasts over the leading axes of ``x``
    (or follows axis 0 for ``[B, T]`` positions).
    """
    x = np.asarray(x, dtype=F64)
    dim = x.shape[-1]
    table = sinusoidal_table(_positions_for(x, positions), dim, base, layout)
    scale = math.sqrt(dim) if scale_input else 1.0
    return x * scale + table


# --------------------------------------------------------------------------
# A2. Learned absolute PE
# --------------------------------------------------------------------------


def add_learned(x, table, positions):
    """``x + table[positions]`` (sheet A2: gather rows of ``pos_emb``, add)."""
    x = np.asarray(x, dtype=F64)
    table = np.asarray(table, dtype=F64)
    return x + table[_positions_for(x, positions)]


# --------------------------------------------------------------------------
# A3. RoPE core
# --------------------------------------------------------------------------

ROPE_LAYOUTS = ("interleaved", "half")


def _rotate_pairs(x, cos, sin, layout, R):
    """Rotate the pairs of channels ``[0, R)`` of ``x`` by (cos, sin).

    ``cos``/``sin`` broadcast against ``x[..., T, R/2]``; pair ``i`` is
    ``(x[2i], x[2i+1])`` for ``interleaved`` and ``(x[i], x[i+R/2])`` for
    ``half``.  ``a' = a cos - b sin``, ``b' = a sin + b cos`` (sheet A3).
    Channels ``[R, D)`` are copied unchanged.
    """
    if layout == "interleaved":
        ia, ib = slice(0, R, 2), slice(1, R, 2)
    elif layout == "half":
        ia, ib = slice(0, R // 2), slice(R // 2, R)
    else:
        raise ValueError(f"unknown rope layout {layout!r}; use {ROPE_LAYOUTS}")
    out = x.copy()
    a, b = x[..., ia], x[..., ib]
    out[..., ia] = a * cos - b * sin
    out[..., ib] = a * sin + b * cos
    return out


def _rotary_dim(x, rotary_dim):
    D = x.shape[-1]
    R = D if rotary_dim is None else int(rotary_dim)
    if R <= 0 or R % 2 or R > D:
        raise ValueError(f"rotary_dim must be even and in (0, {D}]; got {R}")
    return R


def rope_inv_freq(x, inv_freq, positions, layout="interleaved", rotary_dim=None,
                  attention_factor=1.0):
    """RoPE with angles ``phi_i(p) = p * inv_freq_i`` (sheet A3).

    ``x[..., T, D]``, ``inv_freq[R/2]`` with ``R = rotary_dim or D``.
    ``cos``/``sin`` are both multiplied by ``attention_factor`` (HF
    ``attention_scaling``, ggml ``mscale``); the pass-through channels
    ``[R, D)`` are NOT scaled.
    """
    x = np.asarray(x, dtype=F64)
    R = _rotary_dim(x, rotary_dim)
    inv_freq = np.asarray(inv_freq, dtype=F64)
    if inv_freq.shape != (R // 2,):
        raise ValueError(f"inv_freq must have shape ({R // 2},); got {inv_freq.shape}")
    pos = _positions_for(x, positions).astype(F64)
    angle = pos[..., None] * inv_freq
    af = F64(attention_factor)
    return _rotate_pairs(x, np.cos(angle) * af, np.sin(angle) * af, layout, R)


def rope_cache(x, cos_table, sin_table, positions, layout="interleaved", rotary_dim=None,
               attention_factor=1.0):
    """RoPE with cos/sin gathered from precomputed tables (sheet A3).

    ``cos_table``/``sin_table`` are ``[max_pos, R/2]`` and may hold arbitrary
    values; row ``p`` is used for a token at position ``p``.  Both are
    multiplied by ``attention_factor``; channels ``[R, D)`` pass through.
    """
    x = np.asarray(x, dtype=F64)
    R = _rotary_dim(x, rotary_dim)
    cos_table = np.asarray(cos_table, dtype=F64)
    sin_table = np.asarray(sin_table, dtype=F64)
    for name, t in (("cos_table", cos_table), ("sin_table", sin_table)):
        if t.ndim != 2 or t.shape[1] != R // 2:
            raise ValueError(f"{name} must be [max_pos, {R // 2}]; got {t.shape}")
    pos = _positions_for(x, positions)
    af = F64(attention_factor)
    return _rotate_pairs(x, cos_table[pos] * af, sin_table[pos] * af, layout, R)


def rope_cache_per_token(x, cos_tok, sin_tok, layout="interleaved", rotary_dim=None,
                         attention_factor=1.0):
    """RoPE with one cos/sin row per token (ONNX RotaryEmbedding without
    ``position_ids``): ``cos_tok``/``sin_tok`` are ``[B, T, R/2]`` and token
    ``t`` of batch ``b`` (axis 0 of ``x[B, ..., T, D]``) uses row ``[b, t]``.
    """
    x = np.asarray(x, dtype=F64)
    R = _rotary_dim(x, rotary_dim)
    cos_tok = np.asarray(cos_tok, dtype=F64)
    sin_tok = np.asarray(sin_tok, dtype=F64)
    B, T = x.shape[0], x.shape[-2]
    for name, t in (("cos_tok", cos_tok), ("sin_tok", sin_tok)):
        if t.shape != (B, T, R // 2):
            raise ValueError(f"{name} must be [{B}, {T}, {R // 2}]; got {t.shape}")
    # [B, T, R/2] -> [B, 1, ..., 1, T, R/2] against x[B, ..., T, R/2].
    shape = (B,) + (1,) * (x.ndim - 3) + (T, R // 2)
    af = F64(attention_factor)
    return _rotate_pairs(x, cos_tok.reshape(shape) * af, sin_tok.reshape(shape) * af,
                         layout, R)


# --------------------------------------------------------------------------
# A3/A4. Frequency functions: each returns (inv_freq[R/2], attention_factor)
# --------------------------------------------------------------------------


def _check_R(R):
    if R <= 0 or R % 2:
        raise ValueError(f"rotary dim R must be positive and even; got {R}")


def _base_inv_freq(base, R):
    """``inv_freq_i = base^(-2i/R)``, ``i in [0, R/2)``."""
    _check_R(R)
    return 1.0 / np.power(F64(base), np.arange(0, R, 2, dtype=F64) / R)


def default_freqs(base, R):
    """Plain RoPE (sheet A3): ``inv_freq_i = base^(-2i/R)``; factor 1."""
    return _base_inv_freq(base, R), 1.0


def linear(base, R, factor):
    """Position interpolation (sheet A4.1): ``default / factor``; factor 1."""
    return _base_inv_freq(base, R) / factor, 1.0


def ntk(base, R, factor):
    """Static NTK-aware scaling (sheet A4.2, older HF).

    ``base' = base * factor^(R/(R-2))``; ``inv_freq = base'^(-2i/R)``; factor 1.
    """
    return _base_inv_freq(base * factor ** (R / (R - 2)), R), 1.0


def dynamic_ntk(base, R, factor, max_pos, seq_len=None):
    """Dynamic NTK (sheet A4.3, HF form).

    ``seq_len = max(seq_len, max_pos)`` (``None`` -> ``max_pos``);
    ``base' = base * ((factor*seq_len/max_pos) - (factor-1))^(R/(R-2))``; factor 1.
    """
    seq_len = max_pos if seq_len is None else max(seq_len, max_pos)
    inner = factor * seq_len / max_pos - (factor - 1)
    return _base_inv_freq(base * inner ** (R / (R - 2)), R), 1.0


def yarn_get_mscale(scale, mscale=1.0):
    """``get_mscale(s, m=1) = 1 if s <= 1 else 0.1*m*ln(s) + 1`` (sheet A4.4)."""
    if scale <= 1:
        return 1.0
    return 0.1 * mscale * math.log(scale) + 1.0


def yarn(base, R, factor, original_max_pos, beta_fast=32, beta_slow=1, mscale=None,
         mscale_all_dim=None, attention_factor=None, truncate=True, max_pos=None):
    """YaRN, newest-HF semantics (sheet A4.4).

    * ``factor is None`` -> ``factor = max_pos / original_max_pos``.
    * ``attention_factor``: the given value if not ``None``; else, if
      ``mscale and mscale_all_dim`` (Python truthiness: 0 counts as absent),
      ``get_mscale(factor, mscale) / get_mscale(factor, mscale_all_dim)``;
      else ``get_mscale(factor)``.
    * ``beta_fast = beta_fast or 32``, ``beta_slow = beta_slow or 1``.
    * correction range ``[low, high]`` from
      ``fcd(n) = R*ln(L/(n*2*pi)) / (2*ln(base))`` with ``low = fcd(beta_fast)``,
      ``high = fcd(beta_slow)`` (floor/ceil when ``truncate``), clipped to
      ``[0, R-1]``.
    * ``ramp = clamp((i - low)/(high - low), 0, 1)`` (``high += 0.001`` if equal),
      ``w_extrap = 1 - ramp``;
      ``inv_freq = interp*(1 - w_extrap) + extrap*w_extrap`` with
      ``extrap = base^(-2i/R)``, ``interp = extrap / factor``.
    """
    L = original_max_pos
    if factor is None:
        if max_pos is None:
            raise ValueError("yarn: factor is None and max_pos is not given")
        factor = max_pos / L

    if attention_factor is None:
        if mscale and mscale_all_dim:
            attention_factor = yarn_get_mscale(factor, mscale) / yarn_get_mscale(
                factor, mscale_all_dim)
        else:
            attention_factor = yarn_get_mscale(factor)

    beta_fast = beta_fast or 32
    beta_slow = beta_slow or 1

    def find_correction_dim(num_rotations):
        return R * math.log(L / (num_rotations * 2 * math.pi)) / (2 * math.log(base))

    low = find_correction_dim(beta_fast)
    high = find_correction_dim(beta_slow)
    if truncate:
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, R - 1)

    if low == high:
        high += 0.001  # prevent singularity
    ramp = np.clip((np.arange(R // 2, dtype=F64) - low) / (high - low), 0.0, 1.0)
    w_extrap = 1.0 - ramp

    extrap = _base_inv_freq(base, R)
    interp = extrap / factor
    inv_freq = interp * (1.0 - w_extrap) + extrap * w_extrap
    return inv_freq, float(attention_factor)


def llama3(base, R, factor, low_freq_factor, high_freq_factor, original_max_pos):
    """Llama-3 frequency smoothing (sheet A4.6, HF/vLLM).

    ``wavelen = 2*pi/inv``; ``lw = L/low_freq_factor``, ``hw = L/high_freq_factor``:
    ``wavelen < hw`` -> unchanged, ``wavelen > lw`` -> ``inv/factor``, otherwise
    (medium band) ``(1-smooth)*inv/factor + smooth*inv`` with
    ``smooth = (L/wavelen - low)/(high - low)`` (``smooth = 0`` when
    ``low == high``, as vLLM special-cases).  Attention factor 1.
    """
    L = original_max_pos
    inv = _base_inv_freq(base, R)
    wavelen = 2 * math.pi / inv
    low_wavelen = L / low_freq_factor
    high_wavelen = L / high_freq_factor
    if low_freq_factor != high_freq_factor:
        smooth = (L / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)
    else:
        smooth = np.zeros_like(inv)
    smoothed = (1 - smooth) * inv / factor + smooth * inv
    out = np.where(wavelen > low_wavelen, inv / factor, smoothed)
    out = np.where(wavelen < high_wavelen, inv, out)
    return out, 1.0


def longrope(base, R, short_factor, long_factor, original_max_pos, max_pos, seq_len=None,
             factor=None, attention_factor=None):
    """LongRoPE, newest-HF semantics (sheet A4.5).

    * ``factor = factor or max_pos / L``.
    * ``attention_factor = attention_factor or
      (1 if factor <= 1 else sqrt(1 + ln(factor)/ln(L)))``.
    * ``ext = long_factor if seq_len and seq_len > L else short_factor``.
    * ``inv_freq_i = 1 / (ext_i * base^(2i/R))``.
    """
    L = original_max_pos
    factor = factor or max_pos / L
    if not attention_factor:
        attention_factor = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(L))
    ext = long_factor if (seq_len and seq_len > L) else short_factor
    ext = np.asarray(ext, dtype=F64)
    if ext.shape != (R // 2,):
        raise ValueError(f"longrope factors must have length {R // 2}; got {ext.shape}")
    return _base_inv_freq(base, R) / ext, float(attention_factor)


# --------------------------------------------------------------------------
# A5. ALiBi
# --------------------------------------------------------------------------

ALIBI_DISTANCES = ("symmetric", "signed", "key")


def alibi_slopes(n, max_bias=8.0):
    """ALiBi head slopes, paper recursive form (sheet A5).

    Power of two ``n``: ``start * start^k`` for ``k in [0, n)`` with
    ``start = 2^(-max_bias/n)`` (the paper's ``2^(-2^-(log2 n - 3))`` for
    ``max_bias = 8``).  Otherwise ``c = 2^floor(log2 n)`` and
    ``slopes = slopes(c) + slopes(2c)[0::2][:n-c]``.
    """
    def power_of_2(m):
        start = 2.0 ** (-max_bias / m)
        return [start * start ** k for k in range(m)]

    def get_slopes(m):
        if math.log2(m).is_integer():
            return power_of_2(m)
        c = 2 ** math.floor(math.log2(m))
        return power_of_2(c) + get_slopes(2 * c)[0::2][:m - c]

    return np.array(get_slopes(int(n)), dtype=F64)


def alibi_slopes_ggml(n, max_bias=8.0):
    """ALiBi slopes, ggml closed form (sheet A5).

    ``c = 2^floor(log2 n)``, ``m0 = 2^(-max_bias/c)``, ``m1 = 2^(-(max_bias/2)/c)``;
    ``slope_h = m0^(h+1)`` if ``h < c`` else ``m1^(2(h-c)+1)``.
    """
    c = 2 ** math.floor(math.log2(n))
    m0 = 2.0 ** (-max_bias / c)
    m1 = 2.0 ** (-(max_bias / 2) / c)
    return np.array([m0 ** (h + 1) if h < c else m1 ** (2 * (h - c) + 1) for h in range(n)],
                    dtype=F64)


def alibi_bias(H, Tq, Tk, distance="symmetric", q_offset=0, slopes=None):
    """ALiBi bias ``[H, Tq, Tk] = slope_h * b(i, j)`` (sheet A5).

    Query ``i`` has position ``qi = i + q_offset``; key ``j`` has position ``j``.
    ``symmetric``: ``-|qi - j|`` (llama.cpp); ``signed``: ``j - qi``
    (FlashInfer, attention-gym); ``key``: ``j`` (BLOOM, paper fairseq code).
    ``slopes`` defaults to ``alibi_slopes(H)``.
    """
    slopes = alibi_slopes(H) if slopes is None else np.asarray(slopes, dtype=F64)
    if slopes.shape != (H,):
        raise ValueError(f"slopes must have shape ({H},); got {slopes.shape}")
    qi = (np.arange(Tq, dtype=F64) + q_offset)[:, None]
    j = np.arange(Tk, dtype=F64)[None, :]
    if distance == "symmetric":
        b = -np.abs(qi - j)
    elif distance == "signed":
        b = j - qi
    elif distance == "key":
        b = np.broadcast_to(j, (Tq, Tk))
    else:
        raise ValueError(f"unknown ALiBi distance {distance!r}; use {ALIBI_DISTANCES}")
    return slopes[:, None, None] * b[None, :, :]


# --------------------------------------------------------------------------
# A6. Attention
# --------------------------------------------------------------------------

SOFTCAP_ORDERS = ("before_bias", "after_bias")


def attention(q, k, v, scale=None, causal=False, bias=None, mask=None, softcap=None,
              softcap_order="before_bias", causal_alignment="bottom_right",
              causal_offset=None, kv_lengths=None, window=None, return_lse=False):
    """Scaled dot-product attention with the PE-related knobs (sheet A5/A6).

    ``q[B,H,Tq,D]``, ``k[B,Hkv,Tk,D]``, ``v[B,Hkv,Tk,Dv]`` -> ``[B,H,Tq,Dv]``.

    * GQA: query head ``h`` uses kv head ``h // (H // Hkv)``.
    * ``s = scale * q.k`` (``scale`` defaults to ``1/sqrt(D)``).
    * ``softcap`` (``None``/0 = off): ``s = c*tanh(s/c)`` before adding ``bias``
      (``before_bias``: ggml, ONNX) or after (``after_bias``: FlashInfer).
    * ``bias`` and boolean ``mask`` (True = may attend) broadcast numpy-style
      to ``[B,H,Tq,Tk]``.
    * ``kv_lengths`` (per batch, clamped to ``[0, Tk]``): keys ``j >= L[b]``
      are padding (ONNX ``nonpad_kv_seqlen``); ``L[b] = Tk`` without it.
    * ``causal``: query ``i`` sees key ``j`` iff ``j <= i + o[b]``, where
      ``o[b]`` is ``causal_offset`` (default 0) plus the alignment's base,
      ``L[b] - Tq`` for ``causal_alignment="bottom_right"`` (ONNX
      ``is_causal`` with a cache) or 0 for ``"top_left"`` (PyTorch
      ``is_causal``).
    * ``window`` ``W`` (with ``causal``): also ``j > i + o[b] - W``, the
      ``W`` most recent keys including the query's own position (Mistral).
    * Softmax runs over the allowed keys only.  A key whose final logit is
      ``-inf`` contributes nothing (as ggml skips ``-inf`` mask entries), and a
      row with no allowed key outputs exactly 0 (ONNX, ggml ``S == 0``).
    * NaN and infinities follow IEEE arithmetic into the rows that see them: a
      NaN or +inf logit (from q, k or the bias) makes its row NaN; a NaN or
      infinity in the value row of key ``j`` reaches the rows that see ``j``
      and no other row.
    """
    q = np.asarray(q, dtype=F64)
    k = np.asarray(k, dtype=F64)
    v = np.asarray(v, dtype=F64)
    B, H, Tq, D = q.shape
    Bk, Hkv, Tk, Dk = k.shape
    if (Bk, Dk) != (B, D) or v.shape[:3] != (B, Hkv, Tk):
        raise ValueError(f"incompatible q {q.shape}, k {k.shape}, v {v.shape}")
    if H % Hkv:
        raise ValueError(f"H={H} is not a multiple of Hkv={Hkv}")
    group = H // Hkv
    k = np.repeat(k, group, axis=1)  # head h -> kv head h // group
    v = np.repeat(v, group, axis=1)

    if scale is None:
        scale = 1.0 / math.sqrt(D)
    s = scale * np.einsum("bhqd,bhkd->bhqk", q, k)

    if softcap_order not in SOFTCAP_ORDERS:
        raise ValueError(f"unknown softcap_order {softcap_order!r}; use {SOFTCAP_ORDERS}")
    if softcap and softcap_order == "before_bias":
        s = softcap * np.tanh(s / softcap)
    if bias is not None:
        s = s + np.asarray(bias, dtype=F64)
    if softcap and softcap_order == "after_bias":
        s = softcap * np.tanh(s / softcap)

    i = np.arange(Tq)[None, None, :, None]
    j = np.arange(Tk)[None, None, None, :]
    if kv_lengths is None:
        lengths = np.full(B, Tk, dtype=np.int64)
    else:
        lengths = np.clip(np.asarray(kv_lengths, dtype=np.int64), 0, Tk)
    L = lengths[:, None, None, None]
    allowed = np.broadcast_to(j < L, (B, 1, Tq, Tk))
    if causal:
        extra = 0 if causal_offset is None else int(causal_offset)
        if causal_alignment == "top_left":
            o = np.zeros_like(L) + extra
        elif causal_alignment == "bottom_right":
            o = L - Tq + extra
        else:
            raise ValueError(f"unknown causal_alignment {causal_alignment!r}")
        allowed = allowed & (j <= i + o)
        if window is not None:
            allowed = allowed & (j > i + o - window)
    elif window is not None or causal_offset is not None:
        raise ValueError("window and causal_offset need causal=True")
    if mask is not None:
        allowed = allowed & np.asarray(mask, dtype=bool)
    allowed = np.broadcast_to(allowed, s.shape) & (s != -np.inf)

    # Numerically stable softmax over the allowed keys of each row.
    row_max = np.max(np.where(allowed, s, -np.inf), axis=-1, keepdims=True)
    row_max = np.where(row_max == -np.inf, 0.0, row_max)  # empty rows
    with np.errstate(invalid="ignore"):  # NaN and inf - inf: IEEE, on purpose
        weights = np.where(allowed, np.exp(np.where(allowed, s - row_max, 0.0)), 0.0)
    denom = np.sum(weights, axis=-1, keepdims=True)
    if np.all(np.isfinite(v)):
        out = np.einsum("bhqk,bhkd->bhqd", weights, v)
    else:
        # A key the row does not see adds nothing (not 0 * NaN or 0 * inf):
        # a NaN or infinity in a value row reaches only the rows that see it.
        with np.errstate(invalid="ignore"):
            terms = weights[..., None] * v[:, :, None, :, :]
        out = np.sum(np.where(allowed[..., None], terms, 0.0), axis=3)
    has_key = np.any(allowed, axis=-1, keepdims=True)
    result = np.where(has_key, out / np.where(has_key, denom, 1.0), 0.0)
    if not return_lse:
        return result
    # log sum_j exp(s_ij) over the allowed keys; -inf for an empty row.
    with np.errstate(divide="ignore"):
        lse = np.where(has_key, row_max + np.log(np.where(has_key, denom, 1.0)), -np.inf)
    return result, lse[..., 0]
