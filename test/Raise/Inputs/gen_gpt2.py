#!/usr/bin/env python3
"""Writes a GPT-2-small-shaped model (Hugging Face GPT2Model, eager
attention) in the linalg-on-tensors IR that torch-mlir's TorchToLinalg
emits, for pe-raise's compile-time tests:

  /usr/bin/python3 gen_gpt2.py --layers N [--seq T] [--hidden C]
      [--heads H] [--vocab V] [--positions P] [--mask select|buffer]
      [-o out.mlir]

The spelling follows the TorchToLinalg conventions of gen_corpus.py's
helpers (used here): Conv1D's `addmm(b, x, W)` as `linalg.fill` +
`linalg.matmul` on the flattened [B * T, C] activations (torch.aten.mm
lowers to linalg.matmul: llvm/torch-mlir
test/Conversion/TorchToLinalg/linear.mlir) plus a broadcasting
`linalg.generic` addf of the bias (addmm decomposed into mm + add; not
checked against a torch-mlir GPT-2 dump);
`split` of c_attn into q, k, v is `tensor.extract_slice`; `view` +
`permute` are `tensor.expand_shape` + a transposing generic; matmuls of
rank-4 operands collapse to `linalg.batch_matmul` and expand back;
LayerNorm is the decomposition of aten.native_layer_norm (mean, centred
square, mean, + eps, rsqrt, * weight + bias, each a generic); gelu_new is
one generic with math.tanh in its payload; the attention divides the scores
by sqrt(D) and masks them with `where(causal, w, finfo.min)`.

--mask select spells the causal mask as an index comparison inside the
masked_fill generic (what torch-mlir emits for a mask built from aranges);
--mask buffer reads GPT-2's registered boolean buffer `bias` (tril of ones,
[1, 1, P, P] i1, a constant of the program: keep --positions small) sliced
to [:, :, :T, :T]; --mask buffer-arg passes that buffer as an argument;
--mask buffer-window makes it a sliding window of 4 keys (a near miss).

Weights are function arguments (B = 1). The function returns the final
LayerNorm's output.
"""
import argparse
import math
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_corpus import (Emitter, amap, binary, collapse, emit_softmax,  # noqa: E402
                        expand, gather_rows, generic, ident, matmul4,
                        arange_positions, transpose, ttype)


def linear(em, x, T, cin, cout, w, b):
    """Conv1D: x.view(-1, cin), addmm(b, x, W), .view(1, T, cout)."""
    x = collapse(em, x, [1, T, cin], "[[0, 1], [2]]", [T, cin])
    e = em.fresh("e")
    em.op(f"{e} = tensor.empty() : {ttype([T, cout])}")
    z = em.fresh("c")
    em.op(f"{z} = arith.constant 0.000000e+00 : f32")
    f = em.fresh()
    em.op(f"{f} = linalg.fill ins({z} : f32) outs({e} : {ttype([T, cout])}) "
          f"-> {ttype([T, cout])}")
    m = em.fresh()
    em.op(f"{m} = linalg.matmul ins({x}, {w} : {ttype([T, cin])}, "
          f"{ttype([cin, cout])}) outs({f} : {ttype([T, cout])}) -> "
          f"{ttype([T, cout])}")
    y = binary(em, m, ttype([T, cout]), ident(2), b, ttype([cout]), ["d1"],
               [T, cout], "arith.addf")
    return expand(em, y, [T, cout], "[[0, 1], [2]]", [1, T, cout])


def reduce_last(em, x, shape, line):
    """sum / max over the last dimension, keepdim."""
    r = len(shape)
    red = shape[:-1] + [1]
    e = em.fresh("e")
    em.op(f"{e} = tensor.empty() : {ttype(red)}")
    z = em.fresh("c")
    em.op(f"{z} = arith.constant 0.000000e+00 : f32")
    f = em.fresh()
    em.op(f"{f} = linalg.fill ins({z} : f32) outs({e} : {ttype(red)}) -> "
          f"{ttype(red)}")
    res = em.fresh()
    its = ", ".join(['"parallel"'] * (r - 1) + ['"reduction"'])
    em.op(f"{res} = linalg.generic {{indexing_maps = [{amap(r, ident(r))}, "
          f"{amap(r, ident(r - 1) + ['0'])}], iterator_types = [{its}]}} "
          f"ins({x} : {ttype(shape)}) outs({f} : {ttype(red)}) {{")
    em.op("^bb0(%in0: f32, %out: f32):")
    em.op(f"  {line}")
    em.op("  linalg.yield %r : f32")
    em.op(f"}} -> {ttype(red)}")
    return res


