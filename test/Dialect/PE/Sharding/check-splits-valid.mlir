// RUN: pe-opt %s --pass-pipeline='builtin.module(func.func(pe-shard-check-splits))' | FileCheck %s

// What pe-shard-check-splits accepts and leaves unchanged: even splits
// (over one or two axes), replicated values, dynamic dimensions (known at
// run time), explicit sharded_dims_offsets (which state uneven blocks) and
// scalars.

shard.grid @grid(shape = 2x3) {sym_visibility = "private"}

// CHECK-LABEL: func @accepted
// CHECK-COUNT-5: shard.shard
// CHECK: return
func.func @accepted(%a: tensor<12x4xf32>, %b: tensor<?x4xf32>, %c: tensor<5x4xf32>, %d: tensor<3x4xf32>) -> (tensor<12x4xf32>, tensor<?x4xf32>, tensor<5x4xf32>, tensor<3x4xf32>) {
  %even = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %as = shard.shard %a to %even : tensor<12x4xf32>
  %bs = shard.shard %b to %even : tensor<?x4xf32>
  %offsets = shard.sharding @grid split_axes = [[0]] sharded_dims_offsets = [0, 3, 5] : !shard.sharding
  %cs = shard.shard %c to %offsets : tensor<5x4xf32>
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %ds = shard.shard %d to %rep : tensor<3x4xf32>
  %row = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %as2 = shard.shard %as to %row annotate_for_users : tensor<12x4xf32>
  return %as2, %bs, %cs, %ds : tensor<12x4xf32>, tensor<?x4xf32>, tensor<5x4xf32>, tensor<3x4xf32>
}
