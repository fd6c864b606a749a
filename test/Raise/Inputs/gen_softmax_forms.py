#!/usr/bin/env python3
"""Writes softmax_forms.mlir: attention blocks whose softmax is spelled as
frontends emit it other than the max / exp / sum / div of gen_corpus.py,
plus near misses. Run from this directory:

  /usr/bin/python3 gen_softmax_forms.py

* torch-mlir decomposes aten.softmax (DecomposeComplexOps: `aten.max.dim`
  with keepdim, sub, exp, `aten.sum.dim_IntList`, div) and lowers
  aten.max.dim to one linalg.generic with two results, the running maximum
  and its index (TorchToLinalg/Reduction.cpp, ConvertAtenMaxDimOp: a
  -FLT_MAX fill and a zero i64 fill, payload index_cast(linalg.index),
  maximumf, cmpf ogt, select of the index), each result through a
  tensor.cast; only the maximum is used.
* log-sum-exp: exp(log_softmax(s)) with log_softmax(s) = (s - max) -
  log(sum(exp(s - max))) (torch's decomposition of aten._log_softmax), and
  exp(s - (max + log(sum(exp(s - max))))) (a logsumexp subtracted).

q, k, v are [1, H, T, D] arguments; the scores are scaled by 1 / sqrt(D)
and causally masked with masked_fill(j > i, -inf) spelled as an index
comparison.
"""
import math
import os

from gen_corpus import (Emitter, amap, binary, expand, fill, generic, ident,
                        matmul4, transpose, ttype, unary)

HERE = os.path.dirname(os.path.abspath(__file__))
H, T, D = 2, 8, 16


def reduce_last(em, x, shape, init, line, out_et="f32"):
    r = len(shape)
    red = shape[:-1] + [1]
    res = em.fresh()
    its = ", ".join(['"parallel"'] * (r - 1) + ['"reduction"'])
    em.op(f"{res} = linalg.generic {{indexing_maps = [{amap(r, ident(r))}, "
          f"{amap(r, ident(r - 1) + ['0'])}], iterator_types = [{its}]}} "
          f"ins({x} : {ttype(shape)}) outs({init} : {ttype(red)}) {{")
    em.op("^bb0(%in0: f32, %out: f32):")
    em.op(f"  {line}")
    em.op("  linalg.yield %r : f32")
    em.op(f"}} -> {ttype(red)}")
    return res


def max_dim(em, s, shape):
    """aten.max.dim(s, -1, keepdim=True) as ConvertAtenMaxDimOp lowers it."""
    r = len(shape)
    red = shape[:-1] + [1]
    mx = fill(em, red, "-3.40282347E+38")
    ie = em.fresh("e")
    em.op(f"{ie} = tensor.empty() : {ttype(red, 'i64')}")
    z = em.fresh("c")
    em.op(f"{z} = arith.constant 0 : i64")
    idx = em.fresh()
    em.op(f"{idx} = linalg.fill ins({z} : i64) outs({ie} : {ttype(red, 'i64')})"
          f" -> {ttype(red, 'i64')}")
    res = em.fresh("max")
    keep = amap(r, ident(r - 1) + ["0"])
    its = ", ".join(['"parallel"'] * (r - 1) + ['"reduction"'])
    em.op(f"{res}:2 = linalg.generic {{indexing_maps = [{amap(r, ident(r))}, "
          f"{keep}, {keep}], iterator_types = [{its}]}} ins({s} : "
          f"{ttype(shape)}) outs({mx}, {idx} : {ttype(red)}, "
          f"{ttype(red, 'i64')}) {{")
    em.op("^bb0(%in0: f32, %out: f32, %out_idx: i64):")
    em.op(f"  %i = linalg.index {r - 1} : index")
    em.op("  %ii = arith.index_cast %i : index to i64")
    em.op("  %m = arith.maximumf %in0, %out : f32")
    em.op("  %gt = arith.cmpf ogt, %in0, %out : f32")
    em.op("  %sel = arith.select %gt, %ii, %out_idx : i64")
    em.op("  linalg.yield %m, %sel : f32, i64")
    em.op(f"}} -> ({ttype(red)}, {ttype(red, 'i64')})")
    vals = em.fresh()
    em.op(f"{vals} = tensor.cast {res}#0 : {ttype(red)} to {ttype(red)}")
    inds = em.fresh()
    em.op(f"{inds} = tensor.cast {res}#1 : {ttype(red, 'i64')} to "
          f"{ttype(red, 'i64')}")
    return vals


