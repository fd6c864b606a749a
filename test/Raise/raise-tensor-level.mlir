// Elementwise arith / math ops on whole tensors (what TOSA and Buddy
// frontends leave after tosa-to-arith) are leaves for pe-raise's tracer; each
// gets a missed remark saying so and naming pe-raise-pipeline, which lowers
// them first (raise-pipeline.mlir). The scalar ops inside linalg payloads and
// tensor-level constants get none.
// RUN: pe-opt %s --pe-raise --remarks-filter=pe-raise --verify-diagnostics -o /dev/null
// RUN: pe-opt %s --pe-raise -o - | FileCheck %s

// CHECK-LABEL: func.func @rope_tensor_level(
// CHECK-NOT: pe.rope
// CHECK: arith.mulf {{.*}} : tensor<1x2x4x8xf32>
func.func @rope_tensor_level(%x: tensor<1x2x4x8xf32>, %cos: tensor<1x2x4x8xf32>,
                             %rot: tensor<1x2x4x8xf32>, %sin: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %zero = arith.constant dense<0.0> : tensor<1x2x4x8xf32>
  // expected-remark @below {{the tracer looks into elementwise computations of linalg ops only, so this 'arith.mulf' on whole tensors ends every trace through it; run pe-raise-pipeline (convert-elementwise-to-linalg, then pe-raise) instead}}
  %a = arith.mulf %x, %cos : tensor<1x2x4x8xf32>
  // expected-remark @below {{this 'arith.mulf' on whole tensors}}
  %b = arith.mulf %rot, %sin : tensor<1x2x4x8xf32>
  // expected-remark @below {{this 'arith.addf' on whole tensors}}
  %c = arith.addf %a, %b : tensor<1x2x4x8xf32>
  // expected-remark @below {{this 'math.exp' on whole tensors}}
  %d = math.exp %c : tensor<1x2x4x8xf32>
  // expected-remark @below {{this 'arith.maximumf' on whole tensors}}
  %e = arith.maximumf %d, %zero : tensor<1x2x4x8xf32>
  return %e : tensor<1x2x4x8xf32>
}

// Scalar ops and linalg payloads: no remark.
// CHECK-LABEL: func.func @scalars(
func.func @scalars(%x: tensor<4xf32>, %s: f32) -> tensor<4xf32> {
  %t = arith.mulf %s, %s : f32
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %t : f32
    linalg.yield %m : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
