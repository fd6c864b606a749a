#!/usr/bin/env python3
"""Property checks on pe-run outputs (test/Integration/CPU/prop_*.mlir).

Usage:
  props.py norm DIR X.npy OUT.npy LAYOUT R
      RoPE is a rotation: every rotated pair (x[2i], x[2i+1]) (interleaved) or
      (x[i], x[i+R/2]) (half) of OUT has the norm of the same pair of X, the
      channels [R, D) are unchanged, and so is the norm of every head vector.
      Also requires OUT != X on the rotated channels (a no-op would pass the
      norm checks).
  props.py relative DIR Q0 K0 Q1 K1 [Q2 K2 ...] --other QX KX
      <RoPE(q, m), RoPE(k, n)> depends only on n - m: the per-token dot
      products of every (Qi, Ki) pair of outputs (rotated at offsets with the
      same difference) agree; and those of the (QX, KX) pair, at another
      difference, do not (else the property would hold for a no-op).
  props.py differ DIR A.npy B.npy BOUND
      max |A - B| > BOUND: the test that uses BOUND can tell A from B.

Prints `props: PASS ...` or `props: FAIL ...`; exits 1 on failure.
"""

import os
import sys

import numpy as np


def load(d, name):
    return np.load(os.path.join(d, name), allow_pickle=False).astype(np.float64)


def pairs(x, layout, R):
    if layout == "interleaved":
        return x[..., 0:R:2], x[..., 1:R:2]
    if layout == "half":
        return x[..., : R // 2], x[..., R // 2 : R]
    raise SystemExit(f"props: unknown layout {layout}")


def finish(ok, what, detail):
    print(f"props: {'PASS' if ok else 'FAIL'} {what} {detail}")
    return 0 if ok else 1


def norm(d, xname, outname, layout, R):
    x, out = load(d, xname), load(d, outname)
    R = int(R)
    if x.shape != out.shape:
        return finish(False, "norm", f"shape {out.shape} != {x.shape}")
    a, b = pairs(x, layout, R)
    a2, b2 = pairs(out, layout, R)
    n_in, n_out = np.hypot(a, b), np.hypot(a2, b2)
    # f32 outputs: a few roundings of values of magnitude <= |pair|.
    pair_err = np.max(np.abs(n_out - n_in) - 2e-6 * n_in)
    h_in, h_out = np.linalg.norm(x, axis=-1), np.linalg.norm(out, axis=-1)
    head_err = np.max(np.abs(h_out - h_in) - 2e-6 * h_in)
    pass_ok = np.array_equal(x[..., R:], out[..., R:])
    moved = np.max(np.abs(out[..., :R] - x[..., :R]))
    ok = pair_err <= 1e-6 and head_err <= 1e-6 and pass_ok and moved > 1e-2
    return finish(ok, "norm", f"pair_excess={pair_err:.3g} head_excess={head_err:.3g} "
                  f"passthrough_equal={pass_ok} max_rotation_change={moved:.3g}")


def dots(d, qname, kname):
    q, k = load(d, qname), load(d, kname)
    return np.sum(q * k, axis=-1)


def relative(d, names):
    if "--other" not in names:
        raise SystemExit("props: relative needs --other QX KX")
    i = names.index("--other")
    same, other = names[:i], names[i + 1 :]
    if len(same) < 4 or len(same) % 2 or len(other) != 2:
        raise SystemExit("props: relative needs >= 2 (Q, K) pairs and one --other pair")
    ref = dots(d, same[0], same[1])
    err = 0.0
    for qn, kn in zip(same[2::2], same[3::2]):
        err = max(err, float(np.max(np.abs(dots(d, qn, kn) - ref))))
    # Unit-norm f32 vectors: each dot product is within ~D * 2^-24 of exact.
    spread = float(np.max(np.abs(dots(d, *other) - ref)))
    ok = err <= 2e-6 and spread > 1e-3
    return finish(ok, "relative", f"max_dot_diff={err:.3g} (<= 2e-6) "
                  f"other_difference_spread={spread:.3g} (> 1e-3)")


def differ(d, a, b, bound):
    diff = float(np.max(np.abs(load(d, a) - load(d, b))))
    return finish(diff > float(bound), "differ", f"max_abs={diff:.3g} bound={bound}")


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    cmd, d, rest = argv[1], argv[2], argv[3:]
    if cmd == "norm" and len(rest) == 4:
        return norm(d, *rest)
    if cmd == "relative":
        return relative(d, rest)
    if cmd == "differ" and len(rest) == 3:
        return differ(d, *rest)
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
