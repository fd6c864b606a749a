// RUN: pe-opt %s --convert-pe-to-linalg | FileCheck %s

// Frequency ops with constant inputs become the constants of their folders;
// run-time sequence lengths become scalar arithmetic (dynamic NTK) or a select
// between the two folded tables (LongRoPE).

// YaRN, R = 4, factor 4, L = 64: both pairs fall below the ramp (low = 0,
// high = 1 after clamping), pair 0 keeps base^0 = 1, pair 1 is interpolated
// to 0.01 / 4; attention scaling 0.1 ln 4 + 1.
// CHECK-LABEL: func @yarn
// CHECK-DAG: %[[F:.*]] = arith.constant dense<[1.000000e+00, 2.500000e-03]> : tensor<2xf32>
// CHECK-DAG: %[[M:.*]] = arith.constant 1.13862944 : f32
// CHECK: return %[[F]], %[[M]]
func.func @yarn() -> (tensor<2xf32>, f32) {
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 64 : i64} : tensor<2xf32>
  return %f, %m : tensor<2xf32>, f32
}

// base' = 10000 * ((2 s / 16) - 1)^(4 / 2) with s = max(n, 16);
// inv_freq[i] = exp(-(2i/4) ln base').
// CHECK-LABEL: func @dynamic_ntk
// CHECK-SAME: (%[[N:.*]]: index)
// CHECK: %[[NF:.*]] = arith.sitofp
// CHECK: %[[S:.*]] = arith.maximumf %[[NF]], %{{.*}} : f64
// CHECK: %[[A:.*]] = arith.mulf %[[S]], %{{.*}} : f64
// CHECK: %[[B:.*]] = arith.subf %[[A]], %{{.*}} : f64
// CHECK: %[[P:.*]] = math.powf %[[B]], %{{.*}} : f64
// CHECK: %[[BASE:.*]] = arith.mulf %{{.*}}, %[[P]] : f64
// CHECK: %[[LN:.*]] = math.log %[[BASE]] : f64
// CHECK: linalg.generic
// CHECK: arith.mulf %{{.*}}, %[[LN]] : f64
// CHECK: math.exp
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: return %{{.*}}, %[[ONE]]
func.func @dynamic_ntk(%n: index) -> (tensor<4xf32>, f32) {
  %f, %m = pe.dynamic_ntk_scale %n : index {factor = 2.0 : f64, max_position_embeddings = 16 : i64} : tensor<4xf32>
  return %f, %m : tensor<4xf32>, f32
}

// short: [1/1, 0.01/2], long: [1/4, 0.01/8]; sqrt(1 + ln 4 / ln 16) = sqrt(1.5).
// CHECK-LABEL: func @longrope
// CHECK-SAME: (%[[N:.*]]: i32)
// CHECK: %[[NI:.*]] = arith.index_cast %[[N]] : i32 to index
// CHECK: %[[LONG:.*]] = arith.cmpi sgt, %[[NI]], %{{.*}} : index
// CHECK-DAG: %[[LT:.*]] = arith.constant dense<[2.500000e-01, 1.250000e-03]> : tensor<2xf32>
// CHECK-DAG: %[[ST:.*]] = arith.constant dense<[1.000000e+00, 5.000000e-03]> : tensor<2xf32>
// CHECK: arith.select %[[LONG]], %[[LT]], %[[ST]] : tensor<2xf32>
// CHECK: arith.constant 1.22474492 : f32
func.func @longrope(%n: i32) -> (tensor<2xf32>, f32) {
  %f, %m = pe.longrope_scale %n : i32 {short_factor = array<f64: 1.0, 2.0>, long_factor = array<f64: 4.0, 8.0>, original_max_position_embeddings = 16 : i64, max_position_embeddings = 64 : i64} : tensor<2xf32>
  return %f, %m : tensor<2xf32>, f32
}
