#!/usr/bin/env python3
"""Compare a computed .npy array with a reference .npy array.

Usage: npycmp.py ACTUAL.npy EXPECTED.npy [--rtol R] [--atol A]

ACTUAL may be float16/float32/float64 (anything numpy can cast to float64);
both arrays are compared in float64.  The check passes iff the shapes are equal
and every element satisfies

    |a - e| <= atol + rtol * |e|

NaN fails unless both arrays hold NaN at the same index; equal infinities pass;
a NaN/inf mismatch counts as an infinite error in max_abs / max_rel.
Prints one line

    npycmp: PASS max_abs=... max_rel=... n=...
    npycmp: FAIL max_abs=... max_rel=... n=... bad=... worst=(i, j, ...) actual=... expected=...

where max_rel = max |a - e| / max(|e|, tiny), and exits 0 on PASS, 1 on FAIL.
"""

import argparse
import sys

import numpy as np

DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6
TINY = np.finfo(np.float64).tiny


def compare(actual, expected, rtol=DEFAULT_RTOL, atol=DEFAULT_ATOL):
    """Return ``(ok, line)`` for two arrays; ``line`` is the report line."""
    a = np.asarray(actual).astype(np.float64)
    e = np.asarray(expected).astype(np.float64)
    if a.shape != e.shape:
        return False, f"npycmp: FAIL shape actual={a.shape} expected={e.shape}"
    n = a.size
    if n == 0:
        return True, "npycmp: PASS max_abs=0 max_rel=0 n=0"

    a_nan, e_nan = np.isnan(a), np.isnan(e)
    same = (a == e) | (a_nan & e_nan)  # exact matches, incl. equal infinities
    with np.errstate(invalid="ignore", over="ignore"):
        abs_err = np.where(same, 0.0, np.abs(a - e))
        # Any remaining NaN (NaN on one side, or inf vs different value) fails.
        abs_err = np.where(np.isnan(abs_err), np.inf, abs_err)
        rel_err = np.where(same, 0.0, abs_err / np.maximum(np.abs(e), TINY))
        rel_err = np.where(np.isnan(rel_err), np.inf, rel_err)  # e is NaN or inf
        limit = atol + rtol * np.abs(e)
        # Non-finite values must match exactly (handled by `same` above).
        bad = ~same & (~(abs_err <= limit) | ~np.isfinite(a) | ~np.isfinite(e))
        excess = np.where(np.isfinite(e), abs_err - limit, np.inf)

    max_abs, max_rel = abs_err.max(), rel_err.max()
    stats = f"max_abs={max_abs:.6g} max_rel={max_rel:.6g} n={n}"
    if not bad.any():
        return True, f"npycmp: PASS {stats}"
    worst = np.unravel_index(np.argmax(np.where(bad, excess, -np.inf)), a.shape)
    return False, (f"npycmp: FAIL {stats} bad={int(bad.sum())} worst={tuple(map(int, worst))} "
                   f"actual={float(a[worst])!r} expected={float(e[worst])!r} (rtol={rtol:g} atol={atol:g})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("actual")
    parser.add_argument("expected")
    parser.add_argument("--rtol", type=float, default=DEFAULT_RTOL)
    parser.add_argument("--atol", type=float, default=DEFAULT_ATOL)
    args = parser.parse_args(argv)
    try:
        actual = np.load(args.actual, allow_pickle=False)
        expected = np.load(args.expected, allow_pickle=False)
    except (OSError, ValueError) as err:
        print(f"npycmp: FAIL cannot load input: {err}")
        return 1
    ok, line = compare(actual, expected, args.rtol, args.atol)
    print(line)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