def layer_norm(em, x, T, C, g, b, eps=1e-5):
    shape = [1, T, C]
    keep = ["d0", "d1", "0"]
    red = [1, T, 1]
    i3 = ident(3)

    def mean(v):
        s = reduce_last(em, v, shape, "%r = arith.addf %in0, %out : f32")
        return generic(em, [(s, ttype(red), i3)], red, lambda: ([
            f"%n = arith.constant {float(C)!r} : f32",
            "%r = arith.divf %in0, %n : f32"], "%r"))

    mu = mean(x)
    xc = binary(em, x, ttype(shape), i3, mu, ttype(red), keep, shape,
                "arith.subf")
    sq = binary(em, xc, ttype(shape), i3, xc, ttype(shape), i3, shape,
                "arith.mulf")
    var = mean(sq)
    rs = generic(em, [(var, ttype(red), i3)], red, lambda: ([
        f"%eps = arith.constant {eps:.6e} : f32",
        "%a = arith.addf %in0, %eps : f32",
        "%r = math.rsqrt %a : f32"], "%r"))
    y = binary(em, xc, ttype(shape), i3, rs, ttype(red), keep, shape,
               "arith.mulf")
    y = binary(em, y, ttype(shape), i3, g, ttype([C]), ["d2"], shape,
               "arith.mulf")
    return binary(em, y, ttype(shape), i3, b, ttype([C]), ["d2"], shape,
                  "arith.addf")


def gelu_new(em, x, shape):
    """0.5 * x * (1 + tanh(sqrt(2 / pi) * (x + 0.044715 * x^3)))."""
    k = math.sqrt(2.0 / math.pi)
    return generic(em, [(x, ttype(shape), ident(len(shape)))], shape, lambda: ([
        "%half = arith.constant 5.000000e-01 : f32",
        "%one = arith.constant 1.000000e+00 : f32",
        "%c = arith.constant 4.471500e-02 : f32",
        f"%k = arith.constant {k!r} : f32",
        "%x2 = arith.mulf %in0, %in0 : f32",
        "%x3 = arith.mulf %x2, %in0 : f32",
        "%a = arith.mulf %c, %x3 : f32",
        "%s = arith.addf %in0, %a : f32",
        "%t0 = arith.mulf %k, %s : f32",
        "%t = math.tanh %t0 : f32",
        "%u = arith.addf %one, %t : f32",
        "%h = arith.mulf %half, %in0 : f32",
        "%r = arith.mulf %h, %u : f32"], "%r"))


def causal_where(em, s, shape, mask, P):
    """torch.where(causal, s, finfo.min) on [1, H, T, T] scores."""
    T = shape[-1]
    if mask == "select":
        return generic(em, [(s, ttype(shape), ident(4))], shape, lambda: ([
            "%i = linalg.index 2 : index",
            "%j = linalg.index 3 : index",
            "%keep = arith.cmpi sle, %j, %i : index",
            "%min = arith.constant -3.40282347E+38 : f32",
            "%r = arith.select %keep, %in0, %min : f32"], "%r"))
    buf = "%causal_buffer"
    sl = em.fresh()
    em.op(f"{sl} = tensor.extract_slice {buf}[0, 0, 0, 0] [1, 1, {T}, {T}] "
          f"[1, 1, 1, 1] : {ttype([1, 1, P, P], 'i1')} to "
          f"{ttype([1, 1, T, T], 'i1')}")
    return generic(em, [(sl, ttype([1, 1, T, T], "i1"), ["0", "0", "d2", "d3"]),
                        (s, ttype(shape), ident(4))], shape, lambda: ([
                            "%min = arith.constant -3.40282347E+38 : f32",
                            "%r = arith.select %in0, %in1, %min : f32"], "%r"))


def attention(em, x, T, C, H, wq, bq, wo, bo, mask, P):
    D = C // H
    qkv = linear(em, x, T, C, 3 * C, wq, bq)
    heads = []
    for part in range(3):
        sl = em.fresh()
        em.op(f"{sl} = tensor.extract_slice {qkv}[0, 0, {part * C}] "
              f"[1, {T}, {C}] [1, 1, 1] : {ttype([1, T, 3 * C])} to "
              f"{ttype([1, T, C])}")
        v = expand(em, sl, [1, T, C], "[[0], [1], [2, 3]]", [1, T, H, D])
        v, _ = transpose(em, v, [1, T, H, D], [0, 2, 1, 3])
        heads.append(v)
    q, k, v = heads
    kt, kts = transpose(em, k, [1, H, T, D], [0, 1, 3, 2])
    s, ss = matmul4(em, q, [1, H, T, D], kt, kts)
    s = generic(em, [(s, ttype(ss), ident(4))], ss, lambda: ([
        f"%d = arith.constant {math.sqrt(D)!r} : f32",
        "%r = arith.divf %in0, %d : f32"], "%r"))
    s = causal_where(em, s, ss, mask, P)
    p = emit_softmax(em, s, ss)
    o, osh = matmul4(em, p, ss, v, [1, H, T, D])
    o, osh = transpose(em, o, osh, [0, 2, 1, 3])
    o = collapse(em, o, osh, "[[0], [1], [2, 3]]", [1, T, C])
    return linear(em, o, T, C, C, wo, bo)


