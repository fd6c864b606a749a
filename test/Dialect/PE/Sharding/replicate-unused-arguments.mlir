// RUN: pe-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(pe-shard-replicate-unused-arguments))' | FileCheck %s
// RUN: pe-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(sharding-propagation,pe-shard-replicate-unused-arguments,shard-partition))' | FileCheck %s --check-prefix=PART
// RUN: pe-opt %s --split-input-file --pass-pipeline='builtin.module(pe-shard-pipeline{lower-to-llvm=false})' | FileCheck %s --check-prefix=PART
// RUN: pe-opt %s --split-input-file --pe-shard-pipeline -o /dev/null

// MLIR 22's shard-partition crashes on a function with an unused tensor
// argument (it dereferences the argument's missing shard.shard user). The
// pass annotates such arguments as replicated, on the grid of the block's
// first annotation; partitioning then keeps them whole.

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// CHECK-LABEL: func @unused(
// CHECK-SAME: %[[X:.*]]: tensor<2x8x4xf32>, %[[U:.*]]: tensor<3x5xf32>, %[[S:.*]]: index, %[[Z:.*]]: tensor<f32>
// CHECK-NEXT: %[[REP:.*]] = shard.sharding @grid split_axes = [] : !shard.sharding
// CHECK-NEXT: shard.shard %[[U]] to %[[REP]] : tensor<3x5xf32>
// CHECK-NOT: shard.shard %[[S]]
// CHECK-NOT: shard.shard %[[Z]]
// CHECK: shard.shard %[[X]] to
// PART-LABEL: func @unused(
// PART-SAME: %{{.*}}: tensor<2x4x4xf32>, %{{.*}}: tensor<3x5xf32>, %{{.*}}: index, %{{.*}}: tensor<f32>) -> tensor<2x4x4xf32>
func.func @unused(%x: tensor<2x8x4xf32>, %u: tensor<3x5xf32>, %s: index, %z: tensor<f32>) -> tensor<2x8x4xf32> {
  %seq = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %seq : tensor<2x8x4xf32>
  %y = pe.add_sinusoidal interleaved %xs : tensor<2x8x4xf32>
  %ys = shard.shard %y to %seq : tensor<2x8x4xf32>
  return %ys : tensor<2x8x4xf32>
}

// -----

// Two unused arguments share one replicated sharding; used ones are left.
shard.grid @grid(shape = 2) {sym_visibility = "private"}

// CHECK-LABEL: func @two_unused(
// CHECK-SAME: %[[A:[^:]*]]: tensor<4xf32>, %[[X:[^:]*]]: tensor<8x4xf32>, %[[B:[^:]*]]: tensor<4xf32>
// CHECK-NEXT: %[[REP:.*]] = shard.sharding @grid split_axes = [] : !shard.sharding
// CHECK-NEXT: shard.shard %[[A]] to %[[REP]] : tensor<4xf32>
// CHECK-NEXT: shard.shard %[[B]] to %[[REP]] : tensor<4xf32>
// CHECK-NOT: shard.sharding @grid split_axes = []
// PART-LABEL: func @two_unused(
// PART-SAME: tensor<4xf32>, %{{.*}}: tensor<4x4xf32>, %{{.*}}: tensor<4xf32>) -> tensor<4x4xf32>
func.func @two_unused(%a: tensor<4xf32>, %x: tensor<8x4xf32>, %b: tensor<4xf32>) -> tensor<8x4xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<8x4xf32>
  return %xs : tensor<8x4xf32>
}

// -----

// Not partitioned (no annotation): left alone, unused argument included.
// CHECK-LABEL: func @unsharded(
// CHECK-NOT: shard.
// CHECK: return
func.func @unsharded(%x: tensor<8x4xf32>, %u: tensor<4xf32>) -> tensor<8x4xf32> {
  return %x : tensor<8x4xf32>
}
