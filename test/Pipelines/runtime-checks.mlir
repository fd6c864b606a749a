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
  %attn_c2_0 = arith.constant 2 : index
  %attn_d0_2_0 = tensor.dim %q, %attn_c2_0 : tensor<1x4x?x16xf32>
  %attn_init0 = tensor.empty(%attn_d0_2_0) : tensor<1x4x?x16xf32>
  %0 = pe.attention %q, %k, %v outs(%attn_init0 : tensor<1x4x?x16xf32>) {causal} : tensor<1x4x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x4x?x16xf32>
  return %0 : tensor<1x4x?x16xf32>
}
