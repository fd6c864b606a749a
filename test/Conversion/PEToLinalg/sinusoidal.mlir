// RUN: pe-opt %s --convert-pe-to-linalg --split-input-file | FileCheck %s

// add_sinusoidal: per-channel frequency and sin/cos/pad tables as f64
// constants, angles and sin/cos in f64, one rounding at the end.

// CHECK-LABEL: func @interleaved_offset
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x4xf32>, %[[O:.*]]: i32)
// 10000^(-0/4) = 1 and 10000^(-2/4) = 0.01 on channel pairs (0,1), (2,3).
// CHECK-DAG: %[[FREQ:.*]] = arith.constant dense<[1.000000e+00, 1.000000e+00, 1.000000e-02, 1.000000e-02]> : tensor<4xf64>
// CHECK-DAG: %[[KIND:.*]] = arith.constant dense<[0.000000e+00, 1.000000e+00, 0.000000e+00, 1.000000e+00]> : tensor<4xf64>
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[OFF:.*]] = arith.index_cast %[[O]] : i32 to index
// CHECK: %[[SUM:.*]] = arith.addi %[[C3]], %[[OFF]]
// CHECK: %[[WRAP:.*]] = arith.cmpi slt, %[[SUM]], %[[OFF]]
// CHECK: %[[BASE:.*]] = arith.select %[[WRAP]], %{{.*}}, %[[SUM]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %[[FREQ]], %[[KIND]] : tensor<2x?x4xf32>, tensor<4xf64>, tensor<4xf64>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[F:.*]]: f64, %[[K:.*]]: f64, %{{.*}}: f32)
// CHECK: %[[T:.*]] = linalg.index 1
// CHECK: %[[PSUM:.*]] = arith.addi %[[BASE]], %[[T]]
// CHECK: %[[PWRAP:.*]] = arith.cmpi slt, %[[PSUM]], %[[BASE]]
// CHECK: %[[P:.*]] = arith.select %[[PWRAP]], %{{.*}}, %[[PSUM]]
// CHECK: %[[ANGLE:.*]] = arith.mulf %{{.*}}, %[[F]] : f64
// CHECK-DAG: math.sin %[[ANGLE]] : f64
// CHECK-DAG: math.cos %[[ANGLE]] : f64
// CHECK: %[[XE:.*]] = arith.extf %[[IN]] : f32 to f64
// CHECK: %[[Y:.*]] = arith.addf %[[XE]]
// CHECK: arith.truncf %[[Y]] : f64 to f32
func.func @interleaved_offset(%x: tensor<2x?x4xf32>, %o: i32) -> tensor<2x?x4xf32> {
  %0 = pe.add_sinusoidal interleaved %x offset(%o : i32) {static_offset = 3 : i64} : tensor<2x?x4xf32>
  return %0 : tensor<2x?x4xf32>
}

// -----

// Concat of 5 channels: h = 2, w_k = exp(-k ln(10000) / (h - 1)) = [1, 1e-4],
// [sin sin cos cos pad]; scale_input multiplies by sqrt(5).
// CHECK-LABEL: func @concat_positions
// CHECK-DAG: arith.constant dense<[1.000000e+00, {{1.000000e-04|9.9999999999999[0-9]*E-5}}, 1.000000e+00, {{1.000000e-04|9.9999999999999[0-9]*E-5}}, 0.000000e+00]> : tensor<5xf64>
// CHECK-DAG: arith.constant dense<[0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00, 2.000000e+00]> : tensor<5xf64>
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}}, %{{.*}}, %[[POS:.*]] : tensor<2x3x5xf16>, tensor<5xf64>, tensor<5xf64>, tensor<2x3xi64>)
// CHECK: ^bb0(%{{.*}}: f16, %{{.*}}: f64, %{{.*}}: f64, %[[PI:.*]]: i64,
// CHECK: arith.index_cast %[[PI]]
// CHECK: arith.constant 2.236067977{{[0-9]*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f16
func.func @concat_positions(%x: tensor<2x3x5xf16>, %p: tensor<2x3xi64>) -> tensor<2x3x5xf16> {
  %0 = pe.add_sinusoidal concat %x positions(%p : tensor<2x3xi64>) {scale_input} : tensor<2x3x5xf16>
  return %0 : tensor<2x3x5xf16>
}
