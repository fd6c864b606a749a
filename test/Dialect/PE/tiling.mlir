// The TilingInterface of the pe ops through the upstream drivers
// (transform.structured.tile_using_for / tile_using_forall): a tile is the
// same op on slices, with the tile's first position carried by its offsets.
// The execution tests in test/Integration/CPU/tiling run tiled programs
// against the float64 reference.
// RUN: pe-opt %s --transform-interpreter --split-input-file --verify-diagnostics | FileCheck %s

// Attention, tiles of (1 batch, 4 heads = one GQA group of 4, 16 query rows,
// all value columns): Q rows [r, r + 16) of heads [h, h + 4), KV head h / 4;
// the rope query offset and the ALiBi query offset grow by r, the causal
// offset by r + 16 - Tq (bottom-right), and the ALiBi slopes are the head
// tile's slice of the 8-head table.
// CHECK-DAG: #[[KV:.*]] = affine_map<()[s0] -> (s0 floordiv 4)>
// CHECK-DAG: #[[CAUSAL:.*]] = affine_map<()[s0] -> (s0 - 48)>
// CHECK-DAG: #[[PLUS:.*]] = affine_map<()[s0, s1] -> (s0 + s1)>
// CHECK-LABEL: func @attention
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x64x16xf32>, %[[K:.*]]: tensor<2x2x64x16xf32>, %[[F:.*]]: tensor<8xf64>, %[[P:.*]]: index)
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] =
// CHECK: %[[KVH:.*]] = affine.apply #[[KV]]()[%[[H]]]
// CHECK: %[[QS:.*]] = tensor.extract_slice %[[Q]][%[[B]], %[[H]], %[[R]], 0] [1, 4, 16, 16] [1, 1, 1, 1]
// CHECK: %[[KS:.*]] = tensor.extract_slice %[[K]][%[[B]], %[[KVH]], 0, 0] [1, 1, 64, 16] [1, 1, 1, 1]
// CHECK: %[[RO:.*]] = affine.apply #[[PLUS]]()[%[[P]], %[[R]]]
// CHECK: %[[SLOPES:.*]] = arith.constant dense<[5.000000e-01, 2.500000e-01, 1.250000e-01, 6.250000e-02, 3.125000e-02, 1.562500e-02, 7.812500e-03, 3.906250e-03]> : tensor<8xf64>
// CHECK: %[[SS:.*]] = tensor.extract_slice %[[SLOPES]][%[[H]]] [4] [1]
// CHECK: %[[CO:.*]] = affine.apply #[[CAUSAL]]()[%[[R]]]
// The destination is the loop's iter_arg's tile.
// CHECK: %[[OS:.*]] = tensor.extract_slice %[[ACC]][%[[B]], %[[H]], %[[R]], 0] [1, 4, 16, 16] [1, 1, 1, 1]
// CHECK: %[[T:.*]] = pe.attention %[[QS]], %[[KS]], %{{.*}} causal_offset(%[[CO]] : index) rope <half> inv_freq(%[[F]] : tensor<8xf64>) query_offset(%[[RO]] : index) alibi <key> alibi_offset(%[[R]] : index) alibi_slopes(%[[SS]] : tensor<4xf64>) outs(%[[OS]] : tensor<1x4x16x16xf32>) {causal} : tensor<1x4x16x16xf32>, tensor<1x1x64x16xf32>, tensor<1x1x64x16xf32> -> tensor<1x4x16x16xf32>
// CHECK: tensor.insert_slice %[[T]] into %[[ACC]][%[[B]], %[[H]], %[[R]], 0] [1, 4, 16, 16]
func.func @attention(%q: tensor<2x8x64x16xf32>, %k: tensor<2x2x64x16xf32>, %f: tensor<8xf64>, %p: index) -> tensor<2x8x64x16xf32> {
  %attn_init0 = tensor.empty() : tensor<2x8x64x16xf32>
  %o = pe.attention %q, %k, %k rope <half> inv_freq(%f : tensor<8xf64>) query_offset(%p : index) alibi <key> outs(%attn_init0 : tensor<2x8x64x16xf32>) {causal} : tensor<2x8x64x16xf32>, tensor<2x2x64x16xf32>, tensor<2x2x64x16xf32> -> tensor<2x8x64x16xf32>
  return %o : tensor<2x8x64x16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.attention"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %1, %loops:3 = transform.structured.tile_using_for %0 tile_sizes [1, 4, 16, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Top-left with an explicit offset: the offset grows by r; value columns
// tiled by 8 slice V and the result; bias [Tq, Tk] and mask [B, 1, 1, Tk]
// slices follow their non-broadcast dimensions; kv_lengths its batch.
// CHECK-LABEL: func @attention_top_left
// CHECK-SAME: %[[V:[a-z0-9]+]]: tensor<2x2x32x16xf32>, %[[BIAS:[a-z0-9]+]]: tensor<32x32xf32>, %[[M:[a-z0-9]+]]: tensor<2x1x1x32xi1>, %[[L:[a-z0-9]+]]: tensor<2xi64>, %[[O:[a-z0-9]+]]: i32
// CHECK: scf.forall (%[[B:.*]], %[[RI:.*]], %[[EI:.*]]) in (2, 4, 2)
// CHECK-DAG: %[[R:.*]] = affine.apply #{{.*}}(%[[RI]])
// CHECK-DAG: %[[E:.*]] = affine.apply #{{.*}}(%[[EI]])
// CHECK-DAG: tensor.extract_slice %[[V]][%[[B]], 0, 0, %[[E]]] [1, 2, 32, 8] [1, 1, 1, 1]
// CHECK-DAG: %[[BS:.*]] = tensor.extract_slice %[[BIAS]][%[[R]], 0] [8, 32] [1, 1]
// CHECK-DAG: %[[MS:.*]] = tensor.extract_slice %[[M]][%[[B]], 0, 0, 0] [1, 1, 1, 32] [1, 1, 1, 1]
// CHECK-DAG: %[[LS:.*]] = tensor.extract_slice %[[L]][%[[B]]] [1] [1]
// CHECK-DAG: %[[OI:.*]] = arith.index_cast %[[O]] : i32 to index
// CHECK: %[[CO:.*]] = affine.apply #{{.*}}()[%[[OI]], %[[R]]]
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} kv_lengths(%[[LS]] : tensor<1xi64>) causal_offset(%[[CO]] : index) bias(%[[BS]] : tensor<8x32xf32>) mask(%[[MS]] : tensor<1x1x1x32xi1>) outs({{[^)]*}}) {causal, causal_alignment = #pe<causal_alignment top_left>, window = 5 : i64} : tensor<1x2x8x16xf32>, tensor<1x2x32x16xf32>, tensor<1x2x32x8xf32> -> tensor<1x2x8x8xf32>
func.func @attention_top_left(%q: tensor<2x2x32x16xf32>, %v: tensor<2x2x32x16xf32>, %b: tensor<32x32xf32>, %m: tensor<2x1x1x32xi1>, %l: tensor<2xi64>, %o: i32) -> tensor<2x2x32x16xf32> {
  %attn_init1 = tensor.empty() : tensor<2x2x32x16xf32>
  %r = pe.attention %q, %q, %v kv_lengths(%l : tensor<2xi64>) causal_offset(%o : i32) bias(%b : tensor<32x32xf32>) mask(%m : tensor<2x1x1x32xi1>) outs(%attn_init1 : tensor<2x2x32x16xf32>) {causal, causal_alignment = #pe<causal_alignment top_left>, window = 5 : i64} : tensor<2x2x32x16xf32>, tensor<2x2x32x16xf32>, tensor<2x2x32x16xf32> -> tensor<2x2x32x16xf32>
  return %r : tensor<2x2x32x16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.attention"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %1, %2 = transform.structured.tile_using_forall %0 tile_sizes [1, 0, 8, 8] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Sequence ops: a tile of tokens [t, t + n) adds t to the offset, or slices
// the positions tensor.
// CHECK-LABEL: func @sequence_ops
// CHECK-SAME: (%[[X:.*]]: tensor<4x16x8xf32>, %[[F:.*]]: tensor<4xf32>, %[[P:.*]]: tensor<4x16xi32>, %[[W:.*]]: tensor<64x8xf32>)
// CHECK: scf.for %[[T:.*]] = {{.*}} iter_args
// CHECK: pe.rope interleaved %{{.*}} inv_freq(%[[F]] : tensor<4xf32>) offset(%[[T]] : index) : tensor<4x4x8xf32>
// CHECK: scf.for %[[B:.*]] = {{.*}} iter_args
// CHECK: scf.for %[[T2:.*]] = {{.*}} iter_args
// CHECK: %[[PS:.*]] = tensor.extract_slice %[[P]][%[[B]], %[[T2]]] [1, 8] [1, 1]
// CHECK: pe.add_sinusoidal concat %{{.*}} positions(%[[PS]] : tensor<1x8xi32>) : tensor<1x8x8xf32>
// The static offset stays; the tile's first token is the dynamic part.
// CHECK: scf.for %[[T3:.*]] = {{.*}} iter_args
// CHECK: pe.add_learned %{{.*}}, %[[W]] offset(%[[T3]] : index) {static_offset = 3 : i64} : tensor<4x4x8xf32>, tensor<64x8xf32>
func.func @sequence_ops(%x: tensor<4x16x8xf32>, %f: tensor<4xf32>, %p: tensor<4x16xi32>, %w: tensor<64x8xf32>) -> (tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>) {
  %0 = pe.rope interleaved %x inv_freq(%f : tensor<4xf32>) : tensor<4x16x8xf32>
  %1 = pe.add_sinusoidal concat %x positions(%p : tensor<4x16xi32>) : tensor<4x16x8xf32>
  %2 = pe.add_learned %x, %w {static_offset = 3 : i64} : tensor<4x16x8xf32>, tensor<64x8xf32>
  return %0, %1, %2 : tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %r = transform.structured.match ops{["pe.rope"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %1, %l1 = transform.structured.tile_using_for %r tile_sizes [0, 4, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %s = transform.structured.match ops{["pe.add_sinusoidal"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %2, %l2:2 = transform.structured.tile_using_for %s tile_sizes [1, 8, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    %w = transform.structured.match ops{["pe.add_learned"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %3, %l3 = transform.structured.tile_using_for %w tile_sizes [0, 4, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Must not tile: a head tile that splits a GQA group (8 heads over 2 KV
// heads, groups of 4, tiles of 2).
func.func @split_group(%q: tensor<1x8x16x16xf32>, %k: tensor<1x2x16x16xf32>) -> tensor<1x8x16x16xf32> {
  %attn_init2 = tensor.empty() : tensor<1x8x16x16xf32>
  // expected-error@+2 {{faild to tile operation}}
  // expected-error@+1 {{failed to generate tiling loops}}
  %o = pe.attention %q, %k, %k outs(%attn_init2 : tensor<1x8x16x16xf32>) : tensor<1x8x16x16xf32>, tensor<1x2x16x16xf32>, tensor<1x2x16x16xf32> -> tensor<1x8x16x16xf32>
  return %o : tensor<1x8x16x16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.attention"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %1, %loops = transform.structured.tile_using_for %0 tile_sizes [0, 2, 0, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Must not tile: the channel dimension of a rotation (pairs would split).
func.func @rope_channels(%x: tensor<4x16x8xf32>, %f: tensor<4xf32>) -> tensor<4x16x8xf32> {
  // expected-error@+2 {{faild to tile operation}}
  // expected-error@+1 {{failed to generate tiling loops}}
  %0 = pe.rope half %x inv_freq(%f : tensor<4xf32>) : tensor<4x16x8xf32>
  return %0 : tensor<4x16x8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.rope"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %1, %loops = transform.structured.tile_using_for %0 tile_sizes [0, 0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Must not tile: the keys of an ALiBi bias (the key distance has no key
// offset).
func.func @alibi_keys() -> tensor<4x8x8xf32> {
  // expected-error@+2 {{faild to tile operation}}
  // expected-error@+1 {{failed to generate tiling loops}}
  %0 = pe.alibi_bias key : tensor<4x8x8xf32>
  return %0 : tensor<4x8x8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.alibi_bias"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %1, %loops = transform.structured.tile_using_for %0 tile_sizes [0, 0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Per-token caches [B, T, R/2]: a tile of (batch, tokens) slices the cache
// rows with them.
// CHECK-LABEL: func @rope_per_token
// CHECK-SAME: %[[C:[a-z0-9]+]]: tensor<2x16x4xf32>
// CHECK: scf.for %[[B:.*]] = {{.*}} iter_args
// CHECK: scf.for %[[T:.*]] = {{.*}} iter_args
// CHECK: %[[CS:.*]] = tensor.extract_slice %[[C]][%[[B]], %[[T]], 0] [1, 4, 4] [1, 1, 1]
// CHECK: pe.rope half %{{.*}} cache(%[[CS]], %{{.*}} : tensor<1x4x4xf32>, tensor<1x4x4xf32>) : tensor<1x3x4x8xf32>
func.func @rope_per_token(%x: tensor<2x3x16x8xf32>, %c: tensor<2x16x4xf32>) -> tensor<2x3x16x8xf32> {
  %0 = pe.rope half %x cache(%c, %c : tensor<2x16x4xf32>, tensor<2x16x4xf32>) : tensor<2x3x16x8xf32>
  return %0 : tensor<2x3x16x8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.rope"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %1, %loops:2 = transform.structured.tile_using_for %0 tile_sizes [1, 0, 4, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// The lse result [B, H, Tq] tiles with the (batch, head, query row) loops,
// here of a bshd attention whose loops follow [B, Tq, H, Dv].
// CHECK-LABEL: func @lse
// CHECK: scf.for %[[R:.*]] = {{.*}} iter_args(%[[ACC:.*]] = %{{.*}}, %[[LACC:.*]] = %{{.*}})
// CHECK: %[[T:.*]], %[[TL:.*]] = pe.attention {{.*}} -> tensor<1x4x2x16xf32>, tensor<1x2x4xf32>
// CHECK: tensor.insert_slice %[[T]] into %[[ACC]][0, %[[R]], 0, 0] [1, 4, 2, 16]
// CHECK: tensor.insert_slice %[[TL]] into %[[LACC]][0, 0, %[[R]]] [1, 2, 4]
func.func @lse(%q: tensor<1x16x2x16xf32>) -> (tensor<1x16x2x16xf32>, tensor<1x2x16xf32>) {
  %attn_init3 = tensor.empty() : tensor<1x16x2x16xf32>
  %attn_lse_init3 = tensor.empty() : tensor<1x2x16xf32>
  %o, %l = pe.attention %q, %q, %q outs(%attn_init3, %attn_lse_init3 : tensor<1x16x2x16xf32>, tensor<1x2x16xf32>) {causal, layout = #pe<attention_layout bshd>} : tensor<1x16x2x16xf32>, tensor<1x16x2x16xf32>, tensor<1x16x2x16xf32> -> tensor<1x16x2x16xf32>, tensor<1x2x16xf32>
  return %o, %l : tensor<1x16x2x16xf32>, tensor<1x2x16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.attention"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %1, %loops = transform.structured.tile_using_for %0 tile_sizes [0, 4, 0, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
