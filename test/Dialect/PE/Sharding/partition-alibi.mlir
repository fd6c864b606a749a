// RUN: pe-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition),canonicalize,cse)' | FileCheck %s

// The sharding of pe.alibi_bias [H, Tq, Tk]: a head shard uses the slopes of
// its global heads (the slope table sliced at its first head); a query-row
// shard starts its query positions later; a key shard of a distance that
// depends on q - j only moves the query offset back by its first key.

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// 12 heads over 2 processes: the 12-head table (2^(-8/8 ... )) is sliced at
// 6 * idx; 12 is not a power of two, so the table interleaves the slopes of
// 8 and 16 heads.
// CHECK-LABEL: func @alibi_heads
// CHECK-DAG: %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG: %[[TABLE:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01, 1.250000e-01, 6.250000e-02, 3.125000e-02, 1.562500e-02, 7.812500e-03, 3.906250e-03, 0.70710678118654{{[0-9]+}}, 0.353553390593273{{[0-9]+}}, 0.176776695296636{{[0-9]+}}, 0.0883883476483184{{[0-9]+}}]> : tensor<12xf64>
// CHECK: %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// CHECK: %[[START:.*]] = arith.muli %[[IDX]], %[[C6]] : index
// CHECK: %[[MINE:.*]] = tensor.extract_slice %[[TABLE]][%[[START]]] [6] [1] : tensor<12xf64> to tensor<6xf64>
// CHECK: pe.alibi_bias symmetric slopes(%[[MINE]] : tensor<6xf64>) : tensor<6x8x8xf32>
func.func @alibi_heads() -> tensor<12x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %b = pe.alibi_bias symmetric : tensor<12x8x8xf32>
  %bs = shard.shard %b to %s : tensor<12x8x8xf32>
  return %bs : tensor<12x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Explicit slopes are split with the heads by their indexing map: no table.
// CHECK-LABEL: func @alibi_heads_explicit
// CHECK-SAME: (%[[S:.*]]: tensor<2xf32>)
// CHECK-NOT: arith.constant dense
// CHECK: pe.alibi_bias signed slopes(%[[S]] : tensor<2xf32>) : tensor<2x4x4xf32>
func.func @alibi_heads_explicit(%sl: tensor<4xf32>) -> tensor<4x4x4xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %sls = shard.shard %sl to %s : tensor<4xf32>
  %b = pe.alibi_bias signed slopes(%sls : tensor<4xf32>) : tensor<4x4x4xf32>
  %bs = shard.shard %b to %s : tensor<4x4x4xf32>
  return %bs : tensor<4x4x4xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Query rows split: offset + 4 * idx.
// CHECK-LABEL: func @alibi_rows
// CHECK-SAME: (%[[O:.*]]: index)
// CHECK: %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// CHECK: %[[START:.*]] = arith.muli %[[IDX]], %{{.*}} : index
// CHECK: %[[NEW:.*]] = arith.addi %[[O]], %[[START]] : index
// CHECK: pe.alibi_bias key offset(%[[NEW]] : index) : tensor<4x4x8xf32>
func.func @alibi_rows(%o: index) -> tensor<4x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %b = pe.alibi_bias key offset(%o : index) : tensor<4x8x8xf32>
  %bs = shard.shard %b to %s : tensor<4x8x8xf32>
  return %bs : tensor<4x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Key columns split (symmetric): offset - 4 * idx.
// CHECK-LABEL: func @alibi_keys
// CHECK: %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// CHECK: %[[START:.*]] = arith.muli %[[IDX]], %{{.*}} : index
// CHECK: %[[NEW:.*]] = arith.subi %{{.*}}, %[[START]] : index
// CHECK: pe.alibi_bias symmetric offset(%[[NEW]] : index) : tensor<4x8x4xf32>
func.func @alibi_keys() -> tensor<4x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %b = pe.alibi_bias symmetric : tensor<4x8x8xf32>
  %bs = shard.shard %b to %s : tensor<4x8x8xf32>
  return %bs : tensor<4x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Key columns of the `key` distance (b = j) cannot be shifted by a query
// offset: computed whole (replicated), then each process keeps its columns.
// CHECK-LABEL: func @alibi_keys_key_distance
// CHECK: %[[ALL:.*]] = pe.alibi_bias key : tensor<4x8x8xf32>
// CHECK: shard.all_slice %[[ALL]] on @grid grid_axes = [0] slice_axis = 2 : tensor<4x8x8xf32> -> tensor<4x8x4xf32>
func.func @alibi_keys_key_distance() -> tensor<4x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %b = pe.alibi_bias key : tensor<4x8x8xf32>
  %br = shard.shard %b to %r : tensor<4x8x8xf32>
  %bs = shard.shard %br to %s annotate_for_users : tensor<4x8x8xf32>
  return %bs : tensor<4x8x8xf32>
}
