// RUN: pe-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(sharding-propagation,shard-partition),canonicalize,cse)' | FileCheck %s

// The sharding of pe.attention: batch, heads (GQA groups together) and query
// rows are parallel; a key-sequence shard attends to its keys only and the
// shards combine their outputs through their log-sum-exps.

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// 8 query heads over 2 KV heads, heads split: each process has 4 query
// heads and their KV head, and the ALiBi slopes of its global heads
// (2^-1 ... 2^-8 sliced at 4 * idx).
// CHECK-LABEL: func @heads_gqa_alibi
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x4x8xf32>, %[[K:.*]]: tensor<1x1x4x8xf32>, %[[V:.*]]: tensor<1x1x4x8xf32>)
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[TABLE:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01, 1.250000e-01, 6.250000e-02, 3.125000e-02, 1.562500e-02, 7.812500e-03, 3.906250e-03]> : tensor<8xf64>
// CHECK: %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// CHECK: %[[START:.*]] = arith.muli %[[IDX]], %[[C4]] : index
// CHECK: %[[SLOPES:.*]] = tensor.extract_slice %[[TABLE]][%[[START]]] [4] [1]
// CHECK: pe.attention %[[Q]], %[[K]], %[[V]] alibi <symmetric> alibi_slopes(%[[SLOPES]] : tensor<4xf64>) outs(%{{.*}} : tensor<1x4x4x8xf32>) {causal}
func.func @heads_gqa_alibi(%q: tensor<1x8x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x8x4x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %qs = shard.shard %q to %s : tensor<1x8x4x8xf32>
  %attn_init0 = tensor.empty() : tensor<1x8x4x8xf32>
  %o = pe.attention %qs, %k, %v alibi <symmetric> outs(%attn_init0 : tensor<1x8x4x8xf32>) {causal} : tensor<1x8x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32> -> tensor<1x8x4x8xf32>
  %os = shard.shard %o to %s : tensor<1x8x4x8xf32>
  return %os : tensor<1x8x4x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Query rows split, bottom-right causal with RoPE: rows [4 idx, 4 idx + 4)
// are rotated at their positions, and the causal limit j <= i + (Tk - Tq)
// of the global rows is the local op's (base Tk - 4) with offset 4 idx - 4.
// CHECK-LABEL: func @rows_causal_rope
// CHECK-DAG: %[[CM4:.*]] = arith.constant -4 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// CHECK: %[[START:.*]] = arith.muli %[[IDX]], %[[C4]] : index
// CHECK: %[[CAUSAL:.*]] = arith.addi %[[START]], %[[CM4]] : index
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} causal_offset(%[[CAUSAL]] : index) rope <half> inv_freq(%{{.*}} : tensor<4xf32>) query_offset(%[[START]] : index) outs({{[^)]*}}) {causal} : tensor<1x2x4x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x4x8xf32>
func.func @rows_causal_rope(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>, %f: tensor<4xf32>) -> tensor<1x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %qs = shard.shard %q to %s : tensor<1x2x8x8xf32>
  %attn_init1 = tensor.empty() : tensor<1x2x8x8xf32>
  %o = pe.attention %qs, %k, %v rope <half> inv_freq(%f : tensor<4xf32>) outs(%attn_init1 : tensor<1x2x8x8xf32>) {causal} : tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  %os = shard.shard %o to %s : tensor<1x2x8x8xf32>
  return %os : tensor<1x2x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Keys split ([B, S, H, D] layout, signed ALiBi, causal, lse returned): each
