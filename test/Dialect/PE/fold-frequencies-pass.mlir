// RUN: pe-opt %s --pe-fold-frequencies | FileCheck %s

// pe-fold-frequencies folds frequency ops with constant inputs and touches
// nothing else (unlike --canonicalize, the dead op below stays).

// CHECK-LABEL: func @fold
// CHECK-DAG: %[[F:.*]] = arith.constant dense<[1.000000e+00, 0.00999999977]> : tensor<2xf32>
// CHECK-DAG: %[[M:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[DEAD:.*]] = arith.addi
// CHECK: return %[[F]], %[[M]]
func.func @fold(%a: index) -> (tensor<2xf32>, f32) {
  %f, %m = pe.rope_frequencies : tensor<2xf32>
  %dead = arith.addi %a, %a : index
  return %f, %m : tensor<2xf32>, f32
}

// Must not fold: a run-time sequence length.
// CHECK-LABEL: func @runtime
// CHECK: pe.dynamic_ntk_scale
func.func @runtime(%n: index) -> (tensor<2xf32>, f32) {
  %f, %m = pe.dynamic_ntk_scale %n : index {factor = 2.0 : f64, max_position_embeddings = 16 : i64} : tensor<2xf32>
  return %f, %m : tensor<2xf32>, f32
}
