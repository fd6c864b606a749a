// Valid upstream IR with arith and math ops on whole tensors (what TOSA
// frontends leave after tosa-to-arith, and Buddy's output): each pipeline
// lowers them to linalg payloads first (convert-elementwise-to-linalg), so
// that the approximations see scalars and bufferization sees linalg ops.
// Before, pe-cpu-pipeline produced invalid IR ("'arith.mulf' op requires the
// same type for all operands and results") and pe-reference-pipeline stopped
// at "op was not bufferized".
// RUN: pe-opt %s --pe-cpu-pipeline | FileCheck %s
// RUN: pe-opt %s --pe-reference-pipeline | FileCheck %s
// RUN: pe-opt %s --pe-gpu-pipeline=target=spirv | FileCheck %s
// RUN: pe-opt %s --pe-cpu-pipeline | mlir-translate --mlir-to-llvmir | FileCheck %s --check-prefix=LLVMIR
// The first pass of each pipeline after the run-time checks:
// RUN: pe-opt %s --pe-cpu-pipeline --mlir-print-ir-after=convert-elementwise-to-linalg -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINALG
// RUN: pe-opt %s --pe-reference-pipeline --mlir-print-ir-after=convert-elementwise-to-linalg -o /dev/null 2>&1 | FileCheck %s --check-prefix=LINALG

// CHECK-NOT: tensor<
// CHECK-LABEL: llvm.func @tensor_level(
// CHECK-NOT: tensor<
// LLVMIR: define { ptr, ptr, i64, [2 x i64], [2 x i64] } @tensor_level(

// LINALG-LABEL: func.func @tensor_level(
// LINALG-NOT: : tensor<4x8xf32>{{$}}
// LINALG: linalg.generic
// LINALG: math.exp %{{.*}} : f32
// LINALG: linalg.generic
// LINALG: arith.mulf %{{.*}}, %{{.*}} : f32
// LINALG: linalg.generic
// LINALG: math.tanh %{{.*}} : f32
// LINALG: linalg.generic
// LINALG: arith.subf %{{.*}}, %{{.*}} : f32
// LINALG: linalg.generic
// LINALG: math.cos %{{.*}} : f32
// LINALG: linalg.generic
// LINALG: arith.addf %{{.*}}, %{{.*}} : f32
func.func @tensor_level(%x: tensor<4x8xf32>, %w: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %e = math.exp %x : tensor<4x8xf32>
  %m = arith.mulf %e, %w : tensor<4x8xf32>
  %t = math.tanh %x : tensor<4x8xf32>
  %s = arith.subf %m, %t : tensor<4x8xf32>
  %c = math.cos %x : tensor<4x8xf32>
  %r = arith.addf %s, %c : tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}