def softmax(em, s, shape, form):
    r = len(shape)
    red = shape[:-1] + [1]
    keep = ident(r - 1) + ["0"]
    if form == "maxdim":
        mx = max_dim(em, s, shape)
    else:
        mx = reduce_last(em, s, shape, fill(em, red, "0xFF800000"),
                         "%r = arith.maximumf %in0, %out : f32")
    sh = binary(em, s, ttype(shape), ident(r), mx, ttype(red), keep, shape,
                "arith.subf")
    ex = unary(em, sh, ttype(shape), ident(r), shape, "math.exp")
    z = reduce_last(em, ex, shape, fill(em, red, "0.000000e+00"),
                    "%r = arith.addf %in0, %out : f32")
    if form in ("maxdim", "plus-one"):
        if form == "plus-one":  # a near miss: exp(x) / (1 + sum exp(x))
            z = generic(em, [(z, ttype(red), ident(r))], red, lambda: ([
                "%one = arith.constant 1.000000e+00 : f32",
                "%r = arith.addf %in0, %one : f32"], "%r"))
        return binary(em, ex, ttype(shape), ident(r), z, ttype(red), keep,
                      shape, "arith.divf")
    lz = unary(em, z, ttype(red), ident(r), red, "math.log")
    if form == "log-softmax":
        ls = binary(em, sh, ttype(shape), ident(r), lz, ttype(red), keep,
                    shape, "arith.subf")
    else:  # s - (max + log(sum))
        lse = binary(em, mx, ttype(red), ident(r), lz, ttype(red), ident(r),
                     red, "arith.addf")
        ls = binary(em, s, ttype(shape), ident(r), lse, ttype(red), keep,
                    shape, "arith.subf")
    return unary(em, ls, ttype(shape), ident(r), shape, "math.exp")


def block(name, form, mask="causal", comment=""):
    em = Emitter()
    shape = [1, H, T, D]
    kt, kts = transpose(em, "%k", shape, [0, 1, 3, 2])
    s, ss = matmul4(em, "%q", shape, kt, kts)
    s = generic(em, [(s, ttype(ss), ident(4))], ss, lambda: ([
        f"%c = arith.constant {1 / math.sqrt(D)!r} : f32",
        "%r = arith.mulf %in0, %c : f32"], "%r"))
    cmp = "sgt" if mask == "causal" else "ne"
    s = generic(em, [(s, ttype(ss), ident(4))], ss, lambda: ([
        "%i = linalg.index 2 : index",
        "%j = linalg.index 3 : index",
        f"%masked = arith.cmpi {cmp}, %j, %i : index",
        "%ninf = arith.constant 0xFF800000 : f32",
        "%r = arith.select %masked, %ninf, %in0 : f32"], "%r"))
    p = softmax(em, s, ss, form)
    o, _ = matmul4(em, p, ss, "%v", shape)
    head = "".join(f"// {line}\n" for line in comment.strip().splitlines())
    t = ttype(shape)
    return (head + f"func.func @{name}(%q: {t}, %k: {t}, %v: {t}) -> {t} {{\n"
            + "\n".join(em.lines) + f"\n  return {o} : {t}\n}}\n")


if __name__ == "__main__":
    text = "// Generated by gen_softmax_forms.py; do not edit.\n"
    text += block("softmax_maxdim", "maxdim", comment="""
torch-mlir's softmax: the two-result max/argmax reduction (only the maximum
is used), exp, sum, div.""")
    text += block("softmax_log", "log-softmax", comment="""
exp(log_softmax(s)): exp((s - max) - log(sum(exp(s - max)))).""")
    text += block("softmax_lse", "lse", comment="""
exp(s - (max + log(sum(exp(s - max))))): a logsumexp subtracted.""")
    text += block("softmax_plus_one", "plus-one", comment="""
Near miss: exp(s - max) / (1 + sum(exp(s - max))) is not a softmax.""")
    text += block("mask_not_causal", "maxdim", mask="ne", comment="""
Near miss: masked_fill(j != i, -inf) is not a causal mask.""")
    with open(os.path.join(HERE, "softmax_forms.mlir"), "w") as f:
        f.write(text)
