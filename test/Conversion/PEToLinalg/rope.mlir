// RUN: pe-opt %s --convert-pe-to-linalg | FileCheck %s

// pe.rope: one elementwise generic; the partner channel of each pair is read
// with tensor.extract, the angle is formed and its cos/sin evaluated in f64.

// Half layout, R = 4 of D = 8: channel c < 2 pairs with c + 2, 2 <= c < 4
// with c - 2, channels >= 4 pass through.
// CHECK-LABEL: func @half_partial
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x?x8xf32>, %[[F:.*]]: tensor<2xf32>, %[[M:.*]]: f32, %[[O:.*]]: index)
// CHECK: %[[SUM:.*]] = arith.addi %{{.*}}, %[[O]] : index
// CHECK: %[[WRAP:.*]] = arith.cmpi slt, %[[SUM]], %[[O]]
// CHECK: %[[BASE:.*]] = arith.select %[[WRAP]], %{{.*}}, %[[SUM]]
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<1x2x?x8xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[T:.*]] = linalg.index 2
// CHECK: %[[PSUM:.*]] = arith.addi %[[BASE]], %[[T]]
// CHECK: %[[PWRAP:.*]] = arith.cmpi slt, %[[PSUM]], %[[BASE]]
// CHECK: %[[POS:.*]] = arith.select %[[PWRAP]], %{{.*}}, %[[PSUM]]
// CHECK: %[[C:.*]] = linalg.index 3
// CHECK: %[[FIRST:.*]] = arith.cmpi slt, %[[C]], %[[HALF:.*]] : index
// CHECK: %[[LO:.*]] = arith.subi %[[C]], %[[HALF]]
// CHECK: %[[HI:.*]] = arith.addi %[[C]], %[[HALF]]
// CHECK: %[[I:.*]] = arith.select %[[FIRST]], %[[C]], %[[LO]]
// CHECK: %[[PARTNER:.*]] = arith.select %[[FIRST]], %[[HI]], %[[LO]]
// CHECK: %[[ROT:.*]] = arith.cmpi slt, %[[C]], %[[R:.*]] : index
// CHECK: %[[PARTNER2:.*]] = arith.select %[[ROT]], %[[PARTNER]], %[[C]]
// CHECK: %[[I2:.*]] = arith.select %[[ROT]], %[[I]]
// CHECK: %[[XP:.*]] = tensor.extract %[[X]][%{{.*}}, %{{.*}}, %{{.*}}, %[[PARTNER2]]]
// CHECK: %[[FI:.*]] = tensor.extract %[[F]][%[[I2]]]
// CHECK: %[[ANGLE:.*]] = arith.mulf %{{.*}}, %{{.*}} : f64
// CHECK: math.cos %[[ANGLE]] : f64
// CHECK: math.sin %[[ANGLE]] : f64
// CHECK: %[[COS:.*]] = arith.mulf %{{.*}}, %[[M]] : f32
// CHECK: %[[SIN:.*]] = arith.mulf %{{.*}}, %[[M]] : f32
// CHECK: %[[XC:.*]] = arith.mulf %[[IN]], %[[COS]]
// CHECK: %[[PS:.*]] = arith.mulf %[[XP]], %[[SIN]]
// CHECK: %[[A:.*]] = arith.subf %[[XC]], %[[PS]]
// CHECK: %[[B:.*]] = arith.addf %[[XC]], %[[PS]]
// CHECK: %[[Y:.*]] = arith.select %[[FIRST]], %[[A]], %[[B]]
// CHECK: arith.select %[[ROT]], %[[Y]], %[[IN]]
func.func @half_partial(%x: tensor<1x2x?x8xf32>, %f: tensor<2xf32>, %m: f32, %o: index) -> tensor<1x2x?x8xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<2xf32>) attention_scaling(%m) offset(%o : index) {rotary_dim = 4 : i64} : tensor<1x2x?x8xf32>
  return %0 : tensor<1x2x?x8xf32>
}

// Interleaved pairs (2i, 2i+1) with cos/sin gathered from the caches at the
// clamped position; bf16 is computed in f32.
// CHECK-LABEL: func @interleaved_cache
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xbf16>, %[[COS:.*]]: tensor<16x2xf32>, %[[SIN:.*]]: tensor<16x2xf32>, %[[P:.*]]: tensor<3xi32>)
// CHECK: linalg.generic {{.*}} ins(%[[X]], %[[P]] : tensor<3x4xbf16>, tensor<3xi32>)
// CHECK: ^bb0(%[[IN:.*]]: bf16, %[[PI:.*]]: i32, %{{.*}}: bf16):
// CHECK: %[[POS:.*]] = arith.index_cast %[[PI]] : i32 to index
// CHECK: %[[C:.*]] = linalg.index 1
// CHECK: %[[REM:.*]] = arith.remui %[[C]], %{{.*}}
// CHECK: %[[FIRST:.*]] = arith.cmpi eq, %[[REM]]
// CHECK: %[[I:.*]] = arith.divui %[[C]]
// CHECK: %[[LO:.*]] = arith.maxsi %[[POS]]
// CHECK: %[[ROW:.*]] = arith.minsi %[[LO]]
// CHECK: tensor.extract %[[COS]][%[[ROW]], %[[I]]]
// CHECK: tensor.extract %[[SIN]][%[[ROW]], %[[I]]]
// CHECK: arith.extf %[[IN]] : bf16 to f32
// CHECK-NOT: math.cos
// CHECK: arith.truncf %{{.*}} : f32 to bf16
func.func @interleaved_cache(%x: tensor<3x4xbf16>, %c: tensor<16x2xf32>, %s: tensor<16x2xf32>, %p: tensor<3xi32>) -> tensor<3x4xbf16> {
  %0 = pe.rope interleaved %x cache(%c, %s : tensor<16x2xf32>, tensor<16x2xf32>) positions(%p : tensor<3xi32>) : tensor<3x4xbf16>
  return %0 : tensor<3x4xbf16>
}
