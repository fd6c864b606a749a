// Both pipelines check dynamic sizes in the lowered code (a failed check
// prints its message and aborts: upstream's cf.assert lowering), and
// runtime-checks=false leaves the checks out.
// RUN: pe-opt %s --pe-reference-pipeline | FileCheck %s --check-prefix=CHECKS
// RUN: pe-opt %s --pe-cpu-pipeline | FileCheck %s --check-prefix=CHECKS
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-reference-pipeline{runtime-checks=false})' | FileCheck %s --check-prefix=NOCHECKS
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline{runtime-checks=false})' | FileCheck %s --check-prefix=NOCHECKS

// CHECKS: llvm.mlir.global private constant @assert_msg
// CHECKS: llvm.func @attention
// CHECKS: %[[MSG:.*]] = llvm.mlir.addressof @assert_msg
// CHECKS-NEXT: llvm.call @puts(%[[MSG]])
// CHECKS-NEXT: llvm.call @abort

// NOCHECKS-NOT: assert_msg
// NOCHECKS-NOT: @abort
// NOCHECKS: llvm.func @attention
// NOCHECKS-NOT: assert_msg
// NOCHECKS-NOT: @abort
func.func @attention(%q: tensor<1x4x?x16xf32>, %k: tensor<1x2x?x16xf32>, %v: tensor<1x2x?x16xf32>) -> tensor<1x4x?x16xf32> {
  %0 = pe.attention %q, %k, %v {causal} : tensor<1x4x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x4x?x16xf32>
  return %0 : tensor<1x4x?x16xf32>
}
