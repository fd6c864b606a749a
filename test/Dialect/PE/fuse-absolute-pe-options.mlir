// The pe-fuse-absolute-pe option row-tile is validated (issue 11): a row
// tile below 1 is a clear error, not a tiling with a negative size.
// RUN: not pe-opt %s --pass-pipeline='builtin.module(pe-fuse-absolute-pe{row-tile=-1})' 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not pe-opt %s --pe-fuse-absolute-pe=row-tile=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: pe-opt %s --pe-fuse-absolute-pe=row-tile=1 | FileCheck %s --check-prefix=ONE
// NEG: error: pe-fuse-absolute-pe: row-tile must be an integer in [1, 9223372036854775807], not -1
// ZERO: error: pe-fuse-absolute-pe: row-tile must be an integer in [1, 9223372036854775807], not 0
// A value LLVM's option parser cannot read as an int64_t gets the same error.
// RUN: not pe-opt %s --pe-fuse-absolute-pe=row-tile=9223372036854775808 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: error: pe-fuse-absolute-pe: row-tile must be an integer in [1, 9223372036854775807], not '9223372036854775808'
// ONE: func @f
func.func @f() {
  return
}

// The same range for pe-cpu-pipeline's absolute-pe-row-tile, checked by the
// pipeline as it parses its options.
// RUN: not pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline{absolute-pe-row-tile=-2})' 2>&1 | FileCheck %s --check-prefix=PIPE
// PIPE: error: pe-cpu-pipeline: absolute-pe-row-tile must be an integer in [1, 9223372036854775807], not -2
