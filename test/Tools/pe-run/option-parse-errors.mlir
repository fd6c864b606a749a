// pe-run's numeric options report a value that is not a number of the
// option's type as one `pe-run: error:` line with the option's range, and
// exit non-zero (llvm::cl used to print "for the --repeat option: ... value
// invalid for integer argument!" without an `error:`). --ranks:
// ranks-errors.mlir.
// RUN: not pe-run %s -e f --random-inputs --repeat=abc 2>&1 | FileCheck %s --check-prefix=REPEAT
// RUN: not pe-run %s -e f --random-inputs --repeat=2147483648 2>&1 | FileCheck %s --check-prefix=REPEAT-BIG
// RUN: not pe-run %s -e f --random-inputs --seed=-1 2>&1 | FileCheck %s --check-prefix=SEED
// RUN: not pe-run %s -e f --random-inputs --gpu-decode-split-keys=9223372036854775808 2>&1 | FileCheck %s --check-prefix=SPLIT
// RUN: not pe-run %s -e f --random-inputs --check=cpu --rtol=tight 2>&1 | FileCheck %s --check-prefix=RTOL
// RUN: not pe-run %s -e f --random-inputs --check=cpu --atol= 2>&1 | FileCheck %s --check-prefix=ATOL
// RUN: not pe-run %s -e f --random-inputs --repeat=2 --flops=1e9x 2>&1 | FileCheck %s --check-prefix=FLOPS
// REPEAT: pe-run: error: --repeat must be an integer in [-2147483648, 2147483647], not 'abc'
// REPEAT-BIG: pe-run: error: --repeat must be an integer in [-2147483648, 2147483647], not '2147483648'
// SEED: pe-run: error: --seed must be an integer in [0, 18446744073709551615], not '-1'
// SPLIT: pe-run: error: --gpu-decode-split-keys must be an integer in [-9223372036854775808, 9223372036854775807], not '9223372036854775808'
// RTOL: pe-run: error: --rtol must be a number, not 'tight'
// ATOL: pe-run: error: --atol must be a number, not ''
// FLOPS: pe-run: error: --flops must be a number, not '1e9x'
// A number out of an option's own range.
// RUN: not pe-run %s -e f --random-inputs --gpu-shared-memory-bytes=-1 2>&1 | FileCheck %s --check-prefix=SMEM
// RUN: not pe-run %s -e f --random-inputs --gpu-shared-memory-bytes=2147483648 2>&1 | FileCheck %s --check-prefix=SMEMBIG
// SMEM: pe-run: error: --gpu-shared-memory-bytes must be in [0, 2147483647], not -1
// SMEMBIG: pe-run: error: --gpu-shared-memory-bytes must be in [0, 2147483647], not 2147483648
// The same options with numbers still run.
// RUN: pe-run %s -e f --random-inputs --seed=0x10 --check=cpu --rtol=1e-4 --atol=1e-5 | FileCheck %s --check-prefix=OK
// OK: pe-run: check result 0: {{.*}}: PASS

func.func @f(%x: tensor<2x4x8xf32>) -> tensor<2x4x8xf32> {
  %0 = pe.add_sinusoidal interleaved %x : tensor<2x4x8xf32>
  return %0 : tensor<2x4x8xf32>
}
