// A split that a pe op does not support and that propagation therefore
// dropped is reported as a missed-optimization remark (category:
// pe-sharding) when the op is partitioned; the program stays correct, the
// values are resharded around the op. (Not split with --split-input-file:
// remark checks need one buffer.)
// RUN: pe-opt %s --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition))' --remarks-filter='pe-.*' --verify-diagnostics -o /dev/null
// Without a filter nothing is reported.
// RUN: pe-opt %s --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition))' -o /dev/null 2>&1 | FileCheck %s --check-prefix=QUIET --allow-empty
// QUIET-NOT: remark: [Missed]

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @rope_channels(%x: tensor<1x2x8x8xf32>, %f: tensor<4xf32>) -> tensor<1x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<1x2x8x8xf32>
  // expected-remark@+1 {{[Missed] split-dropped | Category:pe-sharding | Reason="the channel dimension is never split; the op computes on resharded (gathered or whole) values instead"}}
  %y = pe.rope half %xs inv_freq(%f : tensor<4xf32>) : tensor<1x2x8x8xf32>
  %ys = shard.shard %y to %s : tensor<1x2x8x8xf32>
  return %ys : tensor<1x2x8x8xf32>
}

func.func @attention_keys_kv_lengths(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>, %l: tensor<1xi32>) -> tensor<1x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %ks = shard.shard %k to %s : tensor<1x2x8x8xf32>
  %vs = shard.shard %v to %s : tensor<1x2x8x8xf32>
  %attn_init0 = tensor.empty() : tensor<1x2x8x8xf32>
  // expected-remark@+1 {{Reason="the key sequence is not split with kv_lengths and bottom-right causal alignment; the op computes on resharded (gathered or whole) values instead"}}
  %o = pe.attention %q, %ks, %vs kv_lengths(%l : tensor<1xi32>) outs(%attn_init0 : tensor<1x2x8x8xf32>) {causal} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

func.func @alibi_key_distance() -> tensor<4x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  // expected-remark@+1 {{Reason="the key columns of the `key` distance are not split (it has no key offset); the op computes on resharded (gathered or whole) values instead"}}
  %b = pe.alibi_bias key : tensor<4x8x8xf32>
  %bs = shard.shard %b to %s annotate_for_users : tensor<4x8x8xf32>
  return %bs : tensor<4x8x8xf32>
}

// A head split over 4 processes of 8 query heads over 2 KV heads: each
// process would need half a KV head's group split from the others.
shard.grid @grid4(shape = 4) {sym_visibility = "private"}

func.func @attention_gqa_heads(%q: tensor<1x8x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %s = shard.sharding @grid4 split_axes = [[], [0]] : !shard.sharding
  %qs = shard.shard %q to %s : tensor<1x8x8x8xf32>
  %init = tensor.empty() : tensor<1x8x8x8xf32>
  // expected-remark@+1 {{Reason="a head split must also split the key/value heads evenly (GQA groups stay on one process): 8 query heads over 2 key/value heads cannot be split over 4 processes; a process count that divides 2 would split them; the op computes on resharded (gathered or whole) values instead"}}
  %o = pe.attention %qs, %k, %v outs(%init : tensor<1x8x8x8xf32>) : tensor<1x8x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x8x8x8xf32>
  %os = shard.shard %o to %s : tensor<1x8x8x8xf32>
  return %os : tensor<1x8x8x8xf32>
}

// Supported splits and plain reshards are not reported.
func.func @rope_seq(%x: tensor<1x2x8x8xf32>, %f: tensor<4xf32>) -> tensor<1x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %r = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<1x2x8x8xf32>
  %y = pe.rope half %xs inv_freq(%f : tensor<4xf32>) : tensor<1x2x8x8xf32>
  %ys = shard.shard %y to %s : tensor<1x2x8x8xf32>
  %yr = shard.shard %ys to %r annotate_for_users : tensor<1x2x8x8xf32>
  return %yr : tensor<1x2x8x8xf32>
}
