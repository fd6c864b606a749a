#!/usr/bin/env python3
"""Times `pe-opt --pe-raise` on a small and a large program and checks that
the time grows about linearly with the program:

  time_raise.py PE_OPT SMALL.mlir LARGE.mlir --size-ratio R --max-ratio M
      --max-seconds S [--raised LARGE_OUT.mlir]

Each program is raised three times and the fastest run is kept (the machine
is shared). Fails when the large program takes more than S seconds or more
than M times the small one; prints both times and their ratio.
"""
import argparse
import subprocess
import sys
import time


def best_time(pe_opt, src, out):
    best = None
    for _ in range(3):
        start = time.perf_counter()
        p = subprocess.run([pe_opt, "--pe-raise", src, "-o", out],
                           capture_output=True, text=True)
        elapsed = time.perf_counter() - start
        if p.returncode != 0:
            sys.exit(f"time_raise: pe-opt failed on {src}:\n{p.stderr}")
        best = elapsed if best is None else min(best, elapsed)
    return best


ap = argparse.ArgumentParser()
ap.add_argument("pe_opt")
ap.add_argument("small")
ap.add_argument("large")
ap.add_argument("--size-ratio", type=float, required=True)
ap.add_argument("--max-ratio", type=float, required=True)
ap.add_argument("--max-seconds", type=float, required=True)
ap.add_argument("--raised", default="/dev/null")
a = ap.parse_args()
small = best_time(a.pe_opt, a.small, "/dev/null")
large = best_time(a.pe_opt, a.large, a.raised)
ratio = large / small
print(f"time_raise: small {small:.3f} s, large {large:.3f} s, ratio "
      f"{ratio:.1f} (size ratio {a.size_ratio:g})")
if large > a.max_seconds:
    sys.exit(f"time_raise: FAIL: {large:.1f} s > {a.max_seconds:g} s")
if ratio > a.max_ratio:
    sys.exit(f"time_raise: FAIL: ratio {ratio:.1f} > {a.max_ratio:g}")
print("time_raise: PASS")
