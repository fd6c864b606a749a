#!/usr/bin/env python3
"""Usage: expect-exit.py STATUS COMMAND [ARG...]

Runs COMMAND (its stdout and stderr pass through) and exits 0 iff it exited
with exactly STATUS; otherwise prints why and exits 1 (a crash, i.e. a
signal, is never STATUS)."""

import subprocess
import sys

want = int(sys.argv[1])
got = subprocess.run(sys.argv[2:]).returncode
if got != want:
    print(f"expect-exit: expected exit status {want}, got {got}", file=sys.stderr)
    sys.exit(1)
