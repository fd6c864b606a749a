#!/usr/bin/env python3
"""Writes the pe-raise corpus: attention blocks in linalg-on-tensors IR,
spelled the way torch-mlir's TorchToLinalg lowers Hugging Face models
(linalg.generic elementwise ops with broadcasting indexing maps,
tensor.expand_shape / collapse_shape for view / unsqueeze / reshape,
linalg.batch_matmul for matmul, decomposed softmax, rotate_half as
extract_slice + negf + concat). Run from this directory:

  /usr/bin/python3 gen_corpus.py

Constant frequency tables are written the way the model computes them
(float32), from the formulas of the model's RoPE configuration.
"""
import math
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


class Emitter:
    def __init__(self):
        self.lines = []
        self.n = 0

    def fresh(self, stem="v"):
        self.n += 1
        return f"%{stem}{self.n}"

    def op(self, text):
        self.lines.append("  " + text)


def ttype(shape, et="f32"):
    return "tensor<" + "x".join(str(s) for s in shape) + "x" + et + ">"


def amap(rank, results):
    dims = ", ".join(f"d{i}" for i in range(rank))
    return f"affine_map<({dims}) -> ({', '.join(results)})>"


def ident(rank):
    return [f"d{i}" for i in range(rank)]


def generic(em, ins, out_shape, body, out_et="f32", iterators=None,
            out_map=None, init=None):
    """ins: list of (value, type, map results). body: lambda(args) -> list of
    lines using %in0.. and returning the yielded name."""
    rank = len(out_shape) if iterators is None else len(iterators)
    iterators = iterators or ["parallel"] * rank
    if init is None:
        init = em.fresh("e")
        em.op(f"{init} = tensor.empty() : {ttype(out_shape, out_et)}")
    maps = [amap(rank, m) for (_, _, m) in ins]
    maps.append(amap(rank, out_map or ident(rank)))
    res = em.fresh()
    ins_s = ", ".join(v for (v, _, _) in ins)
    ins_t = ", ".join(t for (_, t, _) in ins)
    its = ", ".join(f'"{i}"' for i in iterators)
    args = ", ".join(f"%in{k}: {ins[k][1].split('x')[-1][:-1]}"
                     for k in range(len(ins)))
    outarg = f"%out: {out_et}"
    em.op(f"{res} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
          f"iterator_types = [{its}]}} "
          + (f"ins({ins_s} : {ins_t}) " if ins else "")
          + f"outs({init} : {ttype(out_shape, out_et)}) {{")
    em.op(f"^bb0({args + ', ' if ins else ''}{outarg}):")
    body_lines, y = body()
    for line in body_lines:
        em.op("  " + line)
    em.op(f"  linalg.yield {y} : {out_et}")
    em.op(f"}} -> {ttype(out_shape, out_et)}")
    return res


def binary(em, a, ta, ma, b, tb, mb, shape, opname, et="f32"):
    return generic(em, [(a, ta, ma), (b, tb, mb)], shape,
                   lambda: ([f"%r = {opname} %in0, %in1 : {et}"], "%r"), et)


def unary(em, a, ta, ma, shape, opname, et="f32"):
    return generic(em, [(a, ta, ma)], shape,
                   lambda: ([f"%r = {opname} %in0 : {et}"], "%r"), et)


def scalar_mul(em, a, ta, shape, c, et="f32"):
    return generic(em, [(a, ta, ident(len(shape)))], shape,
                   lambda: ([f"%c = arith.constant {c!r} : {et}",
                             f"%r = arith.mulf %in0, %c : {et}"], "%r"), et)


def transpose(em, a, shape, perm, named=False):
    out = [shape[p] for p in perm]
    if named:
        init = em.fresh("e")
        em.op(f"{init} = tensor.empty() : {ttype(out)}")
        res = em.fresh()
        em.op(f"{res} = linalg.transpose ins({a} : {ttype(shape)}) "
              f"outs({init} : {ttype(out)}) permutation = "
              f"[{', '.join(str(p) for p in perm)}]")
        return res, out
    # generic: out[d...] = in[inverse perm]
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    res = generic(em, [(a, ttype(shape), [f"d{inv[k]}" for k in range(len(shape))])],
                  out, lambda: ([], "%in0"))
    return res, out


def expand(em, a, shape, assoc, out):
    res = em.fresh()
    em.op(f"{res} = tensor.expand_shape {a} {assoc} output_shape "
          f"[{', '.join(str(s) for s in out)}] : {ttype(shape)} into {ttype(out)}")
    return res


def collapse(em, a, shape, assoc, out):
    res = em.fresh()
    em.op(f"{res} = tensor.collapse_shape {a} {assoc} : {ttype(shape)} into {ttype(out)}")
    return res


def fill(em, shape, value):
    e = em.fresh("e")
    em.op(f"{e} = tensor.empty() : {ttype(shape)}")
    c = em.fresh("c")
    em.op(f"{c} = arith.constant {value} : f32")
    f = em.fresh()
    em.op(f"{f} = linalg.fill ins({c} : f32) outs({e} : {ttype(shape)}) -> {ttype(shape)}")
    return f


def bmm(em, a, ta_shape, b, tb_shape):
    out = [ta_shape[0], ta_shape[1], tb_shape[2]]
    acc = fill(em, out, "0.000000e+00")
    res = em.fresh()
    em.op(f"{res} = linalg.batch_matmul ins({a}, {b} : {ttype(ta_shape)}, "
          f"{ttype(tb_shape)}) outs({acc} : {ttype(out)}) -> {ttype(out)}")
    return res, out


def matmul4(em, a, sa, b, sb):
    """aten.matmul of [B,H,M,K] x [B,H,K,N]: collapse, batch_matmul, expand."""
    ca = collapse(em, a, sa, "[[0, 1], [2], [3]]", [sa[0] * sa[1], sa[2], sa[3]])
    cb = collapse(em, b, sb, "[[0, 1], [2], [3]]", [sb[0] * sb[1], sb[2], sb[3]])
    r, rs = bmm(em, ca, [sa[0] * sa[1], sa[2], sa[3]], cb, [sb[0] * sb[1], sb[2], sb[3]])
    out = [sa[0], sa[1], sa[2], sb[3]]
    return expand(em, r, rs, "[[0, 1], [2], [3]]", out), out


