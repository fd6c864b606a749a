#!/usr/bin/env python3
"""Runs a pe-run command line through an executable built for another CPU.

Usage: cross_run.py PE_RUN QEMU SYSROOT QEMU_CPU [pe-run arguments...]

The execution tests call `pe-run FILE -e F --input=... --output=...` (the
JIT). With `lit --param pe_pipeline=cpu-aarch64`, lit substitutes this script
for pe-run: it compiles F with the given pe-run arguments plus
--emit-executable (the target flags come in the arguments), then runs the
executable under qemu-user (QEMU -L SYSROOT -cpu QEMU_CPU) with the
arguments the executable takes (--input, --output, --random-inputs, --seed,
--repeat). JIT-only arguments (--check, --rtol, --atol) are dropped: the
test's own comparison with the float64 reference checks the output.
"""

import os
import subprocess
import sys
import tempfile

RUN_FLAGS = ("--input", "--output", "--random-inputs", "--seed", "--repeat")
JIT_FLAGS = ("--check", "--rtol", "--atol")


def flag_name(arg):
    return arg.split("=", 1)[0]


def main(argv):
    pe_run, qemu, sysroot, cpu = argv[1:5]
    compile_args, run_args = [], []
    for arg in argv[5:]:
        name = flag_name(arg)
        if name in RUN_FLAGS:
            run_args.append(arg)
        elif name not in JIT_FLAGS:
            compile_args.append(arg)
    with tempfile.TemporaryDirectory(prefix="pe-cross-") as tmp:
        exe = os.path.join(tmp, "kernel")
        built = subprocess.run([pe_run] + compile_args +
                               ["--emit-executable=" + exe],
                               stdout=subprocess.DEVNULL)
        if built.returncode != 0:
            return built.returncode
        # Emulated runs are slow: a hung one must not hold a core for long.
        try:
            ran = subprocess.run([qemu, "-L", sysroot, "-cpu", cpu, exe] +
                                 run_args, timeout=600)
        except subprocess.TimeoutExpired:
            print("cross_run.py: %s timed out under %s" % (exe, qemu),
                  file=sys.stderr)
            return 124
        return ran.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))