def gpt2(layers, T, C, H, V, P, mask):
    em = Emitter()
    args = [f"%input_ids: {ttype([1, T], 'i64')}", f"%wte: {ttype([V, C])}",
            f"%wpe: {ttype([P, C])}"]
    if mask == "buffer-arg":
        args.append(f"%causal_buffer: {ttype([1, 1, P, P], 'i1')}")
    if mask in ("buffer", "buffer-window"):
        # buffer-window: a sliding window of 4 keys (not causal).
        w = P if mask == "buffer" else 4
        rows = ", ".join("[" + ", ".join("true" if i - w < j <= i else "false"
                                         for j in range(P)) + "]"
                         for i in range(P))
        em.op(f"%causal_buffer = arith.constant dense<[[[{rows}]]]> : "
              f"{ttype([1, 1, P, P], 'i1')}")
    tok = gather_rows(em, "%wte", [V, C], "%input_ids", [1, T], [1, T, C])
    pos = gather_rows(em, "%wpe", [P, C], arange_positions(em, T), [1, T],
                      [1, T, C])
    h = binary(em, tok, ttype([1, T, C]), ident(3), pos, ttype([1, T, C]),
               ident(3), [1, T, C], "arith.addf")
    for l in range(layers):
        names = ["ln1_g", "ln1_b", "attn_w", "attn_b", "proj_w", "proj_b",
                 "ln2_g", "ln2_b", "fc_w", "fc_b", "mlp_w", "mlp_b"]
        shapes = [[C], [C], [C, 3 * C], [3 * C], [C, C], [C], [C], [C],
                  [C, 4 * C], [4 * C], [4 * C, C], [C]]
        w = {n: f"%l{l}_{n}" for n in names}
        args += [f"{w[n]}: {ttype(s)}" for n, s in zip(names, shapes)]
        a = layer_norm(em, h, T, C, w["ln1_g"], w["ln1_b"])
        a = attention(em, a, T, C, H, w["attn_w"], w["attn_b"], w["proj_w"],
                      w["proj_b"], mask, P)
        h = binary(em, h, ttype([1, T, C]), ident(3), a, ttype([1, T, C]),
                   ident(3), [1, T, C], "arith.addf")
        m = layer_norm(em, h, T, C, w["ln2_g"], w["ln2_b"])
        m = linear(em, m, T, C, 4 * C, w["fc_w"], w["fc_b"])
        m = gelu_new(em, m, [1, T, 4 * C])
        m = linear(em, m, T, 4 * C, C, w["mlp_w"], w["mlp_b"])
        h = binary(em, h, ttype([1, T, C]), ident(3), m, ttype([1, T, C]),
                   ident(3), [1, T, C], "arith.addf")
    args += [f"%lnf_g: {ttype([C])}", f"%lnf_b: {ttype([C])}"]
    out = layer_norm(em, h, T, C, "%lnf_g", "%lnf_b")
    head = (f"// GPT-2 ({layers} layers, hidden {C}, {H} heads, T = {T}) in "
            f"TorchToLinalg's spelling; generated by gen_gpt2.py.\n")
    return (head + f"func.func @gpt2({', '.join(args)}) -> {ttype([1, T, C])} "
            "{\n" + "\n".join(em.lines) +
            f"\n  return {out} : {ttype([1, T, C])}\n}}\n")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--layers", type=int, default=12)
    ap.add_argument("--seq", type=int, default=16)
    ap.add_argument("--hidden", type=int, default=768)
    ap.add_argument("--heads", type=int, default=12)
    ap.add_argument("--vocab", type=int, default=50257)
    ap.add_argument("--positions", type=int, default=1024)
    ap.add_argument("--mask", default="select",
                    choices=["select", "buffer", "buffer-arg", "buffer-window"])
    ap.add_argument("-o", "--output", default="-")
    a = ap.parse_args()
    text = gpt2(a.layers, a.seq, a.hidden, a.heads, a.vocab, a.positions,
                a.mask)
    if a.output == "-":
        sys.stdout.write(text)
    else:
        with open(a.output, "w") as f:
            f.write(text)