def arange_positions(em, T, start=0):
    """cache_position = arange(start, start + T); position_ids = [1, T]."""
    return generic(em, [], [1, T], lambda: ([
        "%i = linalg.index 1 : index",
        "%ii = arith.index_cast %i : index to i64",
        f"%s = arith.constant {start} : i64",
        "%r = arith.addi %ii, %s : i64"], "%r"), out_et="i64")


def offset_positions(em, T, past):
    """cache_position = arange(past, past + T) with a run-time `past`."""
    return generic(em, [], [1, T], lambda: ([
        "%i = linalg.index 1 : index",
        f"%s = arith.addi %i, {past} : index",
        "%r = arith.index_cast %s : index to i64"], "%r"), out_et="i64")


def rotary_tables(em, inv_freq, positions, T, D, R, scaling=1.0,
                  interleaved=False, sin_inv_freq=None):
    """HF LlamaRotaryEmbedding.forward: freqs = inv_freq[None,:,None] @
    pos[:,None,:].float(), transposed; emb = cat(freqs, freqs) (or
    repeat_interleave for GPT-J style); cos/sin * attention_scaling."""
    h = R // 2
    # position_ids[:, None, :].float()
    posx = generic(em, [(positions, ttype([1, T], "i64"), ["d0", "d2"])],
                   [1, 1, T],
                   lambda: (["%r = arith.sitofp %in0 : i64 to f32"], "%r"))

    def embedding(table):
        cst = em.fresh("invf")
        vals = ", ".join(repr(float(np.float32(v))) for v in table)
        em.op(f"{cst} = arith.constant dense<[{vals}]> : {ttype([h])}")
        # inv_freq[None, :, None].expand(1, -1, 1)
        invx = generic(em, [(cst, ttype([h]), ["d1"])], [1, h, 1],
                       lambda: ([], "%in0"))
        freqs, _ = bmm(em, invx, [1, h, 1], posx, [1, 1, T])
        freqs_t, _ = transpose(em, freqs, [1, h, T], [0, 2, 1])
        if not interleaved:
            emb = em.fresh()
            em.op(f"{emb} = tensor.concat dim(2) {freqs_t}, {freqs_t} : "
                  f"({ttype([1, T, h])}, {ttype([1, T, h])}) -> {ttype([1, T, R])}")
            return emb
        # repeat_interleave(2): unsqueeze, expand, flatten.
        u = expand(em, freqs_t, [1, T, h], "[[0], [1], [2, 3]]", [1, T, h, 1])
        b = generic(em, [(u, ttype([1, T, h, 1]), ["d0", "d1", "d2", "0"])],
                    [1, T, h, 2], lambda: ([], "%in0"))
        return collapse(em, b, [1, T, h, 2], "[[0], [1], [2, 3]]", [1, T, R])

    emb = embedding(inv_freq)
    emb_sin = emb if sin_inv_freq is None else embedding(sin_inv_freq)
    cos = unary(em, emb, ttype([1, T, R]), ident(3), [1, T, R], "math.cos")
    sin = unary(em, emb_sin, ttype([1, T, R]), ident(3), [1, T, R], "math.sin")
    cos = scalar_mul(em, cos, ttype([1, T, R]), [1, T, R], float(np.float32(scaling)))
    sin = scalar_mul(em, sin, ttype([1, T, R]), [1, T, R], float(np.float32(scaling)))
    # unsqueeze(1): [1, 1, T, R]
    cos = expand(em, cos, [1, T, R], "[[0, 1], [2], [3]]", [1, 1, T, R])
    sin = expand(em, sin, [1, T, R], "[[0, 1], [2], [3]]", [1, 1, T, R])
    return cos, sin


def rotate_half(em, x, shape, R, mutation=None):
    h = R // 2
    pre = shape[:-1]
    hs = pre + [h]
    x1 = em.fresh()
    x2 = em.fresh()
    off = ", ".join("0" for _ in pre)
    sizes = ", ".join(str(s) for s in pre)
    ones = ", ".join("1" for _ in shape)
    em.op(f"{x1} = tensor.extract_slice {x}[{off}, 0] [{sizes}, {h}] [{ones}] : "
          f"{ttype(shape)} to {ttype(hs)}")
    em.op(f"{x2} = tensor.extract_slice {x}[{off}, {h}] [{sizes}, {h}] [{ones}] : "
          f"{ttype(shape)} to {ttype(hs)}")
    if mutation == "sign":  # cat(x2, -x1): the negation on the wrong half
        first, second = x2, unary(em, x1, ttype(hs), ident(len(hs)), hs,
                                  "arith.negf")
    elif mutation == "swap":  # cat(x1, -x2): the halves swapped
        first, second = x1, unary(em, x2, ttype(hs), ident(len(hs)), hs,
                                  "arith.negf")
    else:  # cat(-x2, x1)
        first, second = unary(em, x2, ttype(hs), ident(len(hs)), hs,
                              "arith.negf"), x1
    r = em.fresh()
    em.op(f"{r} = tensor.concat dim({len(shape) - 1}) {first}, {second} : "
          f"({ttype(hs)}, {ttype(hs)}) -> {ttype(pre + [R])}")
    return r


def apply_rope_half(em, x, shape, cos, sin, R, mutation=None):
    """(x * cos) + (rotate_half(x) * sin) with cos/sin [1, 1, T, R]."""
    r = len(shape)
    bmap = ["0", "0", "d2", "d3"]
    rot = rotate_half(em, x, shape, R, mutation)
    a = binary(em, x, ttype(shape), ident(r), cos, ttype([1, 1, shape[2], R]),
               bmap, shape, "arith.mulf")
    b = binary(em, rot, ttype(shape), ident(r), sin, ttype([1, 1, shape[2], R]),
               bmap, shape, "arith.mulf")
    return binary(em, a, ttype(shape), ident(r), b, ttype(shape), ident(r),
                  shape, "arith.addf")


