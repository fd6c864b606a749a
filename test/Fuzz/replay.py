#!/usr/bin/env python3
"""Replay saved fuzzer inputs through pe-opt and require that none crashes.

Usage: replay.py PE_OPT DIR

Runs `PE_OPT FILE`, `PE_OPT FILE --pe-reference-pipeline` and
`PE_OPT FILE --pe-cpu-pipeline` for every file in DIR (the whole file is one
module, as pe-fuzz sees it). Exit status 0 or 1 (a diagnostic) passes; a
signal, another status, a sanitizer or LLVM crash report on stderr, or a
time-out fails. Prints one line per failure and
  replay: N inputs, F failures
and exits 1 if F > 0 or DIR holds no file.
"""

import os
import subprocess
import sys

RUNS = [[], ["--pe-reference-pipeline"], ["--pe-cpu-pipeline"]]
TIMEOUT_S = 120
# A report that exits with status 1 when the sanitizer options do not ask to
# abort (outside lit) still counts.
CRASH_MARKERS = ["ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                 "runtime error:", "LLVM ERROR:", "PLEASE submit a bug report",
                 "Stack dump:"]


def main(argv):
    pe_opt, directory = argv[1], argv[2]
    files = sorted(f for f in os.listdir(directory)
                   if os.path.isfile(os.path.join(directory, f))
                   and not f.startswith("."))
    failures = 0
    for name in files:
        path = os.path.join(directory, name)
        for extra in RUNS:
            cmd = [pe_opt, path, "-o", os.devnull] + extra
            try:
                r = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.DEVNULL,
                                   stderr=subprocess.PIPE, timeout=TIMEOUT_S)
            except subprocess.TimeoutExpired:
                failures += 1
                print(f"replay: FAIL {name} {' '.join(extra)}: "
                      f"timed out after {TIMEOUT_S} s")
                continue
            err = r.stderr.decode("utf-8", "replace")
            marker = next((m for m in CRASH_MARKERS if m in err), None)
            if r.returncode in (0, 1) and marker is None:
                continue
            failures += 1
            how = (f"signal {-r.returncode}" if r.returncode < 0
                   else f"exit status {r.returncode}")
            if marker:
                how += f", stderr has '{marker}'"
            tail = err.splitlines()[-25:]
            print(f"replay: FAIL {name} {' '.join(extra)}: {how}")
            for line in tail:
                print("    " + line)
    print(f"replay: {len(files)} inputs, {failures} failures")
    return 1 if failures or not files else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
