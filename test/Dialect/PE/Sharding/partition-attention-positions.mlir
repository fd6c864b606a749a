// RUN: pe-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition),canonicalize,cse)' | FileCheck %s

// RoPE positions tensors of pe.attention follow the sequence dimension they
// position: a split of the query rows splits query_positions ([T] and
// [B, T]) with them, and no offset is added (the positions are global).

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Query rows split: the [B, Tq] query positions arrive split along their
// tokens, the [Tk] key positions whole; the local op has no query_offset.
// CHECK-LABEL: func @rows_positions
// CHECK-SAME: (%[[Q:.*]]: tensor<2x2x4x8xf32>, %{{.*}}: tensor<2x2x8x8xf32>, %{{.*}}: tensor<2x2x8x8xf32>, %{{.*}}: tensor<4xf32>, %[[PQ:.*]]: tensor<2x4xi64>, %[[PK:.*]]: tensor<8xi32>)
// CHECK: pe.attention %[[Q]], %{{.*}}, %{{.*}} causal_offset(%{{.*}} : index) rope <half> inv_freq(%{{.*}} : tensor<4xf32>) query_positions(%[[PQ]] : tensor<2x4xi64>) key_positions(%[[PK]] : tensor<8xi32>) outs({{[^)]*}}) {causal} : tensor<2x2x4x8xf32>, tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32> -> tensor<2x2x4x8xf32>
// CHECK-NOT: query_offset(
func.func @rows_positions(%q: tensor<2x2x8x8xf32>, %k: tensor<2x2x8x8xf32>, %v: tensor<2x2x8x8xf32>, %f: tensor<4xf32>, %pq: tensor<2x8xi64>, %pk: tensor<8xi32>) -> tensor<2x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %qs = shard.shard %q to %s : tensor<2x2x8x8xf32>
  %sp = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %pqs = shard.shard %pq to %sp : tensor<2x8xi64>
  %init = tensor.empty() : tensor<2x2x8x8xf32>
  %o = pe.attention %qs, %k, %v rope <half> inv_freq(%f : tensor<4xf32>) query_positions(%pqs : tensor<2x8xi64>) key_positions(%pk : tensor<8xi32>) outs(%init : tensor<2x2x8x8xf32>) {causal} : tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32> -> tensor<2x2x8x8xf32>
  %os = shard.shard %o to %s : tensor<2x2x8x8xf32>
  return %os : tensor<2x2x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Batch split: [B, T] positions split with the batch, [T] positions are
// replicated.
// CHECK-LABEL: func @batch_positions
// CHECK-SAME: %[[PQ:[a-z0-9]+]]: tensor<8xi32>, %[[PK:[a-z0-9]+]]: tensor<1x8xi64>
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half> inv_freq(%{{.*}} : tensor<4xf32>) query_positions(%[[PQ]] : tensor<8xi32>) key_positions(%[[PK]] : tensor<1x8xi64>) outs({{[^)]*}}) : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
func.func @batch_positions(%q: tensor<2x2x8x8xf32>, %k: tensor<2x2x8x8xf32>, %v: tensor<2x2x8x8xf32>, %f: tensor<4xf32>, %pq: tensor<8xi32>, %pk: tensor<2x8xi64>) -> tensor<2x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %qs = shard.shard %q to %s : tensor<2x2x8x8xf32>
  %ks = shard.shard %k to %s : tensor<2x2x8x8xf32>
  %vs = shard.shard %v to %s : tensor<2x2x8x8xf32>
  %pks = shard.shard %pk to %s : tensor<2x8xi64>
  %init = tensor.empty() : tensor<2x2x8x8xf32>
  %o = pe.attention %qs, %ks, %vs rope <half> inv_freq(%f : tensor<4xf32>) query_positions(%pq : tensor<8xi32>) key_positions(%pks : tensor<2x8xi64>) outs(%init : tensor<2x2x8x8xf32>) : tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32>, tensor<2x2x8x8xf32> -> tensor<2x2x8x8xf32>
  %os = shard.shard %o to %s : tensor<2x2x8x8xf32>
  return %os : tensor<2x2x8x8xf32>
}
