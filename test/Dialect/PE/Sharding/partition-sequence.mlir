// RUN: pe-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition),canonicalize,cse)' | FileCheck %s

// The sharding of pe.rope, pe.add_sinusoidal and pe.add_learned: a shard of
// the token dimension starts at global token (process index * local length),
// which is added to the position offset; batch and head shards keep it.

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// RoPE over [B, H, T, D] with T split: the local op rotates 4 tokens from
// 3 + off + 4 * idx on.
// CHECK-LABEL: func @rope_seq
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x4x8xf32>, %[[OFF:.*]]: i32) -> tensor<1x2x4x8xf32>
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// CHECK-DAG: %[[START:.*]] = arith.muli %[[IDX]], %[[C4]] : index
// CHECK-DAG: %[[OLD:.*]] = arith.index_cast %[[OFF]] : i32 to index
// CHECK: %[[NEW:.*]] = arith.addi %[[OLD]], %[[START]] : index
// CHECK: pe.rope half %[[X]] inv_freq(%{{.*}} : tensor<4xf64>) offset(%[[NEW]] : index) {static_offset = 3 : i64} : tensor<1x2x4x8xf32>
func.func @rope_seq(%x: tensor<1x2x8x8xf32>, %off: i32) -> tensor<1x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<1x2x8x8xf32>
  %f, %m = pe.rope_frequencies : tensor<4xf32>
  %y = pe.rope half %xs inv_freq(%f : tensor<4xf32>) offset(%off : i32) {static_offset = 3 : i64} : tensor<1x2x8x8xf32>
  %ys = shard.shard %y to %s : tensor<1x2x8x8xf32>
  return %ys : tensor<1x2x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// [B, S, H, D] (sequence_dim = 1) with S split, llama3 frequencies: the
// frequency op is computed whole on every process (replicated), and the
// offset is the shard's start.
// CHECK-LABEL: func @rope_bshd_llama3
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x2x16xf32>)
// CHECK: %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// CHECK: %[[START:.*]] = arith.muli %[[IDX]], %{{.*}} : index
// CHECK: pe.rope half %[[X]] inv_freq(%{{.*}} : tensor<8xf64>) offset(%[[START]] : index) {sequence_dim = 1 : i64} : tensor<1x8x2x16xf32>
func.func @rope_bshd_llama3(%x: tensor<1x16x2x16xf32>) -> tensor<1x16x2x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<1x16x2x16xf32>
  %f, %m = pe.llama3_scale {base = 500000.0 : f64, factor = 8.0 : f64, low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64, original_max_position_embeddings = 8 : i64} : tensor<8xf32>
  %y = pe.rope half %xs inv_freq(%f : tensor<8xf32>) {sequence_dim = 1 : i64} : tensor<1x16x2x16xf32>
  %ys = shard.shard %y to %s : tensor<1x16x2x16xf32>
  return %ys : tensor<1x16x2x16xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Explicit positions are split with the tokens: no offset.
// CHECK-LABEL: func @rope_positions
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32>, %[[P:.*]]: tensor<4xi64>)
// CHECK-NOT: process
// CHECK: pe.rope interleaved %[[X]] inv_freq(%{{.*}}) positions(%[[P]] : tensor<4xi64>) : tensor<2x4x8xf32>
func.func @rope_positions(%x: tensor<2x8x8xf32>, %p: tensor<8xi64>) -> tensor<2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<2x8x8xf32>
  %f, %m = pe.rope_frequencies : tensor<4xf32>
  %y = pe.rope interleaved %xs inv_freq(%f : tensor<4xf32>) positions(%p : tensor<8xi64>) : tensor<2x8x8xf32>
  %ys = shard.shard %y to %s : tensor<2x8x8xf32>
  return %ys : tensor<2x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Heads split: the positions do not change (no process index at all).
// CHECK-LABEL: func @rope_heads
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x8x8xf32>, %[[O:.*]]: index)
// CHECK-NOT: process
// CHECK: pe.rope half %[[X]] inv_freq(%{{.*}}) offset(%[[O]] : index) : tensor<1x2x8x8xf32>
func.func @rope_heads(%x: tensor<1x4x8x8xf32>, %o: index) -> tensor<1x4x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<1x4x8x8xf32>
  %f, %m = pe.rope_frequencies : tensor<4xf32>
  %y = pe.rope half %xs inv_freq(%f : tensor<4xf32>) offset(%o : index) : tensor<1x4x8x8xf32>
  %ys = shard.shard %y to %s : tensor<1x4x8x8xf32>
  return %ys : tensor<1x4x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Per-token caches [B, T, R/2] are split with the tokens.