def repeat_kv(em, x, shape, g):
    """[B, Hkv, T, D] -> [B, Hkv * g, T, D]: x[:, :, None].expand().reshape()."""
    B, Hk, T, D = shape
    if g == 1:
        return x
    u = expand(em, x, shape, "[[0], [1, 2], [3], [4]]", [B, Hk, 1, T, D])
    b = generic(em, [(u, ttype([B, Hk, 1, T, D]), ["d0", "d1", "0", "d3", "d4"])],
                [B, Hk, g, T, D], lambda: ([], "%in0"))
    return collapse(em, b, [B, Hk, g, T, D], "[[0], [1, 2], [3], [4]]",
                    [B, Hk * g, T, D])


def emit_softmax(em, s, shape, wrong_dim=False):
    """Over the last dimension, or (wrong_dim) over the one before it."""
    r = len(shape)
    red = shape[:-1] + [1]
    keep = ident(r - 1) + ["0"]
    if wrong_dim:
        red = shape[:-2] + [1, shape[-1]]
        keep = ident(r - 2) + ["0", f"d{r - 1}"]

    def reduction(src, init, line):
        res = em.fresh()
        maps = [amap(r, ident(r)), amap(r, keep)]
        its = ['"parallel"'] * r
        its[r - 2 if wrong_dim else r - 1] = '"reduction"'
        its = ", ".join(its)
        em.op(f"{res} = linalg.generic {{indexing_maps = [{', '.join(maps)}], "
              f"iterator_types = [{its}]}} ins({src} : {ttype(shape)}) "
              f"outs({init} : {ttype(red)}) {{")
        em.op("^bb0(%in0: f32, %out: f32):")
        em.op(f"  {line}")
        em.op("  linalg.yield %r : f32")
        em.op(f"}} -> {ttype(red)}")
        return res

    mx = reduction(s, fill(em, red, "0xFF800000"),
                   "%r = arith.maximumf %in0, %out : f32")
    sub = binary(em, s, ttype(shape), ident(r), mx, ttype(red), keep, shape,
                 "arith.subf")
    ex = unary(em, sub, ttype(shape), ident(r), shape, "math.exp")
    sm = reduction(ex, fill(em, red, "0.000000e+00"),
                   "%r = arith.addf %in0, %out : f32")
    return binary(em, ex, ttype(shape), ident(r), sm, ttype(red), keep, shape,
                  "arith.divf")


def llama3_inv_freq(base, R, factor, low, high, L):
    inv = 1.0 / base ** (np.arange(0, R, 2, dtype=np.float64) / R)
    wl = 2 * math.pi / inv
    lw, hw = L / low, L / high
    out = np.where(wl > lw, inv / factor, inv)
    smooth = (L / wl - low) / (high - low)
    med = (1 - smooth) * out / factor + smooth * out
    is_med = (wl >= hw) & (wl <= lw)
    return np.where(is_med, med, out).astype(np.float32)


def causal_mask(em, T):
    """full((T, T), finfo.min).triu(1)[None, None]: an additive mask."""
    return generic(em, [], [1, 1, T, T], lambda: ([
        "%i = linalg.index 2 : index",
        "%j = linalg.index 3 : index",
        "%above = arith.cmpi sgt, %j, %i : index",
        "%min = arith.constant -3.40282347E+38 : f32",
        "%zero = arith.constant 0.000000e+00 : f32",
        "%r = arith.select %above, %min, %zero : f32"], "%r"))


def partial_rope(em, x, shape, cos, sin, R):
    """cat(rope(x[..., :R]), x[..., R:]) (GPT-NeoX rotary_ndims)."""
    if R == shape[-1]:
        return apply_rope_half(em, x, shape, cos, sin, R)
    pre = shape[:-1]
    off = ", ".join("0" for _ in pre)
    sizes = ", ".join(str(v) for v in pre)
    ones = ", ".join("1" for _ in shape)
    rot, pas = em.fresh(), em.fresh()
    em.op(f"{rot} = tensor.extract_slice {x}[{off}, 0] [{sizes}, {R}] [{ones}] : "
          f"{ttype(shape)} to {ttype(pre + [R])}")
    em.op(f"{pas} = tensor.extract_slice {x}[{off}, {R}] [{sizes}, {shape[-1] - R}] "
          f"[{ones}] : {ttype(shape)} to {ttype(pre + [shape[-1] - R])}")
    r = apply_rope_half(em, rot, pre + [R], cos, sin, R)
    out = em.fresh()
    em.op(f"{out} = tensor.concat dim({len(shape) - 1}) {r}, {pas} : "
          f"({ttype(pre + [R])}, {ttype(pre + [shape[-1] - R])}) -> {ttype(shape)}")
    return out


def llama_block(name, B, H, Hkv, T, D, inv_freq, scaling=1.0, mask_arg=True,
                comment="", positions="arg", mutation=None, causal=False,
                rotary=None):
    em = Emitter()
    qs, ks = [B, T, H * D], [B, T, Hkv * D]
    args = [f"%q_proj: {ttype(qs)}", f"%k_proj: {ttype(ks)}",
            f"%v_proj: {ttype(ks)}"]
    if positions == "arg":
        args.append(f"%position_ids: {ttype([B, T], 'i64')}")
    if mask_arg:
        args.append(f"%attention_mask: {ttype([B, 1, T, T])}")
    out_t = ttype([B, T, H * D])
    head = [f"// {line}" for line in comment.strip().splitlines()]
    # view + transpose(1, 2)
    q = expand(em, "%q_proj", qs, "[[0], [1], [2, 3]]", [B, T, H, D])
    k = expand(em, "%k_proj", ks, "[[0], [1], [2, 3]]", [B, T, Hkv, D])
    v = expand(em, "%v_proj", ks, "[[0], [1], [2, 3]]", [B, T, Hkv, D])
    q, qsh = transpose(em, q, [B, T, H, D], [0, 2, 1, 3], named=True)
    k, ksh = transpose(em, k, [B, T, Hkv, D], [0, 2, 1, 3])
    v, vsh = transpose(em, v, [B, T, Hkv, D], [0, 2, 1, 3], named=True)
    pos = "%position_ids" if positions == "arg" else arange_positions(em, T)
    R = rotary or D
    cos, sin = rotary_tables(em, inv_freq, pos, T, D, R, scaling)
    q = partial_rope(em, q, qsh, cos, sin, R)
    k = partial_rope(em, k, ksh, cos, sin, R)
    g = H // Hkv
    k = repeat_kv(em, k, ksh, g)
    v = repeat_kv(em, v, vsh, g)
    kt, kts = transpose(em, k, [B, H, T, D], [0, 1, 3, 2])
    s, ss = matmul4(em, q, [B, H, T, D], kt, kts)
    s = scalar_mul(em, s, ttype(ss), ss, float(np.float32(D ** -0.5)))
    if mask_arg:
        s = binary(em, s, ttype(ss), ident(4), "%attention_mask",
                   ttype([B, 1, T, T]), ["d0", "0", "d2", "d3"], ss, "arith.addf")
    if causal:
        m = causal_mask(em, T)
        s = binary(em, s, ttype(ss), ident(4), m, ttype([1, 1, T, T]),
                   ["0", "0", "d2", "d3"], ss, "arith.addf")
    p = emit_softmax(em, s, ss, wrong_dim=mutation == "softmax-dim")
    o, osh = matmul4(em, p, ss, v, [B, H, T, D])
    o, osh = transpose(em, o, osh, [0, 2, 1, 3])
    out = collapse(em, o, osh, "[[0], [1], [2, 3]]", [B, T, H * D])
    text = "\n".join(head) + "\n" if head else ""
    text += f"func.func @{name}({', '.join(args)}) -> {out_t} {{\n"
    text += "\n".join(em.lines) + "\n"
    text += f"  return {out} : {out_t}\n}}\n"
    return text