// process attends to keys [4 idx, 4 idx + 4): the ALiBi query offset moves
// back by 4 idx and the causal offset is 4 - 4 idx (global limit
// j <= i + 4, local base 0). Then m = max lse, w = exp(lse - m) (0 for an
// empty row), out = sum(w o) / sum(w), lse = m + log(sum w). The weight of
// result element (b, i, h, e) is w[b, h, i].
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1)>
// CHECK-LABEL: func @keys_bshd_lse
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// CHECK: %[[START:.*]] = arith.muli %[[IDX]], %[[C4]] : index
// CHECK: %[[AO:.*]] = arith.subi %[[C0]], %[[START]] : index
// CHECK: %[[CO:.*]] = arith.subi %[[C4]], %[[START]] : index
// The local op's destinations: the local result's, and a new lse one.
// CHECK: %[[O:.*]], %[[L:.*]] = pe.attention %{{.*}}, %{{.*}}, %{{.*}} causal_offset(%[[CO]] : index) alibi <signed> alibi_offset(%[[AO]] : index) outs(%{{.*}}, %{{.*}} : tensor<1x4x2x8xf32>, tensor<1x2x4xf32>) {causal, layout = #pe<attention_layout bshd>} : tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32>, tensor<1x4x2x8xf32> -> tensor<1x4x2x8xf32>, tensor<1x2x4xf32>
// CHECK: %[[M:.*]] = shard.all_reduce %[[L]] on @grid grid_axes = [0] reduction = max : tensor<1x2x4xf32> -> tensor<1x2x4xf32>
// CHECK: %[[W:.*]] = linalg.generic {indexing_maps = [#[[ID3]], #[[ID3]], #[[ID3]]]{{.*}} ins(%[[L]], %[[M]] :
// CHECK: ^bb0(%[[LI:.*]]: f32, %[[MI:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[EMPTY:.*]] = arith.cmpf oeq, %[[LI]], %[[NINF]] : f32
// CHECK:   %[[D:.*]] = arith.subf %[[LI]], %[[MI]] : f32
// CHECK:   %[[E:.*]] = math.exp %[[D]] : f32
// CHECK:   arith.select %[[EMPTY]], %[[ZERO]], %[[E]] : f32
// CHECK: %[[WO:.*]] = linalg.generic {indexing_maps = [#[[ID4]], #[[ROW]], #[[ID4]]]{{.*}} ins(%[[O]], %[[W]] :
// CHECK:   arith.mulf
// CHECK: %[[NUM:.*]] = shard.all_reduce %[[WO]] on @grid grid_axes = [0] : tensor<1x4x2x8xf32> -> tensor<1x4x2x8xf32>
// CHECK: %[[DEN:.*]] = shard.all_reduce %[[W]] on @grid grid_axes = [0] : tensor<1x2x4xf32> -> tensor<1x2x4xf32>
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[ID4]], #[[ROW]], #[[ID4]]]{{.*}} ins(%[[NUM]], %[[DEN]] :
// CHECK: ^bb0(%[[NI:.*]]: f32, %[[DI:.*]]: f32, %{{.*}}: f32):
// CHECK:   %[[ANY:.*]] = arith.cmpf ogt, %[[DI]], %[[ZERO]] : f32
// CHECK:   %[[Q:.*]] = arith.divf %[[NI]], %[[DI]] : f32
// CHECK:   arith.select %[[ANY]], %[[Q]], %[[ZERO]] : f32
// CHECK: %[[LSE:.*]] = linalg.generic {{.*}} ins(%[[M]], %[[DEN]] :
// CHECK:   %[[LOG:.*]] = math.log
// CHECK:   arith.addf %{{.*}}, %[[LOG]] : f32
// CHECK: return %[[OUT]], %[[LSE]]
func.func @keys_bshd_lse(%q: tensor<1x4x2x8xf32>, %k: tensor<1x8x2x8xf32>, %v: tensor<1x8x2x8xf32>) -> (tensor<1x4x2x8xf32>, tensor<1x2x4xf32>) {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %ks = shard.shard %k to %s : tensor<1x8x2x8xf32>
  %vs = shard.shard %v to %s : tensor<1x8x2x8xf32>
  %attn_init2 = tensor.empty() : tensor<1x4x2x8xf32>
  %attn_lse_init2 = tensor.empty() : tensor<1x2x4xf32>
  %o, %l = pe.attention %q, %ks, %vs alibi <signed> outs(%attn_init2, %attn_lse_init2 : tensor<1x4x2x8xf32>, tensor<1x2x4xf32>) {causal, layout = #pe<attention_layout bshd>} : tensor<1x4x2x8xf32>, tensor<1x8x2x8xf32>, tensor<1x8x2x8xf32> -> tensor<1x4x2x8xf32>, tensor<1x2x4xf32>
  return %o, %l : tensor<1x4x2x8xf32>, tensor<1x2x4xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// MQA: 4 query heads over one KV head, heads split: each process has 2 query
// heads and the (replicated) KV head.
// CHECK-LABEL: func @heads_mqa
// CHECK-SAME: (%[[Q:.*]]: tensor<1x2x8x8xf32>, %[[K:.*]]: tensor<1x1x8x8xf32>, %[[V:.*]]: tensor<1x1x8x8xf32>) -> tensor<1x2x8x8xf32>
// CHECK-NOT: shard.all
// CHECK: pe.attention %[[Q]], %[[K]], %[[V]] outs({{[^)]*}}) : tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32> -> tensor<1x2x8x8xf32>
func.func @heads_mqa(%q: tensor<1x4x8x8xf32>, %k: tensor<1x1x8x8xf32>, %v: tensor<1x1x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %qs = shard.shard %q to %s : tensor<1x4x8x8xf32>
  %attn_init3 = tensor.empty() : tensor<1x4x8x8xf32>
  %o = pe.attention %qs, %k, %v outs(%attn_init3 : tensor<1x4x8x8xf32>) : tensor<1x4x8x8xf32>, tensor<1x1x8x8xf32>, tensor<1x1x8x8xf32> -> tensor<1x4x8x8xf32>
  %os = shard.shard %o to %s : tensor<1x4x8x8xf32>
  return %os : tensor<1x4x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Keys split with valid lengths, top-left causal: each block's keys are
// valid below L - 8 idx (the op clamps it to the block), and its causal
// offset is -8 idx.
// CHECK-LABEL: func @keys_kv_lengths_top_left
// CHECK-SAME: (%{{.*}}: tensor<1x2x8x8xf32>, %{{.*}}: tensor<1x2x8x8xf32>, %{{.*}}: tensor<1x2x8x8xf32>, %[[L:.*]]: tensor<1xi64>)
// CHECK: %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// CHECK: %[[START:.*]] = arith.muli %[[IDX]], %{{.*}} : index
// CHECK: %[[D:.*]] = arith.index_cast %[[START]] : index to i64
// CHECK: %[[NL:.*]] = linalg.generic {{.*}} ins(%[[L]] : tensor<1xi64>)
// CHECK:   arith.subi %{{.*}}, %[[D]] : i64
// CHECK: %[[CO:.*]] = arith.subi %{{.*}}, %[[START]] : index
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} kv_lengths(%[[NL]] : tensor<1xi64>) causal_offset(%[[CO]] : index) outs({{[^)]*}}) {causal, causal_alignment = #pe<causal_alignment top_left>}
// CHECK: shard.all_reduce {{.*}} reduction = max
func.func @keys_kv_lengths_top_left(%q: tensor<1x2x8x8xf32>, %k: tensor<1x2x16x8xf32>, %v: tensor<1x2x16x8xf32>, %l: tensor<1xi64>) -> tensor<1x2x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %ks = shard.shard %k to %s : tensor<1x2x16x8xf32>
  %vs = shard.shard %v to %s : tensor<1x2x16x8xf32>
  %attn_init4 = tensor.empty() : tensor<1x2x8x8xf32>
  %o = pe.attention %q, %ks, %vs kv_lengths(%l : tensor<1xi64>) outs(%attn_init4 : tensor<1x2x8x8xf32>) {causal, causal_alignment = #pe<causal_alignment top_left>} : tensor<1x2x8x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32> -> tensor<1x2x8x8xf32>
  return %o : tensor<1x2x8x8xf32>
}

// -----

shard.grid @grid(shape = 2) {sym_visibility = "private"}

// Keys split with the `key` ALiBi distance (b = j): the block's op sees its
// keys at j - 8 idx, so its lse is raised by m_h * 8 idx (the 4-head slope
// table) before the max and the sums.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[HEAD:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func @keys_alibi_key
// CHECK-DAG: %[[TABLE:.*]] = arith.constant dense<[2.500000e-01, 6.250000e-02, 1.562500e-02, 3.906250e-03]> : tensor<4xf64>
// CHECK: %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// CHECK: %[[START:.*]] = arith.muli %[[IDX]], %{{.*}} : index
// CHECK: %{{.*}}, %[[L:.*]] = pe.attention {{.*}} alibi <key>
// CHECK: %[[I:.*]] = arith.index_cast %[[START]] : index to i64
// CHECK: %[[K0:.*]] = arith.sitofp %[[I]] : i64 to f32
// CHECK: %[[SHIFTED:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[HEAD]], #[[ID]]]{{.*}} ins(%[[L]], %[[TABLE]] : tensor<1x4x8xf32>, tensor<4xf64>)
// CHECK:   %[[M:.*]] = arith.truncf %{{.*}} : f64 to f32
// CHECK:   %[[S:.*]] = arith.mulf %[[M]], %[[K0]] : f32
// CHECK:   arith.addf %{{.*}}, %[[S]] : f32
// CHECK: shard.all_reduce %[[SHIFTED]] on @grid grid_axes = [0] reduction = max
func.func @keys_alibi_key(%q: tensor<1x4x8x8xf32>, %k: tensor<1x4x16x8xf32>, %v: tensor<1x4x16x8xf32>) -> tensor<1x4x8x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %ks = shard.shard %k to %s : tensor<1x4x16x8xf32>
  %vs = shard.shard %v to %s : tensor<1x4x16x8xf32>
  %attn_init5 = tensor.empty() : tensor<1x4x8x8xf32>
  %o = pe.attention %q, %ks, %vs alibi <key> outs(%attn_init5 : tensor<1x4x8x8xf32>) : tensor<1x4x8x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32> -> tensor<1x4x8x8xf32>
  return %o : tensor<1x4x8x8xf32>
}
