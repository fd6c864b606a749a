// RUN: pe-opt %s --convert-pe-to-linalg | FileCheck %s

// add_learned: gather the table row of each token's (clamped) position and
// add in f32.

// CHECK-LABEL: func @learned
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x4xf16>, %[[T:.*]]: tensor<?x4xf16>, %[[O:.*]]: i64)
// CHECK: %[[ROWS:.*]] = tensor.dim %[[T]], %{{.*}} : tensor<?x4xf16>
// CHECK: %[[OFF:.*]] = arith.index_cast %[[O]] : i64 to index
// The position static_offset + offset + t saturates at INT64_MAX (then
// clamped to the last row) instead of wrapping to a negative one (row 0).
// CHECK: %[[SUM:.*]] = arith.addi %{{.*}}, %[[OFF]]
// CHECK: %[[WRAP:.*]] = arith.cmpi slt, %[[SUM]], %[[OFF]]
// CHECK: %[[BASE:.*]] = arith.select %[[WRAP]], %{{.*}}, %[[SUM]]
// CHECK: linalg.generic {{.*}} ins(%[[X]] : tensor<2x?x4xf16>)
// CHECK: ^bb0(%[[IN:.*]]: f16, %{{.*}}: f16):
// CHECK: %[[TOK:.*]] = linalg.index 1
// CHECK: %[[PSUM:.*]] = arith.addi %[[BASE]], %[[TOK]]
// CHECK: %[[PWRAP:.*]] = arith.cmpi slt, %[[PSUM]], %[[BASE]]
// CHECK: %[[P:.*]] = arith.select %[[PWRAP]], %{{.*}}, %[[PSUM]]
// CHECK: %[[LAST:.*]] = arith.subi %[[ROWS]], %{{.*}}
// CHECK: %[[LO:.*]] = arith.maxsi %[[P]], %{{.*}}
// CHECK: %[[ROW:.*]] = arith.minsi %[[LO]], %[[LAST]]
// CHECK: %[[COL:.*]] = linalg.index 2
// CHECK: %[[W:.*]] = tensor.extract %[[T]][%[[ROW]], %[[COL]]]
// CHECK: %[[A:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK: %[[B:.*]] = arith.extf %[[W]] : f16 to f32
// CHECK: %[[S:.*]] = arith.addf %[[A]], %[[B]] : f32
// CHECK: arith.truncf %[[S]] : f32 to f16
func.func @learned(%x: tensor<2x?x4xf16>, %t: tensor<?x4xf16>, %o: i64) -> tensor<2x?x4xf16> {
  %0 = pe.add_learned %x, %t offset(%o : i64) : tensor<2x?x4xf16>, tensor<?x4xf16>
  return %0 : tensor<2x?x4xf16>
}
