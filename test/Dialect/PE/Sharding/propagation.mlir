// RUN: pe-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(sharding-propagation,cse))' | FileCheck %s

// What sharding-propagation chooses for pe ops: the shardings of the op's
// own operands (annotate_for_users) and results. (cse merges equal
// shard.sharding ops, so that each sharding has one name below.)

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// A sequence split of the input reaches the result; the frequency table is
// replicated.
// CHECK-LABEL: func @rope_seq
// CHECK: %[[SEQ:.*]] = shard.sharding @grid split_axes = {{\[\[}}], [], [0]] : !shard.sharding
// CHECK: %[[X:.*]] = shard.shard %{{.*}} to %[[SEQ]] annotate_for_users : tensor<1x2x8x8xf32>
// CHECK: %[[REP:.*]] = shard.sharding @grid split_axes = {{\[\[}}]] : !shard.sharding
// CHECK: %[[F:.*]] = shard.shard %{{.*}} to %[[REP]] annotate_for_users : tensor<4xf32>
// CHECK: %[[Y:.*]] = pe.rope half %[[X]] inv_freq(%[[F]] : tensor<4xf32>)
// CHECK: shard.shard %[[Y]] to %[[SEQ]] : tensor<1x2x8x8xf32>
func.func @rope_seq(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<1x2x8x8xf32>
  %f, %m = pe.rope_frequencies : tensor<4xf32>
  %y = pe.rope half %xs inv_freq(%f : tensor<4xf32>) : tensor<1x2x8x8xf32>
  return %y : tensor<1x2x8x8xf32>
}

// -----

shard.grid @grid(shape = 2x2) {sym_visibility = "private"}

// Batch on axis 0 and channels on axis 1: the channel split is dropped, the
// batch split kept.
// CHECK-LABEL: func @rope_batch_and_channels
// CHECK-DAG: %[[B:.*]] = shard.sharding @grid split_axes = {{\[\[}}0]] : !shard.sharding
// CHECK: %[[X:.*]] = shard.shard %{{.*}} to %[[B]] annotate_for_users : tensor<2x2x8x8xf32>
// CHECK: %[[Y:.*]] = pe.rope half %[[X]]
// CHECK: shard.shard %[[Y]] to %[[B]] : tensor<2x2x8x8xf32>
func.func @rope_batch_and_channels(%x: tensor<2x2x8x8xf32>, %f: tensor<4xf32>) -> tensor<2x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[0], [], [], [1]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<2x2x8x8xf32>
  %y = pe.rope half %xs inv_freq(%f : tensor<4xf32>) : tensor<2x2x8x8xf32>
  return %y : tensor<2x2x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// GQA: query heads split on axis 0 take the KV heads along (8 query heads
