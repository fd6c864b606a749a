#!/usr/bin/env python3
"""Compare a result .npy with a float64 reference, without NumPy.

Usage: npycheck.py ACTUAL.npy EXPECTED.npy RTOL ATOL

Reads little-endian C-order .npy files of float16, float32, float64 (the
dtypes pe's AOT executables write and bench/gpu/aot_cases.py saves) with the
standard library only, so that bench/gpu/run.sh can check results on a GPU
machine that has /usr/bin/python3 but no NumPy. Passes iff the shapes match
and |a - e| <= atol + rtol * |e| elementwise (NaN fails); prints
  npycheck: PASS|FAIL max_abs=... n=... bad=...
and exits 0 on PASS, 1 on FAIL.
"""

import ast
import math
import struct
import sys

FORMATS = {"<f2": "e", "<f4": "f", "<f8": "d"}


def load(path):
    with open(path, "rb") as fh:
        data = fh.read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"npycheck: {path}: not a .npy file")
    major = data[6]
    size = 2 if major == 1 else 4
    hlen = int.from_bytes(data[8:8 + size], "little")
    start = 8 + size + hlen
    header = ast.literal_eval(data[8 + size:start].decode("latin1"))
    fmt = FORMATS.get(header["descr"])
    if fmt is None or header["fortran_order"]:
        sys.exit(f"npycheck: {path}: unsupported dtype {header['descr']!r}")
    n = math.prod(header["shape"])
    values = struct.unpack_from("<%d%s" % (n, fmt), data, start)
    return tuple(header["shape"]), values


def main(argv):
    (sa, a), (se, e) = load(argv[1]), load(argv[2])
    rtol, atol = float(argv[3]), float(argv[4])
    if sa != se:
        print(f"npycheck: FAIL shape {sa} vs reference {se}")
        return 1
    bad, max_abs = 0, 0.0
    for x, y in zip(a, e):
        err = abs(x - y)
        if math.isnan(err):
            err = math.inf
        max_abs = max(max_abs, err)
        if not err <= atol + rtol * abs(y):
            bad += 1
    status = "PASS" if bad == 0 else "FAIL"
    print(f"npycheck: {status} max_abs={max_abs:.3g} n={len(a)} bad={bad} "
          f"(rtol={rtol:g} atol={atol:g})")
    return 0 if bad == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
