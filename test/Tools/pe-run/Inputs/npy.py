#!/usr/bin/env python3
"""Make and inspect .npy files for the pe-run tests.

Usage: npy.py DIR ARG...

Each ARG is one of
  NAME=EXPR   evaluate EXPR (numpy as `np`, earlier NAMEs, `load(NAME)` reads
              DIR/NAME.npy) and save it as DIR/NAME.npy; a `bytes` value is
              written as is (for malformed files); helpers: bf16(x),
              raw_npy(descr, shape, data), splitmix64(seed, index, n)
  !STMT       execute STMT in the same namespace (e.g. an `assert`)
  ?EXPR       print the value of EXPR (for FileCheck)
Arguments are processed in order; a failing assert exits with status 1.
"""

import os
import sys

import numpy as np


def main(argv):
    directory = argv[1]

    def load(name):
        return np.load(os.path.join(directory, name + ".npy"))

    def bf16(x):
        """Round float32 values to bfloat16 (nearest even), as float32."""
        bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
        bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
        return bits.astype(np.uint32).view(np.float32)

    def raw_npy(descr, shape, data):
        """A version 1.0 .npy file with any descriptor (e.g. 'bfloat16')."""
        header = "{'descr': '%s', 'fortran_order': False, 'shape': %r, }" % (
            descr, tuple(shape))
        header += " " * (-(10 + len(header) + 1) % 64) + "\n"
        return (b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") +
                header.encode("latin1") + bytes(data))

    def splitmix64(seed, index, n):
        """The first n outputs of pe-run's --random-inputs stream for
        argument `index` (see pe-run --help), as Python ints."""
        mask = (1 << 64) - 1
        state = (seed ^ (0xD1B54A32D192ED03 * (index + 1))) & mask
        out = []
        for _ in range(n + 1):
            state = (state + 0x9E3779B97F4A7C15) & mask
            z = state
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
            out.append(z ^ (z >> 31))
        return out[1:]  # pe-run discards the first output

    env = {"np": np, "load": load, "bf16": bf16, "raw_npy": raw_npy,
           "splitmix64": splitmix64}
    for arg in argv[2:]:
        if arg.startswith("!"):
            exec(arg[1:], env)
        elif arg.startswith("?"):
            print(eval(arg[1:], env))
        else:
            name, expr = arg.split("=", 1)
            value = eval(expr, env)
            env[name] = value
            path = os.path.join(directory, name + ".npy")
            if isinstance(value, bytes):
                with open(path, "wb") as f:
                    f.write(value)
            else:
                np.save(path, value)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except AssertionError as e:
        print(f"npy.py: assertion failed: {e}", file=sys.stderr)
        sys.exit(1)
