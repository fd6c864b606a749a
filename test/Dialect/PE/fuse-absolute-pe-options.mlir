// The pe-fuse-absolute-pe option row-tile is validated (issue 11): a row
// tile below 1 is a clear error, not a tiling with a negative size.
// RUN: not pe-opt %s --pass-pipeline='builtin.module(pe-fuse-absolute-pe{row-tile=-1})' 2>&1 | FileCheck %s --check-prefix=NEG
// RUN: not pe-opt %s --pe-fuse-absolute-pe=row-tile=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: pe-opt %s --pe-fuse-absolute-pe=row-tile=1 | FileCheck %s --check-prefix=ONE
// NEG: error: pe-fuse-absolute-pe: row-tile must be at least 1, got -1
// ZERO: error: pe-fuse-absolute-pe: row-tile must be at least 1, got 0
// ONE: func @f
func.func @f() {
  return
}

// The same check where the pass is built from options (pe-cpu-pipeline's
// absolute-pe-row-tile, which bypasses option parsing).
// RUN: not pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline{absolute-pe-row-tile=-2})' 2>&1 | FileCheck %s --check-prefix=PIPE
// PIPE: error: pe-fuse-absolute-pe: row-tile must be at least 1, got -2