def yarn_inv_freq(base, R, factor, original, beta_fast=32.0, beta_slow=1.0):
    """Hugging Face _compute_yarn_parameters (truncate=True)."""
    def fcd(n):
        return R * math.log(original / (n * 2 * math.pi)) / (2 * math.log(base))
    low = max(math.floor(fcd(beta_fast)), 0)
    high = min(math.ceil(fcd(beta_slow)), R - 1)
    if low == high:
        high += 0.001
    pos = base ** (np.arange(0, R, 2, dtype=np.float64) / R)
    extrap, interp = 1.0 / pos, 1.0 / (factor * pos)
    ramp = np.clip((np.arange(R // 2) - low) / (high - low), 0, 1)
    w = 1 - ramp
    return (interp * (1 - w) + extrap * w).astype(np.float32), \
        0.1 * math.log(factor) + 1.0


def rope_only(name, H, T, D, mutation=None, comment="", inv=None, scaling=1.0):
    """x : [1, H, T, D] rotated with default frequencies (base 10000) at
    positions 0..T-1; the mutations are near misses."""
    em = Emitter()
    shape = [1, H, T, D]
    if inv is None:
        inv = (1.0 / 10000.0 ** (np.arange(0, D, 2) / D)).astype(np.float32)
    other = None
    if mutation == "sin-freq":
        other = (1.0 / 20000.0 ** (np.arange(0, D, 2) / D)).astype(np.float32)
    pos = (offset_positions(em, T, "%past") if mutation == "decode"
           else arange_positions(em, T))
    cos, sin = rotary_tables(em, inv, pos, T, D, D, sin_inv_freq=other,
                             scaling=scaling)
    out = apply_rope_half(em, "%x", shape, cos, sin, D,
                          mutation if mutation in ("sign", "swap") else None)
    head = "".join(f"// {line}\n" for line in comment.strip().splitlines())
    extra = ", %past: index" if mutation == "decode" else ""
    return (head + f"func.func @{name}(%x: {ttype(shape)}{extra}) -> {ttype(shape)} {{\n"
            + "\n".join(em.lines) + f"\n  return {out} : {ttype(shape)}\n}}\n")


def rope_table_args(name, H, T, D):
    """apply_rotary_pos_emb(x, cos, sin) alone: cos/sin [1, T, D] are
    arguments (unsqueezed to [1, 1, T, D])."""
    em = Emitter()
    shape = [1, H, T, D]
    cos = expand(em, "%cos", [1, T, D], "[[0, 1], [2], [3]]", [1, 1, T, D])
    sin = expand(em, "%sin", [1, T, D], "[[0, 1], [2], [3]]", [1, 1, T, D])
    out = apply_rope_half(em, "%x", shape, cos, sin, D)
    return (f"func.func @{name}(%x: {ttype(shape)}, %cos: {ttype([1, T, D])}, "
            f"%sin: {ttype([1, T, D])}) -> {ttype(shape)} {{\n"
            + "\n".join(em.lines) + f"\n  return {out} : {ttype(shape)}\n}}\n")


def gptj_block(name, B, H, T, D, R, P, comment=""):
    """Hugging Face GPTJAttention (eager): rotary on [B, T, H, D] with the
    rows of the constant sinusoid table embed_positions gathered by
    position_ids, sin/cos repeat_interleave'd, rotate_every_two on the first
    R channels, then an additive mask and softmax attention."""
    em = Emitter()
    h = R // 2
    qs = [B, T, H * D]
    args = [f"%q_proj: {ttype(qs)}", f"%k_proj: {ttype(qs)}",
            f"%v_proj: {ttype(qs)}", f"%position_ids: {ttype([B, T], 'i64')}",
            f"%attention_mask: {ttype([B, 1, T, T])}"]
    inv = 1.0 / 10000 ** (np.arange(0, R, 2, dtype=np.int64) / R)
    inp = np.einsum("i,j->ij", np.arange(P, dtype=np.float64), inv)
    table = np.concatenate([np.sin(inp), np.cos(inp)], axis=1).astype(np.float32)
    tab = em.fresh("embed_positions")
    rows = ", ".join("[" + ", ".join(repr(float(v)) for v in row) + "]"
                     for row in table)
    em.op(f"{tab} = arith.constant dense<[{rows}]> : {ttype([P, R])}")
    # sincos = embed_positions[position_ids]: a gather.
    sincos = generic(em, [("%position_ids", ttype([B, T], "i64"), ["d0", "d1"])],
                     [B, T, R], lambda: ([
                         "%p = arith.index_cast %in0 : i64 to index",
                         "%c = linalg.index 2 : index",
                         f"%r = tensor.extract {tab}[%p, %c] : {ttype([P, R])}"],
                         "%r"))
    halves = []
    for off in (0, h):
        sl = em.fresh()
        em.op(f"{sl} = tensor.extract_slice {sincos}[0, 0, {off}] [{B}, {T}, {h}] "
              f"[1, 1, 1] : {ttype([B, T, R])} to {ttype([B, T, h])}")
        # repeat_interleave(sin[:, :, None, :], 2, 3)
        u = expand(em, sl, [B, T, h], "[[0], [1], [2, 3, 4]]", [B, T, 1, h, 1])
        bc = generic(em, [(u, ttype([B, T, 1, h, 1]), ["d0", "d1", "d2", "d3", "0"])],
                     [B, T, 1, h, 2], lambda: ([], "%in0"))
        halves.append(collapse(em, bc, [B, T, 1, h, 2], "[[0], [1], [2], [3, 4]]",
                               [B, T, 1, R]))
    sin, cos = halves

    def rope(x):
        shape = [B, T, H, D]
        rot, pas = em.fresh(), em.fresh()
        em.op(f"{rot} = tensor.extract_slice {x}[0, 0, 0, 0] [{B}, {T}, {H}, {R}] "
              f"[1, 1, 1, 1] : {ttype(shape)} to {ttype([B, T, H, R])}")
        em.op(f"{pas} = tensor.extract_slice {x}[0, 0, 0, {R}] [{B}, {T}, {H}, {D - R}] "
              f"[1, 1, 1, 1] : {ttype(shape)} to {ttype([B, T, H, D - R])}")
        rs = [B, T, H, R]
        hs = [B, T, H, h]
        x1, x2 = em.fresh(), em.fresh()
        em.op(f"{x1} = tensor.extract_slice {rot}[0, 0, 0, 0] [{B}, {T}, {H}, {h}] "
              f"[1, 1, 1, 2] : {ttype(rs)} to {ttype(hs)}")
        em.op(f"{x2} = tensor.extract_slice {rot}[0, 0, 0, 1] [{B}, {T}, {H}, {h}] "
              f"[1, 1, 1, 2] : {ttype(rs)} to {ttype(hs)}")
        n = unary(em, x2, ttype(hs), ident(4), hs, "arith.negf")
        # stack((-x2, x1), -1).flatten(-2)
        a = expand(em, n, hs, "[[0], [1], [2], [3, 4]]", hs + [1])
        b = expand(em, x1, hs, "[[0], [1], [2], [3, 4]]", hs + [1])
        st = em.fresh()
        em.op(f"{st} = tensor.concat dim(4) {a}, {b} : ({ttype(hs + [1])}, "
              f"{ttype(hs + [1])}) -> {ttype(hs + [2])}")
        every_two = collapse(em, st, hs + [2], "[[0], [1], [2], [3, 4]]", rs)
        bmap = ["d0", "d1", "0", "d3"]
        xc = binary(em, rot, ttype(rs), ident(4), cos, ttype([B, T, 1, R]), bmap,
                    rs, "arith.mulf")
        xs = binary(em, every_two, ttype(rs), ident(4), sin, ttype([B, T, 1, R]),
                    bmap, rs, "arith.mulf")
        y = binary(em, xc, ttype(rs), ident(4), xs, ttype(rs), ident(4), rs,
                   "arith.addf")
        out = em.fresh()
        em.op(f"{out} = tensor.concat dim(3) {y}, {pas} : ({ttype(rs)}, "
              f"{ttype([B, T, H, D - R])}) -> {ttype(shape)}")
        return out

    q = rope(expand(em, "%q_proj", qs, "[[0], [1], [2, 3]]", [B, T, H, D]))
    k = rope(expand(em, "%k_proj", qs, "[[0], [1], [2, 3]]", [B, T, H, D]))
    v = expand(em, "%v_proj", qs, "[[0], [1], [2, 3]]", [B, T, H, D])
    q, _ = transpose(em, q, [B, T, H, D], [0, 2, 1, 3])
    k, _ = transpose(em, k, [B, T, H, D], [0, 2, 1, 3], named=True)
    v, _ = transpose(em, v, [B, T, H, D], [0, 2, 1, 3])
    kt, kts = transpose(em, k, [B, H, T, D], [0, 1, 3, 2])
    s, ss = matmul4(em, q, [B, H, T, D], kt, kts)
    # attn_weights / scale_attn
    s = generic(em, [(s, ttype(ss), ident(4))], ss, lambda: (
        [f"%c = arith.constant {float(np.float32(math.sqrt(D)))!r} : f32",
         "%r = arith.divf %in0, %c : f32"], "%r"))
    s = binary(em, s, ttype(ss), ident(4), "%attention_mask", ttype([B, 1, T, T]),
               ["d0", "0", "d2", "d3"], ss, "arith.addf")
    p = emit_softmax(em, s, ss)
    o, osh = matmul4(em, p, ss, v, [B, H, T, D])
    o, osh = transpose(em, o, osh, [0, 2, 1, 3])
    out = collapse(em, o, osh, "[[0], [1], [2, 3]]", [B, T, H * D])
    head = "".join(f"// {line}\n" for line in comment.strip().splitlines())
    return (head + f"func.func @{name}({', '.join(args)}) -> {ttype(qs)} {{\n"
            + "\n".join(em.lines) + f"\n  return {out} : {ttype(qs)}\n}}\n")


def alibi_slopes_paper(n):
    """The ALiBi paper's get_slopes (BLOOM's build_alibi_tensor agrees)."""
    def pow2(m):
        start = 2 ** (-2 ** -(math.log2(m) - 3))
        return [start * start ** k for k in range(m)]
    if math.log2(n).is_integer():
        return pow2(n)
    c = 2 ** math.floor(math.log2(n))
    return pow2(c) + alibi_slopes_paper(2 * c)[0::2][:n - c]


def mpt_slopes(n, alibi_bias_max=8):
    """MPT gen_slopes."""
    m = 2 ** math.ceil(math.log2(n))
    s = 1.0 / 2 ** (np.arange(1, m + 1) * (alibi_bias_max / m))
    if m != n:
        s = np.concatenate([s[1::2], s[::2]])[:n]
    return list(s)


def bloom_block(name, B, H, T, D, comment="", mask_arg=False):
    """Hugging Face BloomAttention (eager): heads merged into the batch
    ([B * H, T, D]), alibi = slopes[h] * key position as [B * H, 1, T],
    scores = alibi.baddbmm(q, k, alpha = 1/sqrt(D)), + the causal mask
    (computed in the model), softmax, bmm with V, heads split back."""
    em = Emitter()
    qs = [B, T, H * D]
    args = [f"%q_proj: {ttype(qs)}", f"%k_proj: {ttype(qs)}",
            f"%v_proj: {ttype(qs)}"]
    if mask_arg:
        args.append(f"%attention_mask: {ttype([B, 1, T, T])}")
    q = expand(em, "%q_proj", qs, "[[0], [1], [2, 3]]", [B, T, H, D])
    k = expand(em, "%k_proj", qs, "[[0], [1], [2, 3]]", [B, T, H, D])
    v = expand(em, "%v_proj", qs, "[[0], [1], [2, 3]]", [B, T, H, D])
    q, _ = transpose(em, q, [B, T, H, D], [0, 2, 1, 3])
    k, _ = transpose(em, k, [B, T, H, D], [0, 2, 3, 1], named=True)
    v, _ = transpose(em, v, [B, T, H, D], [0, 2, 1, 3])
    q3 = collapse(em, q, [B, H, T, D], "[[0, 1], [2], [3]]", [B * H, T, D])
    k3 = collapse(em, k, [B, H, D, T], "[[0, 1], [2], [3]]", [B * H, D, T])
    v3 = collapse(em, v, [B, H, T, D], "[[0, 1], [2], [3]]", [B * H, T, D])
    sl = em.fresh("slopes")
    vals = ", ".join(repr(float(np.float32(x))) for x in alibi_slopes_paper(H))
    em.op(f"{sl} = arith.constant dense<[{vals}]> : {ttype([H])}")
    # arange_tensor [B, 1, T] (all tokens valid), alibi = slopes[..., None] * it
    ar = generic(em, [], [B, 1, T], lambda: ([
        "%i = linalg.index 2 : index",
        "%ii = arith.index_cast %i : index to i64",
        "%r = arith.sitofp %ii : i64 to f32"], "%r"))
    al = binary(em, sl, ttype([H]), ["d1"], ar, ttype([B, 1, T]),
                ["d0", "0", "d2"], [B, H, T], "arith.mulf")
    al = collapse(em, al, [B, H, T], "[[0, 1], [2]]", [B * H, T])
    al = expand(em, al, [B * H, T], "[[0], [1, 2]]", [B * H, 1, T])
    sc, ss3 = bmm(em, q3, [B * H, T, D], k3, [B * H, D, T])
    sc = scalar_mul(em, sc, ttype(ss3), ss3, float(np.float32(1 / math.sqrt(D))))
    sc = binary(em, al, ttype([B * H, 1, T]), ["d0", "0", "d2"], sc, ttype(ss3),
                ident(3), ss3, "arith.addf")
    ss = [B, H, T, T]
    sc = expand(em, sc, ss3, "[[0, 1], [2], [3]]", ss)
    if mask_arg:
        sc = binary(em, sc, ttype(ss), ident(4), "%attention_mask",
                    ttype([B, 1, T, T]), ["d0", "0", "d2", "d3"], ss,
                    "arith.addf")
    else:
        m = causal_mask(em, T)
        sc = binary(em, sc, ttype(ss), ident(4), m, ttype([1, 1, T, T]),
                    ["0", "0", "d2", "d3"], ss, "arith.addf")
    p = emit_softmax(em, sc, ss)
    p3 = collapse(em, p, ss, "[[0, 1], [2], [3]]", ss3)
    o, os3 = bmm(em, p3, ss3, v3, [B * H, T, D])
    o = expand(em, o, os3, "[[0, 1], [2], [3]]", [B, H, T, D])
    o, osh = transpose(em, o, [B, H, T, D], [0, 2, 1, 3])
    out = collapse(em, o, osh, "[[0], [1], [2, 3]]", qs)
    head = "".join(f"// {line}\n" for line in comment.strip().splitlines())
    return (head + f"func.func @{name}({', '.join(args)}) -> {ttype(qs)} {{\n"
            + "\n".join(em.lines) + f"\n  return {out} : {ttype(qs)}\n}}\n")


def mpt_block(name, B, H, T, D, comment=""):
    """MPT scaled_multihead_dot_product_attention: q [B, H, T, D],
    k [B, H, D, T]; scores * softmax_scale + alibi_bias with
    alibi_bias = slopes[h] * arange(1 - T, 1)[j] ([1, H, 1, T]); the causal
    mask as masked_fill(~tril, finfo.min); softmax; P V."""
    em = Emitter()
    qs = [B, T, H * D]
    args = [f"%q_proj: {ttype(qs)}", f"%k_proj: {ttype(qs)}",
            f"%v_proj: {ttype(qs)}"]
    q = expand(em, "%q_proj", qs, "[[0], [1], [2, 3]]", [B, T, H, D])
    k = expand(em, "%k_proj", qs, "[[0], [1], [2, 3]]", [B, T, H, D])
    v = expand(em, "%v_proj", qs, "[[0], [1], [2, 3]]", [B, T, H, D])
    q, _ = transpose(em, q, [B, T, H, D], [0, 2, 1, 3], named=True)
    k, _ = transpose(em, k, [B, T, H, D], [0, 2, 3, 1])
    v, _ = transpose(em, v, [B, T, H, D], [0, 2, 1, 3], named=True)
    s, ss = matmul4(em, q, [B, H, T, D], k, [B, H, D, T])
    s = scalar_mul(em, s, ttype(ss), ss, float(np.float32(1 / math.sqrt(D))))
    sl = em.fresh("slopes")
    vals = ", ".join(repr(float(np.float32(x))) for x in mpt_slopes(H))
    em.op(f"{sl} = arith.constant dense<[[[[{vals}]]]]> : {ttype([1, 1, 1, H])}")
    sl = generic(em, [(sl, ttype([1, 1, 1, H]), ["d0", "d2", "d3", "d1"])],
                 [1, H, 1, 1], lambda: ([], "%in0"))
    ar = generic(em, [], [1, 1, 1, T], lambda: ([
        "%i = linalg.index 3 : index",
        "%ii = arith.index_cast %i : index to i32",
        f"%o = arith.constant {1 - T} : i32",
        "%r = arith.addi %ii, %o : i32"], "%r"), out_et="i32")
    bias = generic(em, [(ar, ttype([1, 1, 1, T], "i32"), ["0", "0", "0", "d3"]),
                        (sl, ttype([1, H, 1, 1]), ["0", "d1", "0", "0"])],
                   [1, H, 1, T], lambda: ([
                       "%f = arith.sitofp %in0 : i32 to f32",
                       "%r = arith.mulf %f, %in1 : f32"], "%r"))
    s = binary(em, s, ttype(ss), ident(4), bias, ttype([1, H, 1, T]),
               ["0", "d1", "0", "d3"], ss, "arith.addf")
    s = generic(em, [(s, ttype(ss), ident(4))], ss, lambda: ([
        "%i = linalg.index 2 : index",
        "%j = linalg.index 3 : index",
        "%above = arith.cmpi ugt, %j, %i : index",
        "%min = arith.constant -3.40282347E+38 : f32",
        "%r = arith.select %above, %min, %in0 : f32"], "%r"))
    p = emit_softmax(em, s, ss)
    o, osh = matmul4(em, p, ss, v, [B, H, T, D])
    o, osh = transpose(em, o, osh, [0, 2, 1, 3])
    out = collapse(em, o, osh, "[[0], [1], [2, 3]]", qs)
    head = "".join(f"// {line}\n" for line in comment.strip().splitlines())
    return (head + f"func.func @{name}({', '.join(args)}) -> {ttype(qs)} {{\n"
            + "\n".join(em.lines) + f"\n  return {out} : {ttype(qs)}\n}}\n")


def gather_rows(em, table, tshape, index, ishape, out_shape):
    """table[index[b, t], c] as TorchToLinalg lowers an embedding lookup."""
    return generic(em, [(index, ttype(ishape, "i64"), ["d0", "d1"])], out_shape,
                   lambda: ([
                       "%p = arith.index_cast %in0 : i64 to index",
                       "%c = linalg.index 2 : index",
                       f"%r = tensor.extract {table}[%p, %c] : {ttype(tshape)}"],
                       "%r"))


def sinusoid_table(P, C, layout, base=10000.0):
    pos = np.arange(P, dtype=np.float64)[:, None]
    if layout == "interleaved":
        k = np.arange(C) // 2
        ang = pos / base ** (2 * k / C)
        t = np.where(np.arange(C) % 2 == 0, np.sin(ang), np.cos(ang))
    else:
        h = C // 2
        w = np.exp(-np.arange(h) * math.log(base) / (h - 1))
        t = np.concatenate([np.sin(pos * w), np.cos(pos * w)], axis=1)
    return t.astype(np.float32)


def absolute_embed(name, kind, T=8, C=32, V=50, P=16, comment=""):
    """inputs_embeds = wte[input_ids] (+ * sqrt(C) for the sinusoidal
    transformer), plus rows of a position table: GPT-2's learned wpe at
    arange(T) positions, or a constant sinusoid table at position_ids."""
    em = Emitter()
    args = [f"%input_ids: {ttype([1, T], 'i64')}", f"%wte: {ttype([V, C])}"]
    if kind == "learned":
        args.append(f"%wpe: {ttype([P, C])}")
        table = "%wpe"
        pos = arange_positions(em, T)
    else:
        args.append(f"%position_ids: {ttype([1, T], 'i64')}")
        table = em.fresh("pe_table")
        rows = ", ".join("[" + ", ".join(repr(float(v)) for v in row) + "]"
                         for row in sinusoid_table(P, C, kind))
        em.op(f"{table} = arith.constant dense<[{rows}]> : {ttype([P, C])}")
        pos = "%position_ids"
    x = gather_rows(em, "%wte", [V, C], "%input_ids", [1, T], [1, T, C])
    if kind != "learned":
        x = scalar_mul(em, x, ttype([1, T, C]), [1, T, C],
                       float(np.float32(math.sqrt(C))))
    pe = gather_rows(em, table, [P, C], pos, [1, T], [1, T, C])
    out = binary(em, x, ttype([1, T, C]), ident(3), pe, ttype([1, T, C]),
                 ident(3), [1, T, C], "arith.addf")
    head = "".join(f"// {line}\n" for line in comment.strip().splitlines())
    return (head + f"func.func @{name}({', '.join(args)}) -> {ttype([1, T, C])} {{\n"
            + "\n".join(em.lines) + f"\n  return {out} : {ttype([1, T, C])}\n}}\n")


def write(fname, text):
    with open(os.path.join(HERE, fname), "w") as f:
        f.write("// Generated by gen_corpus.py; do not edit.\n" + text)


if __name__ == "__main__":
    write("llama3_block.mlir", llama_block(
        "llama3_block", 1, 4, 2, 8, 64,
        llama3_inv_freq(500000.0, 64, 8.0, 1.0, 4.0, 8192),
        comment="""
Llama-3.1 attention (Hugging Face LlamaAttention, eager) as torch-mlir's
TorchToLinalg lowers it: q/k/v projections viewed as [B, T, heads, D] and
transposed, LlamaRotaryEmbedding computed from position_ids and the constant
llama3-scaled inv_freq (base 500000, factor 8, low 1, high 4, original 8192),
apply_rotary_pos_emb with rotate_half, repeat_kv (4 query heads over 2 KV
heads), Q K^T * D^-0.5 + attention_mask, softmax(dim=-1) decomposed, P V,
transposed back and reshaped to [B, T, H * D]. B = 1, T = 8, D = 64.
"""))
    write("llama3_block_arange.mlir", llama_block(
        "llama3_block_arange", 1, 4, 2, 8, 64,
        llama3_inv_freq(500000.0, 64, 8.0, 1.0, 4.0, 8192),
        positions="arange", mask_arg=False, causal=True,
        comment="""
llama3_block.mlir with the positions and the causal mask computed in the
model (Hugging Face's cache_position = arange(T), position_ids =
cache_position[None], and full((T, T), finfo.min).triu(1) added to the
scores) instead of passed in.
"""))
    write("llama3_bench.mlir", llama_block(
        "llama3_bench", 1, 8, 8, 2048, 128,
        llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192),
        positions="arange", mask_arg=False, causal=True,
        comment="""
The W2 benchmark workload (bench/workloads/w2_llama3_attention.mlir) as
torch-mlir spells it, with the causal mask computed in the model: H = 8,
T = 2048, D = 128.
"""))
    negatives = ""
    for mutation, what in [
            (None, "the correct rotation (raised)"),
            ("sign", "rotate_half as cat(x2, -x1): the negation on the wrong half"),
            ("swap", "rotate_half as cat(x1, -x2): the halves swapped"),
            ("sin-freq", "sin of positions times another frequency table than cos")]:
        negatives += rope_only(f"rope_{(mutation or 'ok').replace('-', '_')}",
                               2, 4, 16, mutation, what) + "\n"
    write("rope_near_misses.mlir", negatives)
    write("rope_decode.mlir", rope_only("rope_decode", 2, 1, 16, "decode",
        comment="""
A decode step: one token at position past + 0, past a run-time index (the
KV cache length), default frequencies.
""") + rope_only("rope_chunk", 2, 4, 16, "decode", comment="""
A chunk of 4 tokens at positions past .. past + 3.
"""))
    rng = np.random.default_rng(7)
    yarn, mscale = yarn_inv_freq(1000000.0, 64, 4.0, 32768)
    tables = [
        ("default", "default frequencies, base 10000", None, 1.0),
        ("linear", "linear scaling, base 10000, factor 4",
         (1.0 / 10000.0 ** (np.arange(0, 64, 2) / 64) / 4.0).astype(np.float32), 1.0),
        ("yarn", "Qwen2-style YaRN: base 1e6, factor 4, original 32768, "
         "cos and sin times 0.1 ln 4 + 1", yarn, mscale),
        ("unknown", "a table no frequency op computes (kept as a constant)",
         np.sort(rng.uniform(0.001, 1.0, 32))[::-1].astype(np.float32), 1.0),
    ]
    text = ""
    for tag, what, inv, scale in tables:
        text += rope_only(f"rope_{tag}", 2, 4, 64 if inv is not None else 16,
                          comment=what, inv=inv, scaling=scale) + "\n"
    write("rope_frequencies.mlir", text)
    write("rope_table_args.mlir", rope_table_args("rope_table_args", 2, 4, 16))
    write("gptj_block.mlir", gptj_block("gptj_block", 1, 2, 6, 16, 8, 32, comment="""
GPT-J attention (Hugging Face GPTJAttention, eager) as TorchToLinalg lowers
it: rotary_dim 8 of head_dim 16, interleaved (rotate_every_two: strided
slices, negate, stack, flatten), sin/cos rows of the constant sinusoid table
embed_positions [32, 8] gathered by position_ids and repeat_interleave'd,
rotation on [B, T, H, D] before the transpose; Q K^T / sqrt(D) + mask,
softmax, P V. B = 1, H = 2, T = 6.
"""))
    write("neox_block.mlir", llama_block(
        "neox_block", 1, 2, 2, 6, 16,
        (1.0 / 10000.0 ** (np.arange(0, 4, 2) / 4)).astype(np.float32),
        rotary=4, comment="""
GPT-NeoX attention (Hugging Face GPTNeoXAttention, eager): split-half
rotary on rotary_ndims = 0.25 * head_dim = 4 of 16 channels (q[..., :4]
rotated, q[..., 4:] passed through and concatenated back), default
frequencies (base 10000), multi-head. B = 1, H = 2, T = 6.
"""))
    write("bloom_block.mlir", bloom_block("bloom_block", 1, 6, 5, 16, comment="""
BLOOM attention (Hugging Face BloomAttention, eager) as TorchToLinalg lowers
it: heads merged into the batch, ALiBi built by build_alibi_tensor (slopes
of 6 heads times the key position, all tokens valid) added by baddbmm, the
causal mask full(finfo.min).triu(1) added, softmax, bmm. B = 1, H = 6,
T = 5, D = 16.
"""))
    write("bloom_block_mask.mlir", bloom_block(
        "bloom_block_mask", 1, 6, 5, 16, mask_arg=True, comment="""
bloom_block.mlir with the (causal and padding) mask passed in as an additive
[B, 1, T, T] argument, as Hugging Face's BloomModel hands it to each layer.
"""))
    write("mpt_block.mlir", mpt_block("mpt_block", 1, 4, 6, 16, comment="""
MPT attention (scaled_multihead_dot_product_attention with alibi): slopes
from gen_slopes(4, 8) times arange(1 - T, 1) added to the scaled scores,
causal masked_fill with finfo.min, softmax, P V. B = 1, H = 4, T = 6, D = 16.
"""))
    text = absolute_embed("gpt2_embed", "learned", comment="""
GPT-2 embeddings (Hugging Face GPT2Model): wte[input_ids] +
wpe[arange(T)], both lookups lowered to gathers (tensor.extract in a
linalg.generic).
""") + "\n"
    text += absolute_embed("transformer_embed", "interleaved", comment="""
The Vaswani et al. transformer embedding: wte[input_ids] * sqrt(C) + a
constant interleaved sinusoid table (base 10000, 16 rows) at position_ids.
""") + "\n"
    text += absolute_embed("t2t_embed", "concat", comment="""
tensor2tensor / fairseq layout: a constant [sin | cos] table (no padding
row) at position_ids, embeddings scaled by sqrt(C).
""")
    write("absolute_embed.mlir", text)
    yarn64, mscale64 = yarn_inv_freq(1000000.0, 64, 4.0, 32768)
    write("qwen2_yarn_block.mlir", llama_block(
        "qwen2_yarn_block", 1, 4, 2, 8, 64, yarn64, scaling=mscale64,
        comment="""
Qwen2 attention with YaRN rope_scaling (factor 4 over 32768, base 1e6): the
Llama block with the YaRN inv_freq table and cos/sin multiplied by the
attention factor 0.1 ln 4 + 1; GQA 4 over 2 heads. B = 1, T = 8, D = 64.
"""))
    write("attention_softmax_dim.mlir", llama_block(
        "softmax_wrong_dim", 1, 2, 2, 4, 16,
        (1.0 / 10000.0 ** (np.arange(0, 16, 2) / 16)).astype(np.float32),
        positions="arange", mutation="softmax-dim",
        comment="""
A Llama block whose softmax normalises over the queries (dimension 2)
instead of the keys: the rotary embeddings raise, the attention must not.
"""))
