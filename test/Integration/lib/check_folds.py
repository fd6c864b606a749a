#!/usr/bin/env python3
"""Checks constants folded by `pe-opt --canonicalize` against pe_ref.py.

Usage: pe-opt TEST.mlir --canonicalize | check_folds.py TEST.mlir

TEST.mlir holds lines `// VALUES: @func = EXPR`, where EXPR is a Python
expression over the pe_ref module (imported as `ref`) that evaluates to
(inv_freq, attention_factor). Each such function must return an inv_freq
constant and an f32 constant after folding; both are compared with EXPR in
float64, with a tolerance of one rounding to the result element type
(relative 2^-23 for f32, 2^-51 for f64). Prints
`check_folds: N passed, M failed` and exits 1 on any failure.
"""

import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pe_ref as ref  # noqa: E402

FLOAT = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|inf|nan|0x[0-9A-Fa-f]+)"


def parse_funcs(ir):
    """Maps function name -> body text."""
    funcs = {}
    for m in re.finditer(r"func\.func @(\w+)\(.*?\n(.*?)\n  }", ir, re.S):
        funcs[m.group(1)] = m.group(2)
    return funcs


def parse_constants(body):
    """Returns {ssa name: (values, element type)} of the arith.constants."""
    consts = {}
    for m in re.finditer(
            r"(%[\w]+) = arith\.constant dense<(.*?)> : tensor<(\d+)x(f32|f64)>",
            body):
        text, n = m.group(2), int(m.group(3))
        vals = [float(v) for v in re.findall(FLOAT, text)]
        if not text.startswith("["):
            vals = vals * n  # splat
        consts[m.group(1)] = (np.array(vals), m.group(4))
    for m in re.finditer(r"(%[\w]+) = arith\.constant (" + FLOAT + r") : (f32|f64)\b",
                         body):
        consts[m.group(1)] = (np.array([float(m.group(2))]), m.group(3))
    return consts


def main():
    src = open(sys.argv[1]).read()
    ir = sys.stdin.read()
    funcs = parse_funcs(ir)
    refs = re.findall(r"^// VALUES: @(\w+) = (.*)$", src, re.M)
    passed = failed = 0
    for name, expr in refs:
        body = funcs.get(name)
        ret = re.search(r"return (%\w+), (%\w+)", body or "")
        if body is None or ret is None:
            print(f"FAIL @{name}: function or return not found")
            failed += 1
            continue
        if "pe." in body:
            print(f"FAIL @{name}: a pe op was not folded:\n{body}")
            failed += 1
            continue
        consts = parse_constants(body)
        inv, inv_t = consts.get(ret.group(1), (None, None))
        af, af_t = consts.get(ret.group(2), (None, None))
        if inv is None or af is None:
            print(f"FAIL @{name}: results are not constants:\n{body}")
            failed += 1
            continue
        want_inv, want_af = eval(expr, {"ref": ref, "np": np})
        want_inv = np.asarray(want_inv, dtype=np.float64)
        tol = {"f32": 2.0**-23, "f64": 2.0**-51}
        ok = inv.shape == want_inv.shape and np.all(
            np.abs(inv - want_inv) <= tol[inv_t] * np.abs(want_inv))
        ok = ok and abs(af[0] - want_af) <= tol[af_t] * abs(want_af)
        if ok:
            passed += 1
        else:
            failed += 1
            print(f"FAIL @{name}: {expr}\n  folded   {inv.tolist()} {af[0]}\n"
                  f"  expected {want_inv.tolist()} {want_af}")
    print(f"check_folds: {passed} passed, {failed} failed")
    sys.exit(1 if failed or not refs else 0)


if __name__ == "__main__":
    main()
