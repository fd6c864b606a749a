// RUN: pe-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(sharding-propagation,pe-shard-unfold-constants))' | FileCheck %s
// RUN: pe-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(sharding-propagation,pe-shard-unfold-constants,shard-partition),canonicalize,cse)' | FileCheck %s --check-prefix=PART

// Non-splat constants (which MLIR 22's shard-partition rejects without a
// diagnostic) become replicated tensor.from_elements, resharded to their own
// sharding; after partitioning they fold back.

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// A folded frequency table, replicated.
// CHECK-LABEL: func @replicated
// CHECK-NOT: arith.constant dense
// CHECK: %[[T:.*]] = tensor.from_elements %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<4xf32>
// CHECK: %[[REP:.*]] = shard.sharding @grid split_axes = [] : !shard.sharding
// CHECK: %[[A:.*]] = shard.shard %[[T]] to %[[REP]] : tensor<4xf32>
// CHECK: %[[U:.*]] = shard.shard %[[A]] to %[[REP]] annotate_for_users : tensor<4xf32>
// CHECK: shard.shard %[[U]] to %{{.*}} : tensor<4xf32>
// PART-LABEL: func @replicated
// PART: %[[F:.*]] = arith.constant dense<[1.000000e+00, 1.000000e-01, 0.00999999977, 1.000000e-03]> : tensor<4xf32>
// PART: pe.rope half %{{.*}} inv_freq(%[[F]] : tensor<4xf32>) offset(%{{.*}} : index) : tensor<1x2x4x8xf32>
func.func @replicated(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<1x2x8x8xf32>
  %f = arith.constant dense<[1.0, 0.1, 0.01, 0.001]> : tensor<4xf32>
  %y = pe.rope half %xs inv_freq(%f : tensor<4xf32>) : tensor<1x2x8x8xf32>
  %ys = shard.shard %y to %s : tensor<1x2x8x8xf32>
  return %ys : tensor<1x2x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// An explicit slope table split with the heads: each process slices it.
// PART-LABEL: func @split
// PART: %[[T:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01, 1.250000e-01, 6.250000e-02]> : tensor<4xf32>
// PART: %[[S:.*]] = shard.all_slice %[[T]] on @grid grid_axes = [0] slice_axis = 0 : tensor<4xf32> -> tensor<2xf32>
// PART: pe.alibi_bias symmetric slopes(%[[S]] : tensor<2xf32>) : tensor<2x8x8xf32>
func.func @split() -> tensor<4x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %sl = arith.constant dense<[0.5, 0.25, 0.125, 0.0625]> : tensor<4xf32>
  %b = pe.alibi_bias symmetric slopes(%sl : tensor<4xf32>) : tensor<4x8x8xf32>
  %bs = shard.shard %b to %s : tensor<4x8x8xf32>
  return %bs : tensor<4x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Splat constants are upstream's business: unchanged.
// CHECK-LABEL: func @splat
// CHECK: arith.constant dense<1.000000e+00> : tensor<4xf32>
// CHECK-NOT: tensor.from_elements
func.func @splat(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<1x2x8x8xf32>
  %f = arith.constant dense<1.0> : tensor<4xf32>
  %y = pe.rope half %xs inv_freq(%f : tensor<4xf32>) : tensor<1x2x8x8xf32>
  %ys = shard.shard %y to %s : tensor<1x2x8x8xf32>
  return %ys : tensor<1x2x8x8xf32>
}

// -----

// A constant outside any sharding: unchanged.
// CHECK-LABEL: func @unsharded
// CHECK: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK-NOT: tensor.from_elements
func.func @unsharded() -> tensor<2xf32> {
  %c = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  return %c : tensor<2xf32>
}
