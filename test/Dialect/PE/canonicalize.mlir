// RUN: pe-opt %s --canonicalize --split-input-file | FileCheck %s

// Folding with hand-computed values (R = 4: inv_freq = [base^0, base^(-1/2)]),
// and the cases that must not fold.

// 10000^(-2*1/4) = 0.01; as f32: 0.00999999977648258.
// CHECK-LABEL: func @default_r4
// CHECK-DAG: %[[F:.*]] = arith.constant dense<[1.000000e+00, 0.00999999977]> : tensor<2xf32>
// CHECK-DAG: %[[M:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: return %[[F]], %[[M]]
func.func @default_r4() -> (tensor<2xf32>, f32) {
  %f, %m = pe.rope_frequencies : tensor<2xf32>
  return %f, %m : tensor<2xf32>, f32
}

// -----

// Linear factor 4: [1/4, 0.01/4] = [0.25, 0.0025] (0.0024999999441206455 in f32).
// CHECK-LABEL: func @linear_r4
// CHECK-DAG: arith.constant dense<[2.500000e-01, 2.500000e-03]> : tensor<2xf32>
// CHECK-NOT: pe.linear_scale
func.func @linear_r4() -> (tensor<2xf32>, f32) {
  %f, %m = pe.linear_scale {factor = 4.0 : f64} : tensor<2xf32>
  return %f, %m : tensor<2xf32>, f32
}

// -----

// YaRN attention scaling 0.1 * ln(4) + 1 = 1.1386294361 (YaRN paper eq. for
// sqrt(1/t)); as f32: 1.13862944.
// CHECK-LABEL: func @yarn_mscale
// CHECK-DAG: arith.constant 1.13862944 : f32
func.func @yarn_mscale() -> f32 {
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 4096 : i64} : tensor<32xf32>
  return %m : f32
}

// -----

// LongRoPE attention scaling sqrt(1 + ln(32) / ln(4096)) = sqrt(1 + 5/12)
// = 1.1902380714 (factor = 131072 / 4096 = 32); as f32: 1.19023812.
// CHECK-LABEL: func @longrope_mscale
// CHECK-DAG: arith.constant 1.19023812 : f32
func.func @longrope_mscale() -> f32 {
  %f, %m = pe.longrope_scale {short_factor = array<f64: 1.0>, long_factor = array<f64: 1.0>, original_max_position_embeddings = 4096 : i64, max_position_embeddings = 131072 : i64} : tensor<1xf32>
  return %m : f32
}

// -----

// A run-time sequence length keeps dynamic NTK as it is.
// CHECK-LABEL: func @dynamic_ntk_runtime
// CHECK: pe.dynamic_ntk_scale %{{.*}} : index
func.func @dynamic_ntk_runtime(%n: index) -> (tensor<32xf32>, f32) {
  %f, %m = pe.dynamic_ntk_scale %n : index {factor = 2.0 : f64, max_position_embeddings = 4096 : i64} : tensor<32xf32>
  return %f, %m : tensor<32xf32>, f32
}

// -----

// A run-time sequence length keeps LongRoPE as it is.
// CHECK-LABEL: func @longrope_runtime
// CHECK: pe.longrope_scale %{{.*}} : i64
func.func @longrope_runtime(%n: i64) -> (tensor<1xf32>, f32) {
  %f, %m = pe.longrope_scale %n : i64 {short_factor = array<f64: 1.0>, long_factor = array<f64: 2.0>, original_max_position_embeddings = 4096 : i64, max_position_embeddings = 131072 : i64} : tensor<1xf32>
  return %f, %m : tensor<1xf32>, f32
}

// -----

// Ops on run-time tensors never fold, and unused pure ops are erased.
// CHECK-LABEL: func @no_fold_tensor_ops
// CHECK: pe.rope half
// CHECK-NOT: pe.add_sinusoidal
func.func @no_fold_tensor_ops(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %f, %m = pe.rope_frequencies : tensor<4xf32>
  %unused = pe.add_sinusoidal interleaved %x : tensor<4x8xf32>
  %0 = pe.rope half %x inv_freq(%f : tensor<4xf32>) : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}