// over 2 KV heads: one group per process).
// CHECK-LABEL: func @attention_gqa_heads
// CHECK: %[[H:.*]] = shard.sharding @grid split_axes = {{\[\[}}], [0]] : !shard.sharding
// CHECK: %[[K:.*]] = shard.shard %{{.*}} to %[[H]] annotate_for_users : tensor<1x2x8x8xf32>
// CHECK: %[[V:.*]] = shard.shard %{{.*}} to %[[H]] annotate_for_users : tensor<1x2x8x8xf32>
// The destination is sharded like the result.
// CHECK: %[[I:.*]] = shard.shard %{{.*}} to %[[H]] annotate_for_users : tensor<1x8x8x8xf32>
// CHECK: %[[O:.*]] = pe.attention %{{.*}}, %[[K]], %[[V]] outs(%[[I]] : tensor<1x8x8x8xf32>)
// CHECK: shard.shard %[[O]] to %[[H]] : tensor<1x8x8x8xf32>
func.func @attention_gqa_heads(%q: tensor<1x8x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %qs = shard.shard %q to %s : tensor<1x8x8x8xf32>
  %attn_init0 = tensor.empty() : tensor<1x8x8x8xf32>
  %o = pe.attention %qs, %k, %v outs(%attn_init0 : tensor<1x8x8x8xf32>) : tensor<1x8x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x8x8x8xf32>
  return %o : tensor<1x8x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Keys and values split over the key sequence, queries replicated: the key
// loop is split, so the result (no key dimension) is replicated.
// CHECK-LABEL: func @attention_keys
// CHECK-DAG: %[[SEQ:.*]] = shard.sharding @grid split_axes = {{\[\[}}], [], [0]] : !shard.sharding
// CHECK-DAG: %[[REP:.*]] = shard.sharding @grid split_axes = {{\[\[}}]] : !shard.sharding
// CHECK: %[[Q:.*]] = shard.shard %{{.*}} to %[[REP]] annotate_for_users : tensor<1x2x8x8xf32>
// CHECK: %[[K:.*]] = shard.shard %{{.*}} to %[[SEQ]] annotate_for_users : tensor<1x2x8x8xf32>
// CHECK: %[[V:.*]] = shard.shard %{{.*}} to %[[SEQ]] annotate_for_users : tensor<1x2x8x8xf32>
// CHECK: %[[I:.*]] = shard.shard %{{.*}} to %[[REP]] annotate_for_users : tensor<1x2x8x8xf32>
// CHECK: %[[O:.*]] = pe.attention %[[Q]], %[[K]], %[[V]] outs(%[[I]] : tensor<1x2x8x8xf32>)
// CHECK: shard.shard %[[O]] to %[[REP]] : tensor<1x2x8x8xf32>
func.func @attention_keys(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %ks = shard.shard %k to %s : tensor<1x2x8x8xf32>
  %vs = shard.shard %v to %s : tensor<1x2x8x8xf32>
  %attn_init1 = tensor.empty() : tensor<1x2x8x8xf32>
  %o = pe.attention %q, %ks, %vs outs(%attn_init1 : tensor<1x2x8x8xf32>) {causal} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// With kv_lengths and bottom-right causal alignment the key split is dropped: the attention is replicated and
// its key and value operands are annotated whole (gathered at partitioning).
// CHECK-LABEL: func @attention_keys_kv_lengths
// CHECK: %[[REP:.*]] = shard.sharding @grid split_axes = {{\[\[}}]] : !shard.sharding
// CHECK: %[[Q:.*]] = shard.shard %{{.*}} to %[[REP]] annotate_for_users : tensor<1x2x8x8xf32>
// CHECK: %[[K:.*]] = shard.shard %{{.*}} to %[[REP]] annotate_for_users : tensor<1x2x8x8xf32>
// CHECK: %[[V:.*]] = shard.shard %{{.*}} to %[[REP]] annotate_for_users : tensor<1x2x8x8xf32>
// CHECK: pe.attention %[[Q]], %[[K]], %[[V]] kv_lengths
func.func @attention_keys_kv_lengths(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>, %l: tensor<1xi32>) -> tensor<1x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %ks = shard.shard %k to %s : tensor<1x2x8x8xf32>
  %vs = shard.shard %v to %s : tensor<1x2x8x8xf32>
  %attn_init2 = tensor.empty() : tensor<1x2x8x8xf32>
  %o = pe.attention %q, %ks, %vs kv_lengths(%l : tensor<1xi32>) outs(%attn_init2 : tensor<1x2x8x8xf32>) {causal} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// A key-column split of the `key` ALiBi distance is dropped (computed whole).
// CHECK-LABEL: func @alibi_key_distance
// CHECK: %[[KEYS:.*]] = shard.sharding @grid split_axes = {{\[\[}}], [], [0]] : !shard.sharding
// CHECK: %[[B:.*]] = pe.alibi_bias key : tensor<4x8x8xf32>
// CHECK: %[[REP:.*]] = shard.sharding @grid split_axes = {{\[\[}}]] : !shard.sharding
// CHECK: %[[BR:.*]] = shard.shard %[[B]] to %[[REP]] : tensor<4x8x8xf32>
// CHECK: shard.shard %[[BR]] to %[[KEYS]] annotate_for_users : tensor<4x8x8xf32>
func.func @alibi_key_distance() -> tensor<4x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %b = pe.alibi_bias key : tensor<4x8x8xf32>
  %bs = shard.shard %b to %s annotate_for_users : tensor<4x8x8xf32>
  return %bs : tensor<4x8x8xf32>
}
