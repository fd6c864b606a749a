#!/usr/bin/env python3
"""Writes hf_forms.mlir: Hugging Face forms that torch-mlir's TorchToLinalg
emits once the frontend has folded torch.arange into constants. Run from
this directory:

  /usr/bin/python3 gen_hf_forms.py

* llama_hf_mask: a Llama block (LlamaAttention, eager, helpers of
  gen_corpus.py) whose position_ids are a constant `dense<[[0, ..., T-1]]>`
  and whose mask is built as `_prepare_4d_causal_attention_mask_with_
  cache_position` builds it: `full((T, T), finfo.min)`, `triu(diagonal=1)`
  (a select on j - i >= 1), `*= arange(T) > cache_position.reshape(-1, 1)`
  with both aranges constants (the bool multiplied in as uitofp), then
  `[None, None]` and added to the scores.
* llama_hf_mask_shifted: the same with `cache_position` = arange(2, T + 2):
  the mask applies where both triu and the comparison hold, j > i + 2 (a
  top-left causal offset of 2).
* rope_arange_from_5 / rope_even_positions: a rotation at constant
  position_ids, arange(5, 13) (a static offset) and [0, 2, ..., 14] (not an
  arange: a positions tensor).
* token_residual: `embed[ids] + x`, a token-embedding residual (x an
  argument): must not be raised as an absolute encoding.
"""
import math
import os

import numpy as np

from gen_corpus import (Emitter, binary, collapse, emit_softmax, expand, fill,
                        gather_rows, generic, ident, llama3_inv_freq, matmul4,
                        partial_rope, rotary_tables, scalar_mul, transpose,
                        ttype)

HERE = os.path.dirname(os.path.abspath(__file__))


def const_arange(em, shape, start=0):
    vals = "[" + ", ".join(str(start + i) for i in range(shape[-1])) + "]"
    for _ in shape[:-1]:
        vals = f"[{vals}]"
    c = em.fresh("arange")
    em.op(f"{c} = arith.constant dense<{vals}> : {ttype(shape, 'i64')}")
    return c


def hf_causal_mask(em, T, cache_start=0):
    full = fill(em, [T, T], "-3.40282347E+38")
    triu = generic(em, [(full, ttype([T, T]), ident(2))], [T, T], lambda: ([
        "%i = linalg.index 0 : index",
        "%j = linalg.index 1 : index",
        "%d = arith.subi %j, %i : index",
        "%one = arith.constant 1 : index",
        "%keep = arith.cmpi sge, %d, %one : index",
        "%zero = arith.constant 0.000000e+00 : f32",
        "%r = arith.select %keep, %in0, %zero : f32"], "%r"))
    ar = const_arange(em, [T])
    cp = const_arange(em, [T], cache_start)
    cp2 = em.fresh()
    em.op(f"{cp2} = tensor.expand_shape {cp} [[0, 1]] output_shape [{T}, 1] "
          f": {ttype([T], 'i64')} into {ttype([T, 1], 'i64')}")
    gt = generic(em, [(ar, ttype([T], "i64"), ["d1"]),
                      (cp2, ttype([T, 1], "i64"), ["d0", "0"])], [T, T],
                 lambda: (["%r = arith.cmpi sgt, %in0, %in1 : i64"], "%r"),
                 out_et="i1")
    m = generic(em, [(triu, ttype([T, T]), ident(2)),
                     (gt, ttype([T, T], "i1"), ident(2))], [T, T], lambda: ([
                         "%b = arith.uitofp %in1 : i1 to f32",
                         "%r = arith.mulf %in0, %b : f32"], "%r"))
    return expand(em, m, [T, T], "[[0, 1, 2], [3]]", [1, 1, T, T])


