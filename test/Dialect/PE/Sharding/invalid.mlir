// RUN: pe-opt %s --split-input-file --verify-diagnostics --pass-pipeline='builtin.module(func.func(shard-partition))'

// Hand-annotated IR (no sharding-propagation, which would drop these splits)
// that asks a pe op for a split it does not support: an error at
// partitioning, not a wrong program.

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @alibi_key_distance_keys() -> tensor<4x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  // expected-error@+1 {{'pe.alibi_bias' op cannot be partitioned with these shardings: the key columns of the `key` distance are not split (it has no key offset)}}
  %b = pe.alibi_bias key : tensor<4x8x8xf32>
  %bs = shard.shard %b to %s : tensor<4x8x8xf32>
  return %bs : tensor<4x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @rope_channels(%x: tensor<1x2x8x8xf32>, %f: tensor<4xf32>) -> tensor<1x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [], [0]] : !shard.sharding
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<1x2x8x8xf32>
  %xu = shard.shard %xs to %s annotate_for_users : tensor<1x2x8x8xf32>
  %fs = shard.shard %f to %r : tensor<4xf32>
  %fu = shard.shard %fs to %r annotate_for_users : tensor<4xf32>
  // expected-error@+1 {{'pe.rope' op cannot be partitioned with these shardings: the channel dimension is never split}}
  %y = pe.rope half %xu inv_freq(%fu : tensor<4xf32>) : tensor<1x2x8x8xf32>
  %ys = shard.shard %y to %s : tensor<1x2x8x8xf32>
  return %ys : tensor<1x2x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @attention_keys_kv_lengths(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>, %l: tensor<1xi32>) -> tensor<1x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %q0 = shard.shard %q to %r : tensor<1x2x8x8xf32>
  %k0 = shard.shard %k to %s : tensor<1x2x8x8xf32>
  %v0 = shard.shard %v to %s : tensor<1x2x8x8xf32>
  %l0 = shard.shard %l to %r : tensor<1xi32>
  %qs = shard.shard %q0 to %r annotate_for_users : tensor<1x2x8x8xf32>
  %ks = shard.shard %k0 to %s annotate_for_users : tensor<1x2x8x8xf32>
  %vs = shard.shard %v0 to %s annotate_for_users : tensor<1x2x8x8xf32>
  %ls = shard.shard %l0 to %r annotate_for_users : tensor<1xi32>
  %init = tensor.empty() : tensor<1x2x8x8xf32>
  %i0 = shard.shard %init to %r : tensor<1x2x8x8xf32>
  %is = shard.shard %i0 to %r annotate_for_users : tensor<1x2x8x8xf32>
  // expected-error@+1 {{'pe.attention' op cannot be partitioned with these shardings: the key sequence is not split with kv_lengths and bottom-right causal alignment}}
  %o = pe.attention %qs, %ks, %vs kv_lengths(%ls : tensor<1xi32>) outs(%is : tensor<1x2x8x8xf32>) {causal} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  %os = shard.shard %o to %r : tensor<1x2x8x8xf32>
  return %os : tensor<1x2x8x8xf32>
}

// -----

shard.grid @grid4(shape = 4) {sym_visibility = "private"}

// 8 query heads over 2 KV heads cannot be split over 4 processes: a group
// of 2 query heads would need half a KV head's block.
func.func @attention_gqa_heads_uneven(%q: tensor<1x8x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %s = shard.sharding @grid4 split_axes = [[], [0]] : !shard.sharding
  %r = shard.sharding @grid4 split_axes = [[]] : !shard.sharding
  %q0 = shard.shard %q to %s : tensor<1x8x8x8xf32>
  %k0 = shard.shard %k to %r : tensor<1x2x8x8xf32>
  %v0 = shard.shard %v to %r : tensor<1x2x8x8xf32>
  %qs = shard.shard %q0 to %s annotate_for_users : tensor<1x8x8x8xf32>
  %ks = shard.shard %k0 to %r annotate_for_users : tensor<1x2x8x8xf32>
  %vs = shard.shard %v0 to %r annotate_for_users : tensor<1x2x8x8xf32>
  %init = tensor.empty() : tensor<1x8x8x8xf32>
  %i0 = shard.shard %init to %s : tensor<1x8x8x8xf32>
  %is = shard.shard %i0 to %s annotate_for_users : tensor<1x8x8x8xf32>
  // expected-error@+1 {{'pe.attention' op cannot be partitioned with these shardings: a head split must also split the key/value heads evenly (GQA groups stay on one process): 8 query heads over 2 key/value heads cannot be split over 4 processes; a process count that divides 2 would split them}}
  %o = pe.attention %qs, %ks, %vs outs(%is : tensor<1x8x8x8xf32>) : tensor<1x8x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x8x8x8xf32>
  %os = shard.shard %o to %s : tensor<1x8x8x8xf32>
  return %os : tensor<1x8x8x8xf32>
}

