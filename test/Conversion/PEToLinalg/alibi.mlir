// RUN: pe-opt %s --convert-pe-to-linalg | FileCheck %s

// alibi_bias: slopes are constants from the ALiBi paper formula unless given;
// bias[h, i, j] = slope_h * b(q = offset + i, j) in f64.

// Six heads: 2^floor(log2 6) = 4 -> 2^(-2(h+1)) for h < 4, then
// 2^(-1), 2^(-3) (paper get_slopes, formula sheet A5).
// CHECK-LABEL: func @symmetric
// CHECK-SAME: (%[[TK:.*]]: index, %[[O:.*]]: index)
// CHECK-DAG: %[[SLOPES:.*]] = arith.constant dense<[2.500000e-01, 6.250000e-02, 1.562500e-02, 3.906250e-03, 5.000000e-01, 1.250000e-01]> : tensor<6xf64>
// CHECK-DAG: %[[INIT:.*]] = tensor.empty(%[[TK]]) : tensor<6x1x?xf32>
// CHECK: %[[QB:.*]] = arith.addi %{{.*}}, %[[O]]
// CHECK: linalg.generic {{.*}} ins(%[[SLOPES]] : tensor<6xf64>) outs(%[[INIT]] : tensor<6x1x?xf32>)
// CHECK: ^bb0(%[[S:.*]]: f64, %{{.*}}: f32):
// CHECK: %[[I:.*]] = linalg.index 1
// CHECK: arith.addi %[[QB]], %[[I]]
// CHECK: %[[J:.*]] = linalg.index 2
// CHECK: %[[D:.*]] = arith.subf %[[Q:.*]], %[[K:.*]] : f64
// CHECK: %[[A:.*]] = math.absf %[[D]]
// CHECK: %[[N:.*]] = arith.negf %[[A]]
// CHECK: %[[V:.*]] = arith.mulf %[[S]], %[[N]]
// CHECK: arith.truncf %[[V]] : f64 to f32
func.func @symmetric(%tk: index, %o: index) -> tensor<6x1x?xf32> {
  %0 = pe.alibi_bias symmetric [%tk] offset(%o : index) : tensor<6x1x?xf32>
  return %0 : tensor<6x1x?xf32>
}

// CHECK-LABEL: func @signed
// CHECK-NOT: math.absf
// CHECK: %[[D:.*]] = arith.subf %[[K:.*]], %[[Q:.*]] : f64
// CHECK: arith.mulf %{{.*}}, %[[D]]
func.func @signed() -> tensor<2x3x3xf32> {
  %0 = pe.alibi_bias signed : tensor<2x3x3xf32>
  return %0 : tensor<2x3x3xf32>
}

// Explicit slopes; key distance: slope * j.
// CHECK-LABEL: func @key_slopes
// CHECK-SAME: (%[[SL:.*]]: tensor<2xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[SL]] : tensor<2xf32>)
// CHECK: ^bb0(%[[S:.*]]: f32, %{{.*}}: f16):
// CHECK: %[[J:.*]] = linalg.index 2
// CHECK: %[[JC:.*]] = arith.index_cast %[[J]]
// CHECK: %[[JF:.*]] = arith.sitofp %[[JC]]
// CHECK: %[[SE:.*]] = arith.extf %[[S]] : f32 to f64
// CHECK: %[[V:.*]] = arith.mulf %[[SE]], %[[JF]]
// CHECK: arith.truncf %[[V]] : f64 to f16
func.func @key_slopes(%s: tensor<2xf32>) -> tensor<2x3x3xf16> {
  %0 = pe.alibi_bias key slopes(%s : tensor<2xf32>) : tensor<2x3x3xf16>
  return %0 : tensor<2x3x3xf16>
}
