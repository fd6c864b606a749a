// Option values convert-pe-to-vector rejects, directly and through
// pe-cpu-pipeline (which checks them as it parses its options), and values
// LLVM's option parser cannot read as an int64_t, with the same error.
// RUN: not pe-opt %s --convert-pe-to-vector="decode-prefetch-bytes=9223372036854775808" 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not pe-opt %s --pass-pipeline='builtin.module(convert-pe-to-vector{stack-scratch-bytes=1e6})' 2>&1 | FileCheck %s --check-prefix=TEXT
// HUGE: error: convert-pe-to-vector: decode-prefetch-bytes must be an integer in [0, 9223372036854775807] (0: no prefetch), not '9223372036854775808'
// TEXT: error: convert-pe-to-vector: stack-scratch-bytes must be an integer in [0, 9223372036854775807] (0: all scratch on the heap), not '1e6'

// RUN: not pe-opt %s --convert-pe-to-vector="decode-prefetch-bytes=-1" 2>&1 | FileCheck %s
// RUN: not pe-opt %s --pe-cpu-pipeline="decode-prefetch-bytes=-64" 2>&1 | FileCheck %s --check-prefix=PIPE
// CHECK: error: convert-pe-to-vector: decode-prefetch-bytes must be an integer in [0, 9223372036854775807] (0: no prefetch), not -1
// PIPE: error: pe-cpu-pipeline: decode-prefetch-bytes must be an integer in [0, 9223372036854775807] (0: no prefetch), not -64
// RUN: not pe-opt %s --convert-pe-to-vector="decode-prefetch-min-ops=-1" 2>&1 | FileCheck %s --check-prefix=MINOPS
// RUN: not pe-opt %s --pe-cpu-pipeline="decode-prefetch-min-ops=-2" 2>&1 | FileCheck %s --check-prefix=MINOPS-PIPE
// MINOPS: error: convert-pe-to-vector: decode-prefetch-min-ops must be an integer in [0, 9223372036854775807] (0: every pass prefetches), not -1
// MINOPS-PIPE: error: pe-cpu-pipeline: decode-prefetch-min-ops must be an integer in [0, 9223372036854775807] (0: every pass prefetches), not -2
// RUN: not pe-opt %s --convert-pe-to-vector="decode-prefetch-l2-min-ops=-1" 2>&1 | FileCheck %s --check-prefix=L2OPS
// RUN: not pe-opt %s --pe-cpu-pipeline="decode-prefetch-l2-min-ops=-3" 2>&1 | FileCheck %s --check-prefix=L2OPS-PIPE
// L2OPS: error: convert-pe-to-vector: decode-prefetch-l2-min-ops must be an integer in [0, 9223372036854775807] (0: every pass into the L2), not -1
// L2OPS-PIPE: error: pe-cpu-pipeline: decode-prefetch-l2-min-ops must be an integer in [0, 9223372036854775807] (0: every pass into the L2), not -3
// RUN: not pe-opt %s --convert-pe-to-vector="stack-scratch-bytes=-1" 2>&1 | FileCheck %s --check-prefix=STACK
// RUN: not pe-opt %s --pe-cpu-pipeline="stack-scratch-bytes=-4096" 2>&1 | FileCheck %s --check-prefix=STACK-PIPE
// STACK: error: convert-pe-to-vector: stack-scratch-bytes must be an integer in [0, 9223372036854775807] (0: all scratch on the heap), not -1
// STACK-PIPE: error: pe-cpu-pipeline: stack-scratch-bytes must be an integer in [0, 9223372036854775807] (0: all scratch on the heap), not -4096

func.func @f(%q: tensor<1x4x1x32xf32>, %k: tensor<1x2x64x32xf32>) -> tensor<1x4x1x32xf32> {
  %init = tensor.empty() : tensor<1x4x1x32xf32>
  %o = pe.attention %q, %k, %k outs(%init : tensor<1x4x1x32xf32>) : tensor<1x4x1x32xf32>, tensor<1x2x64x32xf32>, tensor<1x2x64x32xf32> -> tensor<1x4x1x32xf32>
  return %o : tensor<1x4x1x32xf32>
}
