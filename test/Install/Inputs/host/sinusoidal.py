# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""The input and the check of host.c's JIT run of pe.add_sinusoidal.

  sinusoidal.py REF_LIB write DIR   writes DIR/x.f32 (2x16x64 raw f32)
  sinusoidal.py REF_LIB check DIR   compares DIR/out.f32 with the float64
                                    reference (REF_LIB/pe_ref.py)

Tolerance: rtol 2e-7, atol 1e-7 (the reference pipeline evaluates the
encoding in f64 and rounds the sum once to f32: half an ulp; atol for sums
near 0), as test/Integration/CPU/sinusoidal.
"""

import os
import sys

import numpy as np

SHAPE = (2, 16, 64)


def main():
    ref_lib, mode, d = sys.argv[1:4]
    sys.path.insert(0, ref_lib)
    import pe_ref

    rng = np.random.default_rng(31)
    x = rng.uniform(-1.0, 1.0, SHAPE).astype(np.float32)
    if mode == "write":
        x.tofile(os.path.join(d, "x.f32"))
        return 0
    out = np.fromfile(os.path.join(d, "out.f32"), dtype=np.float32)
    if out.size != x.size:
        print(f"sinusoidal: FAIL: {out.size} values, expected {x.size}")
        return 1
    out = out.reshape(SHAPE).astype(np.float64)
    expected = pe_ref.add_sinusoidal(x, 0, layout="concat")
    err = np.abs(out - expected)
    bound = 1e-7 + 2e-7 * np.abs(expected)
    worst = float(np.max(err))
    if not np.all(err <= bound) or not np.all(np.isfinite(out)):
        print(f"sinusoidal: FAIL: max abs error {worst:.3g}, "
              f"{int(np.sum(err > bound))} values out of tolerance")
        return 1
    print(f"sinusoidal: PASS: max abs error {worst:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
