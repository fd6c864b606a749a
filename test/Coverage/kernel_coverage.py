#!/usr/bin/env python3
# ===- kernel_coverage.py - every pe op of the tests on a generated kernel --===#
#
# Runs pe-cpu-pipeline, with remarks on, over every file under the given
# directories that holds a pe.attention, pe.rope or pe.add_sinusoidal (and
# over the raising corpus after pe-raise-pipeline), and collects the "no
# generated ... kernel" remarks of convert-pe-to-vector. Each one must match
# an entry of the exception list; an entry that matches nothing is stale and
# fails too, so the list only ever states what is true today.
#
# Exception list: one entry per line, `PATH-GLOB :: REASON-SUBSTRING`, PATH
# relative to the test directory (fnmatch glob), REASON a substring of the
# remark's reason; `#` starts a comment. Each entry is preceded by a comment
# saying why the op has no kernel.
#
# Usage: kernel_coverage.py --pe-opt PE-OPT --test-root DIR --exceptions FILE
#        [--dir SUBDIR]... [--raise-dir SUBDIR]... [--target CPU]... [-j N]
# Prints `kernel-coverage: PASS (...)` or the unexpected remarks and stale
# entries, then `kernel-coverage: FAIL`, exit 1.
# ===----------------------------------------------------------------------===#
import argparse
import concurrent.futures
import fnmatch
import os
import re
import subprocess
import sys

PE_OPS = re.compile(r"\bpe\.(attention|rope|add_sinusoidal)\b")
REMARK = re.compile(r'Reason="(no generated [^"]*)"')


def files_under(root, sub, pattern):
    out = []
    for dirpath, _, names in os.walk(os.path.join(root, sub)):
        for n in sorted(names):
            if n.endswith(".mlir"):
                path = os.path.join(dirpath, n)
                with open(path, encoding="utf-8") as f:
                    if pattern is None or pattern.search(f.read()):
                        out.append(path)
    return sorted(out)


def run(cmd, stdin=None):
    p = subprocess.run(cmd, input=stdin, capture_output=True, text=True,
                       timeout=300)
    return p.returncode, p.stdout, p.stderr


def remarks_of(pe_opt, path, cpu, raise_first):
    """The distinct 'no generated' reasons of `path` for target `cpu`, or an
    error string when pe-opt fails."""
    triple = ("x86_64-unknown-linux-gnu" if cpu.startswith("x86") else
              "aarch64-unknown-linux-gnu")
    with open(path, encoding="utf-8") as f:
        sharded = "shard.shard" in f.read()
    # A program with shard annotations runs as ranks: the shard pipeline
    # partitions it and runs the CPU pipeline on each rank's program.
    pipeline = ("--pe-shard-pipeline=lower-to-llvm triple=%s cpu=%s" %
                (triple, cpu) if sharded else
                "--pe-cpu-pipeline=triple=%s cpu=%s" % (triple, cpu))
    source = None
    if raise_first:
        rc, out, err = run([pe_opt, path, "--pe-raise-pipeline"])
        if rc != 0:
            return None, "pe-raise-pipeline failed: " + err.strip()[:500]
        source = out
        if not PE_OPS.search(out):
            return set(), None
    cmd = [pe_opt, "-" if raise_first else path, pipeline,
           "--remarks-filter=convert-pe-to-vector", "-o", os.devnull]
    rc, _, err = run(cmd, source)
    if rc != 0:
        return None, pipeline.split("=")[0][2:] + " failed: " + err.strip()[:500]
    return set(REMARK.findall(err)), None


def load_exceptions(path):
    entries = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            if "::" not in line:
                sys.exit("%s:%d: expected `PATH-GLOB :: REASON`" % (path, n))
            glob, reason = (s.strip() for s in line.split("::", 1))
            entries.append((glob, reason, n))
    return entries


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pe-opt", required=True)
    ap.add_argument("--test-root", required=True)
    ap.add_argument("--exceptions", required=True)
    ap.add_argument("--dir", action="append", default=[])
    ap.add_argument("--raise-dir", action="append", default=[])
    ap.add_argument("--target", action="append", default=[])
    ap.add_argument("-j", type=int, default=2)
    args = ap.parse_args()
    targets = args.target or ["x86-64-v4"]
    jobs = [(p, False) for d in args.dir
            for p in files_under(args.test_root, d, PE_OPS)]
    jobs += [(p, True) for d in args.raise_dir
             for p in files_under(args.test_root, d, None)]
    if not jobs:
        sys.exit("kernel-coverage: no input files")
    exceptions = load_exceptions(args.exceptions)
    used = set()
    failures = []
    ops_files = 0
    with concurrent.futures.ThreadPoolExecutor(args.j) as pool:
        futures = {(p, cpu): pool.submit(remarks_of, args.pe_opt, p, cpu, r)
                   for p, r in jobs for cpu in targets}
        for (path, cpu), fut in sorted(futures.items()):
            reasons, error = fut.result()
            rel = os.path.relpath(path, args.test_root)
            if error:
                failures.append("%s [%s]: %s" % (rel, cpu, error))
                continue
            ops_files += 1
            for reason in sorted(reasons):
                hit = [e for e in exceptions
                       if fnmatch.fnmatch(rel, e[0]) and e[1] in reason]
                if hit:
                    used.update(e[2] for e in hit)
                else:
                    failures.append("%s [%s]: %s" % (rel, cpu, reason))
    stale = [e for e in exceptions if e[2] not in used]
    for rel_reason in failures:
        print("kernel-coverage: unexpected: " + rel_reason)
    for glob, reason, n in stale:
        print("kernel-coverage: stale exception (line %d): %s :: %s" %
              (n, glob, reason))
    if failures or stale:
        print("kernel-coverage: FAIL")
        return 1
    print("kernel-coverage: PASS (%d file runs, %d exceptions)" %
          (ops_files, len(exceptions)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