// CHECK-LABEL: func @rope_per_token
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x2x8xf32>, %[[C:.*]]: tensor<2x4x4xf32>, %[[S:.*]]: tensor<2x4x4xf32>)
// CHECK-NOT: process
// CHECK: pe.rope half %[[X]] cache(%[[C]], %[[S]] : tensor<2x4x4xf32>, tensor<2x4x4xf32>) {sequence_dim = 1 : i64} : tensor<2x4x2x8xf32>
func.func @rope_per_token(%x: tensor<2x8x2x8xf32>, %c: tensor<2x8x4xf32>, %sn: tensor<2x8x4xf32>) -> tensor<2x8x2x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<2x8x2x8xf32>
  %y = pe.rope half %xs cache(%c, %sn : tensor<2x8x4xf32>, tensor<2x8x4xf32>) {sequence_dim = 1 : i64} : tensor<2x8x2x8xf32>
  %ys = shard.shard %y to %s : tensor<2x8x2x8xf32>
  return %ys : tensor<2x8x2x8xf32>
}

// -----

shard.grid @grid(shape = 4) {sym_visibility = "private"}

// Sinusoidal over 4 processes: 16 tokens, 4 each.
// CHECK-LABEL: func @sinusoidal_seq
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x32xf32>)
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// CHECK: %[[START:.*]] = arith.muli %[[IDX]], %[[C4]] : index
// CHECK: pe.add_sinusoidal interleaved %[[X]] offset(%[[START]] : index) : tensor<2x4x32xf32>
func.func @sinusoidal_seq(%x: tensor<2x16x32xf32>) -> tensor<2x16x32xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<2x16x32xf32>
  %y = pe.add_sinusoidal interleaved %xs : tensor<2x16x32xf32>
  %ys = shard.shard %y to %s : tensor<2x16x32xf32>
  return %ys : tensor<2x16x32xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Learned table: replicated; the rows follow the global positions.
// CHECK-LABEL: func @learned_seq
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x16xf32>, %[[W:.*]]: tensor<32x16xf32>, %[[P:.*]]: index)
// CHECK: %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// CHECK: %[[START:.*]] = arith.muli %[[IDX]], %{{.*}} : index
// CHECK: %[[NEW:.*]] = arith.addi %[[P]], %[[START]] : index
// CHECK: pe.add_learned %[[X]], %[[W]] offset(%[[NEW]] : index) : tensor<1x4x16xf32>, tensor<32x16xf32>
func.func @learned_seq(%x: tensor<1x8x16xf32>, %w: tensor<32x16xf32>, %p: index) -> tensor<1x8x16xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<1x8x16xf32>
  %ws = shard.shard %w to %r : tensor<32x16xf32>
  %y = pe.add_learned %xs, %ws offset(%p : index) : tensor<1x8x16xf32>, tensor<32x16xf32>
  %ys = shard.shard %y to %s : tensor<1x8x16xf32>
  return %ys : tensor<1x8x16xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// The channel dimension is never split: with the input split over channels
// and the result replicated, the op runs on the gathered input.
// CHECK-LABEL: func @rope_channels
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x8x4xf32>) -> tensor<1x2x8x8xf32>
// CHECK: %[[ALL:.*]] = shard.all_gather %[[X]] on @grid grid_axes = [0] gather_axis = 3 : tensor<1x2x8x4xf32> -> tensor<1x2x8x8xf32>
// CHECK: pe.rope half %[[ALL]] inv_freq(%{{.*}}) : tensor<1x2x8x8xf32>
func.func @rope_channels(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [], [0]] : !shard.sharding
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<1x2x8x8xf32>
  %f, %m = pe.rope_frequencies : tensor<4xf32>
  %y = pe.rope half %xs inv_freq(%f : tensor<4xf32>) : tensor<1x2x8x8xf32>
  %ys = shard.shard %y to %r : tensor<1x2x8x8xf32>
  return %ys : tensor<1x2x8x8xf32>
}