def llama_hf(name, H, T, D, cache_start=0, comment="", inv=None):
    em = Emitter()
    shape = [1, T, H * D]
    args = [f"%q_proj: {ttype(shape)}", f"%k_proj: {ttype(shape)}",
            f"%v_proj: {ttype(shape)}"]
    heads = []
    for x in ("%q_proj", "%k_proj", "%v_proj"):
        y = expand(em, x, shape, "[[0], [1], [2, 3]]", [1, T, H, D])
        y, _ = transpose(em, y, [1, T, H, D], [0, 2, 1, 3])
        heads.append(y)
    q, k, v = heads
    pos = const_arange(em, [1, T])
    if inv is None:
        inv = (1.0 / 10000.0 ** (np.arange(0, D, 2) / D)).astype(np.float32)
    cos, sin = rotary_tables(em, inv, pos, T, D, D)
    hs = [1, H, T, D]
    q = partial_rope(em, q, hs, cos, sin, D)
    k = partial_rope(em, k, hs, cos, sin, D)
    kt, kts = transpose(em, k, hs, [0, 1, 3, 2])
    s, ss = matmul4(em, q, hs, kt, kts)
    s = scalar_mul(em, s, ttype(ss), ss, float(np.float32(D ** -0.5)))
    mask = hf_causal_mask(em, T, cache_start)
    s = binary(em, s, ttype(ss), ident(4), mask, ttype([1, 1, T, T]),
               ["0", "0", "d2", "d3"], ss, "arith.addf")
    p = emit_softmax(em, s, ss)
    o, osh = matmul4(em, p, ss, v, hs)
    o, osh = transpose(em, o, osh, [0, 2, 1, 3])
    out = collapse(em, o, osh, "[[0], [1], [2, 3]]", shape)
    head = "".join(f"// {line}\n" for line in comment.strip().splitlines())
    return (head + f"func.func @{name}({', '.join(args)}) -> {ttype(shape)} {{\n"
            + "\n".join(em.lines) + f"\n  return {out} : {ttype(shape)}\n}}\n")


def rope_const_positions(name, positions, H=2, D=16, comment=""):
    """x [1, H, T, D] rotated at constant position_ids [1, T]."""
    em = Emitter()
    T = len(positions)
    shape = [1, H, T, D]
    pos = em.fresh("position_ids")
    em.op(f"{pos} = arith.constant dense<[[{', '.join(map(str, positions))}]]>"
          f" : {ttype([1, T], 'i64')}")
    inv = (1.0 / 10000.0 ** (np.arange(0, D, 2) / D)).astype(np.float32)
    cos, sin = rotary_tables(em, inv, pos, T, D, D)
    out = partial_rope(em, "%x", shape, cos, sin, D)
    head = "".join(f"// {line}\n" for line in comment.strip().splitlines())
    return (head + f"func.func @{name}(%x: {ttype(shape)}) -> {ttype(shape)} "
            "{\n" + "\n".join(em.lines) +
            f"\n  return {out} : {ttype(shape)}\n}}\n")


def token_residual(name, T=8, C=32, V=50):
    em = Emitter()
    tok = gather_rows(em, "%embed", [V, C], "%ids", [1, T], [1, T, C])
    out = binary(em, tok, ttype([1, T, C]), ident(3), "%x", ttype([1, T, C]),
                 ident(3), [1, T, C], "arith.addf")
    return (f"// embed[ids] + x: a token-embedding residual, not a position "
            f"encoding.\nfunc.func @{name}(%ids: {ttype([1, T], 'i64')}, "
            f"%embed: {ttype([V, C])}, %x: {ttype([1, T, C])}) -> "
            f"{ttype([1, T, C])} {{\n" + "\n".join(em.lines) +
            f"\n  return {out} : {ttype([1, T, C])}\n}}\n")


if __name__ == "__main__":
    text = "// Generated by gen_hf_forms.py; do not edit.\n"
    text += llama_hf("llama_hf_mask", 2, 8, 16, comment="""
Llama block, constant arange positions, HF's 4-D causal mask.""")
    text += llama_hf("llama_hf_mask_shifted", 2, 8, 16, cache_start=2,
                     comment="""
The same with cache_position = arange(2, T + 2): masked where both hold, j > i + 2.""")
    text += rope_const_positions("rope_arange_from_5", list(range(5, 13)),
                                 comment="position_ids = arange(5, 13) folded.")
    text += rope_const_positions("rope_even_positions", list(range(0, 16, 2)),
                                 comment="""
position_ids = [0, 2, ..., 14]: not an arange, read as a positions tensor.""")
    text += token_residual("token_residual")
    with open(os.path.join(HERE, "hf_forms.mlir"), "w") as f:
        f.write(text)
    # The W2 benchmark workload (bench/workloads/w2_llama3_attention.mlir) in
    # Hugging Face's own spelling, for bench/raise-benchmark.sh.
    bench = "// Generated by gen_hf_forms.py; do not edit.\n" + llama_hf(
        "llama_hf_bench", 8, 2048, 128,
        inv=llama3_inv_freq(500000.0, 128, 8.0, 1.0, 4.0, 8192),
        comment="""
W2 (Llama-3.1 RoPE, causal attention, H = 8, T = 2048, D = 128) as Hugging
Face writes it: position_ids a constant arange, the 4-D causal mask
triu(full(min), 1) * (arange_j > cache_position_i) added to the scores.""")
    with open(os.path.join(HERE, "llama_hf_bench.mlir"), "w") as f:
        f.write(bench)
