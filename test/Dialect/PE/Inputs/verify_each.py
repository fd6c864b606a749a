#!/usr/bin/env python3
"""Every pe pass and pipeline leaves verified IR valid (issue 11 item 3).

Usage: verify_each.py PE_OPT FILE_OR_DIR...

Splits each .mlir input at `// -----` (as --split-input-file does), keeps
the chunks that parse and verify, and runs each pass and pipeline of PASSES
on each chunk with --verify-each (pe-opt's default, stated here so that the
test does not depend on it). A run passes if it succeeds, or if it fails with
a diagnostic (exit status 1) and the same run with --verify-each=false fails
too, i.e. the pass itself refused the input (a lowering that does not support
it); it fails if only the verifier after a pass rejects the IR (the pass
produced invalid IR), on a signal or on another exit status. Prints one line per failure and
  verify-each: N chunks, R runs (D refused by the pass), F failures
and exits 1 if F > 0.
"""

import concurrent.futures
import os
import subprocess
import sys

PASSES = [
    ["--canonicalize"],
    ["--pe-fold-frequencies"],
    ["--pe-fuse-encodings-into-attention"],
    ["--pe-fuse-rope-into-attention"],
    ["--pe-fuse-alibi-into-attention"],
    ["--pe-fold-attention-scaling"],
    ["--convert-pe-to-linalg"],
    ["--pe-fuse-absolute-pe", "--convert-pe-to-linalg"],
    ["--pe-reference-pipeline"],
    ["--pe-cpu-pipeline"],
    ["--convert-pe-to-vector"],
    ["--pe-raise"],
]
TIMEOUT_S = 120


def chunks(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    # A file that is itself a negative test (expected-error) or a parse-error
    # test is still split: its chunks that do not verify are skipped.
    return [c for c in text.split("// -----") if c.strip()]


def run(pe_opt, args, text):
    return subprocess.run([pe_opt] + args + ["-"], input=text.encode(),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          timeout=TIMEOUT_S)


refused = []  # runs that the pass itself refused with a diagnostic


def check(pe_opt, name, text, passes):
    try:
        r = run(pe_opt, ["-o", os.devnull], text)
    except subprocess.TimeoutExpired:
        return 0, [f"{name}: verify timed out"]
    if r.returncode != 0:
        return 0, []  # not a valid input: nothing to check
    failures = []
    runs = 0
    for p in passes:
        runs += 1
        label = f"{name} {' '.join(p)}"
        try:
            r = run(pe_opt, p + ["--verify-each", "-o", os.devnull], text)
            if r.returncode == 0:
                continue
            if r.returncode != 1:
                failures.append(f"{label}: exit status {r.returncode}:\n    " +
                                r.stderr.decode()[-1500:])
                continue
            alone = run(pe_opt, p + ["--verify-each=false", "-o", os.devnull],
                        text)
            refused.append(label)
            if alone.returncode == 0:
                failures.append(f"{label}: the verifier after a pass rejects "
                                f"its output:\n    " +
                                r.stderr.decode()[-1500:])
        except subprocess.TimeoutExpired:
            failures.append(f"{label}: timed out")
    return runs, failures


def main(argv):
    pe_opt = argv[1]
    files = []
    for arg in argv[2:]:
        if os.path.isdir(arg):
            files += sorted(os.path.join(arg, f) for f in os.listdir(arg)
                            if f.endswith(".mlir"))
        else:
            files.append(arg)
    jobs = []
    for path in files:
        for i, text in enumerate(chunks(path)):
            jobs.append((f"{os.path.basename(path)}#{i}", text))
    runs = 0
    failures = []
    workers = max(1, min(4, os.cpu_count() or 1))
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        for n, f in pool.map(lambda j: check(pe_opt, j[0], j[1], PASSES),
                             jobs):
            runs += n
            failures += f
    for f in failures:
        print("verify-each: FAIL " + f)
    if os.environ.get("PE_VERIFY_EACH_VERBOSE"):
        for r in sorted(refused):
            print("verify-each: refused by the pass: " + r)
    print(f"verify-each: {len(jobs)} chunks, {runs} runs "
          f"({len(refused)} refused by the pass), {len(failures)} failures")
    return 1 if failures or runs == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
