// The key loop of pe.attention (loop 4, a reduction) through the upstream
// reduction-tiling driver (transform.structured.tile_reduction_using_for and
// PartialReductionOpInterface): each key tile [j0, j0 + n) is a pe.attention
// on those keys with an lse result, which a running state (output, lse),
// starting at (0, -inf), absorbs; after the loop the state is rounded to the
// result type. The tile sees its keys where the untiled op does: the rope key
// offset grows by j0, the ALiBi query offset drops by j0, the causal offset
// drops by j0 (plus Tk - n bottom-right), kv_lengths become max(L, 0) - j0,
// and bias and mask are sliced along the keys. The execution tests in
// test/Integration/CPU/tiling/tile_attention_keys*.mlir compare tiled
// programs with the float64 reference.
// RUN: pe-opt %s --transform-interpreter --split-input-file --verify-diagnostics | FileCheck %s

// bshd, f16, a [Tq, Tk] bias, a [B, 1, 1, Tk] mask, RoPE with a key offset
// and the lse result; Tk = 40 by tiles of 16. The state is f32.
// CHECK-DAG: #[[MIN:.*]] = affine_map<(d0) -> (-d0 + 40, 16)>
// CHECK-DAG: #[[PLUS:.*]] = affine_map<()[s0, s1] -> (s0 + s1)>
// CHECK-DAG: #[[ROWS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[ID4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[BSHD_ROW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1)>
// CHECK-LABEL: func @keys_bshd
// CHECK-SAME: (%[[Q:.*]]: tensor<2x8x4x16xf16>, %[[K:.*]]: tensor<2x40x2x16xf16>, %[[V:.*]]: tensor<2x40x2x8xf16>, %[[B:.*]]: tensor<8x40xf32>, %[[M:.*]]: tensor<2x1x1x40xi1>, %[[F:.*]]: tensor<8xf64>, %[[KO:.*]]: index)
// The op's destinations (f16 result, f32 lse).
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x8x4x8xf16>
// CHECK: %[[ACC0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x8x4x8xf32>)
// CHECK: %[[LSE0:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x4x8xf32>)
// CHECK: %[[LOOP:.*]]:2 = scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %[[ACC0]], %[[LSE:.*]] = %[[LSE0]])
// CHECK: %[[N:.*]] = affine.min #[[MIN]](%[[J]])
// CHECK: %[[KS:.*]] = tensor.extract_slice %[[K]][0, %[[J]], 0, 0] [2, %[[N]], 2, 16]
// CHECK: %[[VS:.*]] = tensor.extract_slice %[[V]][0, %[[J]], 0, 0] [2, %[[N]], 2, 8]
// CHECK: %[[BS:.*]] = tensor.extract_slice %[[B]][0, %[[J]]] [8, %[[N]]]
// CHECK: %[[MS:.*]] = tensor.extract_slice %[[M]][0, 0, 0, %[[J]]] [2, 1, 1, %[[N]]]
// CHECK: %[[TKO:.*]] = affine.apply #[[PLUS]]()[%[[KO]], %[[J]]]
// A key tile writes new tensors, not the running state (the loop's
// iter_args, f32), which the merge below reads.
// CHECK: %[[TO:.*]] = tensor.empty() : tensor<2x8x4x8xf16>
// CHECK: %[[TL:.*]] = tensor.empty() : tensor<2x4x8xf32>
// CHECK: %[[O:.*]], %[[L:.*]] = pe.attention %{{.*}}, %[[KS]], %[[VS]] rope <half> inv_freq(%[[F]] : tensor<8xf64>) key_offset(%[[TKO]] : index) bias(%[[BS]] : tensor<8x?xf32>) mask(%[[MS]] : tensor<2x1x1x?xi1>) outs(%[[TO]], %[[TL]] : tensor<2x8x4x8xf16>, tensor<2x4x8xf32>) {layout = #pe<attention_layout bshd>, softcap = 3.000000e+01 : f64} : tensor<2x8x4x16xf16>, tensor<2x?x2x16xf16>, tensor<2x?x2x8xf16> -> tensor<2x8x4x8xf16>, tensor<2x4x8xf32>
// CHECK: %[[ACCS:.*]] = tensor.extract_slice %[[ACC]][0, 0, 0, 0] [2, 8, 4, 8]
// CHECK: %[[LSES:.*]] = tensor.extract_slice %[[LSE]][0, 0, 0] [2, 4, 8]
// CHECK: %[[W:.*]]:3 = linalg.generic {indexing_maps = [#[[ROWS]], #[[ROWS]], #[[ROWS]], #[[ROWS]]], {{.*}}} ins(%[[L]] : tensor<2x4x8xf32>) outs(%[[LSES]], %{{.*}}, %{{.*}} :
// CHECK: math.log1p
// CHECK: %[[NEXT:.*]] = linalg.generic {indexing_maps = [#[[ID4]], #[[BSHD_ROW]], #[[BSHD_ROW]], #[[ID4]]], {{.*}}} ins(%[[O]], %[[W]]#1, %[[W]]#2 : tensor<2x8x4x8xf16>, tensor<2x4x8xf32>, tensor<2x4x8xf32>) outs(%[[ACCS]] : tensor<2x8x4x8xf32>)
// CHECK: %[[A1:.*]] = tensor.insert_slice %[[NEXT]] into %[[ACC]]
// CHECK: %[[L1:.*]] = tensor.insert_slice %[[W]]#0 into %[[LSE]]
// CHECK: scf.yield %[[A1]], %[[L1]]
// The merge rounds the state into the op's destination.
// CHECK: %[[R:.*]] = linalg.generic {{.*}} ins(%[[LOOP]]#0 : tensor<2x8x4x8xf32>) outs(%[[INIT]] : tensor<2x8x4x8xf16>)
// CHECK: arith.truncf
// CHECK: return %[[R]], %[[LOOP]]#1
func.func @keys_bshd(%q: tensor<2x8x4x16xf16>, %k: tensor<2x40x2x16xf16>, %v: tensor<2x40x2x8xf16>, %b: tensor<8x40xf32>, %m: tensor<2x1x1x40xi1>, %f: tensor<8xf64>, %ko: index) -> (tensor<2x8x4x8xf16>, tensor<2x4x8xf32>) {
  %attn_init0 = tensor.empty() : tensor<2x8x4x8xf16>
  %attn_lse_init0 = tensor.empty() : tensor<2x4x8xf32>
  %o, %l = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<8xf64>) key_offset(%ko : index) bias(%b : tensor<8x40xf32>) mask(%m : tensor<2x1x1x40xi1>) outs(%attn_init0, %attn_lse_init0 : tensor<2x8x4x8xf16>, tensor<2x4x8xf32>) {layout = #pe<attention_layout bshd>, softcap = 30.0} : tensor<2x8x4x16xf16>, tensor<2x40x2x16xf16>, tensor<2x40x2x8xf16> -> tensor<2x8x4x8xf16>, tensor<2x4x8xf32>
  return %o, %l : tensor<2x8x4x8xf16>, tensor<2x4x8xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.attention"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %fill:2, %split, %merge, %loop = transform.structured.tile_reduction_using_for %0 by tile_sizes = [0, 0, 0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Bottom-right causal without kv_lengths (o = Tk - Tq = 32): the tile of
// keys [j, j + n) is bottom-right with base n - Tq, so its offset is
// 40 - n - j; symmetric ALiBi measures from the tile's first key (query
// offset 3 - j); kv_lengths absent, window kept.
// CHECK-DAG: #[[CAUSAL:.*]] = affine_map<()[s0, s1] -> (-s0 - s1 + 40)>
// CHECK-DAG: #[[ALIBI:.*]] = affine_map<()[s0] -> (-s0)>
// CHECK-LABEL: func @keys_bottom_right
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[N:.*]] = affine.min #{{.*}}(%[[J]])
// CHECK: %[[AO:.*]] = affine.apply #[[ALIBI]]()[%[[J]]]
// CHECK: %[[CO:.*]] = affine.apply #[[CAUSAL]]()[%[[N]], %[[J]]]
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} causal_offset(%[[CO]] : index) alibi <symmetric, query_offset = 3> alibi_offset(%[[AO]] : index) outs({{[^)]*}}) {causal, window = 4 : i64} : tensor<2x4x8x16xf32>, tensor<2x2x?x16xf32>, tensor<2x2x?x16xf32> -> tensor<2x4x8x16xf32>, tensor<2x4x8xf32>
func.func @keys_bottom_right(%q: tensor<2x4x8x16xf32>, %k: tensor<2x2x40x16xf32>) -> tensor<2x4x8x16xf32> {
  %attn_init1 = tensor.empty() : tensor<2x4x8x16xf32>
  %o = pe.attention %q, %k, %k alibi <symmetric, query_offset = 3> outs(%attn_init1 : tensor<2x4x8x16xf32>) {causal, window = 4 : i64} : tensor<2x4x8x16xf32>, tensor<2x2x40x16xf32>, tensor<2x2x40x16xf32> -> tensor<2x4x8x16xf32>
  return %o : tensor<2x4x8x16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.attention"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %fill:2, %split, %merge, %loop = transform.structured.tile_reduction_using_for %0 by tile_sizes = [0, 0, 0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Bottom-right causal with kv_lengths, batch tiled by 1 first: the key tile
// is top-left with offset clamp(L[b], 0, Tk) - Tq - j, and valid length
// max(L[b], 0) - j. The key-distance ALiBi adds m_h * j to the tile's
// log-sum-exp (slopes of the whole table: heads are not tiled).
// CHECK-LABEL: func @keys_lengths_bottom_right
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: tensor.extract_slice %{{.*}}[%[[B]]] [1] [1] : tensor<2xi64> to tensor<1xi64>
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[LS:.*]] = tensor.extract_slice %{{.*}}[0] [1] [1] : tensor<1xi64> to tensor<1xi64>
// CHECK: %[[JI:.*]] = arith.index_cast %[[J]] : index to i64
// CHECK: %[[TL:.*]] = linalg.generic {{.*}} ins(%[[LS]] : tensor<1xi64>)
// CHECK: arith.maxsi
// CHECK: arith.subi %{{.*}}, %[[JI]] : i64
// CHECK: %[[SLOPES:.*]] = arith.constant dense<{{.*}}> : tensor<4xf64>
// CHECK: %[[L:.*]] = tensor.extract %[[LS]][%{{.*}}] : tensor<1xi64>
// CHECK: arith.index_cast %[[L]] : i64 to index
// CHECK: %[[CO:.*]] = affine.apply #{{.*}}()[%{{.*}}, %[[J]]]
// CHECK: %[[T:.*]], %[[TLSE:.*]] = pe.attention %{{.*}}, %{{.*}}, %{{.*}} kv_lengths(%[[TL]] : tensor<1xi64>) causal_offset(%[[CO]] : index) alibi <key> outs({{[^)]*}}) {causal, causal_alignment = #pe<causal_alignment top_left>} : tensor<1x4x8x16xf32>, tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32> -> tensor<1x4x8x16xf32>, tensor<1x4x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[TLSE]], %[[SLOPES]] : tensor<1x4x8xf32>, tensor<4xf64>)
func.func @keys_lengths_bottom_right(%q: tensor<2x4x8x16xf32>, %k: tensor<2x4x40x16xf32>, %l: tensor<2xi64>) -> tensor<2x4x8x16xf32> {
  %attn_init2 = tensor.empty() : tensor<2x4x8x16xf32>
  %o = pe.attention %q, %k, %k kv_lengths(%l : tensor<2xi64>) alibi <key> outs(%attn_init2 : tensor<2x4x8x16xf32>) {causal} : tensor<2x4x8x16xf32>, tensor<2x4x40x16xf32>, tensor<2x4x40x16xf32> -> tensor<2x4x8x16xf32>
  return %o : tensor<2x4x8x16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.attention"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %1, %loop0 = transform.structured.tile_using_for %0 tile_sizes [1] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    %fill:2, %split, %merge, %loop = transform.structured.tile_reduction_using_for %1 by tile_sizes = [0, 0, 0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Without the batch tile, its causal offset differs per batch: not tiled.
func.func @keys_lengths_bottom_right_batches(%q: tensor<2x4x8x16xf32>, %k: tensor<2x2x40x16xf32>, %l: tensor<2xi32>) -> tensor<2x4x8x16xf32> {
  %attn_init3 = tensor.empty() : tensor<2x4x8x16xf32>
  // expected-remark@+3 {{cannot tile the keys of a bottom-right causal attention with kv_lengths over more than one batch: its causal offset differs per batch; tile the batch loop by 1}}
  // expected-error@+2 {{faild to tile operation}}
  // expected-error@+1 {{failed to generate tiling loops}}
  %o = pe.attention %q, %k, %k kv_lengths(%l : tensor<2xi32>) outs(%attn_init3 : tensor<2x4x8x16xf32>) {causal} : tensor<2x4x8x16xf32>, tensor<2x2x40x16xf32>, tensor<2x2x40x16xf32> -> tensor<2x4x8x16xf32>
  return %o : tensor<2x4x8x16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.attention"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    // expected-error@+1 {{failed to tile using partial reduction}}
    %fill:2, %split, %merge, %loop = transform.structured.tile_reduction_using_for %0 by tile_sizes = [0, 0, 0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// A key tile through the parallel tiling driver would be a partial softmax
// with nothing to merge it: refused, with the driver to use.
func.func @keys_full_reduction(%q: tensor<2x4x8x16xf32>, %k: tensor<2x2x40x16xf32>) -> tensor<2x4x8x16xf32> {
  %attn_init4 = tensor.empty() : tensor<2x4x8x16xf32>
  // expected-remark@+3 {{a tile of the keys is a partial softmax: tile the key loop 4 as a reduction (transform.structured.tile_reduction_using_for), which merges the tiles}}
  // expected-error@+2 {{faild to tile operation}}
  // expected-error@+1 {{failed to generate tiling loops}}
  %o = pe.attention %q, %k, %k outs(%attn_init4 : tensor<2x4x8x16xf32>) {causal} : tensor<2x4x8x16xf32>, tensor<2x2x40x16xf32>, tensor<2x2x40x16xf32> -> tensor<2x4x8x16xf32>
  return %o : tensor<2x4x8x16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.attention"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %1, %l = transform.structured.tile_using_for %0 tile_sizes [0, 0, 0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// The state is one running softmax per row, merged in sequence: the forall
// strategy (a partial state per thread) is refused.
func.func @keys_forall(%q: tensor<2x4x8x16xf32>, %k: tensor<2x2x40x16xf32>) -> tensor<2x4x8x16xf32> {
  %attn_init5 = tensor.empty() : tensor<2x4x8x16xf32>
  // expected-remark@+3 {{key tiles merge into one running softmax state, in sequence: tile the keys with transform.structured.tile_reduction_using_for}}
  // expected-error@+2 {{faild to tile operation}}
  // expected-error@+1 {{failed to generate tiling loops}}
  %o = pe.attention %q, %k, %k outs(%attn_init5 : tensor<2x4x8x16xf32>) {causal} : tensor<2x4x8x16xf32>, tensor<2x2x40x16xf32>, tensor<2x2x40x16xf32> -> tensor<2x4x8x16xf32>
  return %o : tensor<2x4x8x16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.attention"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    // expected-error@+1 {{could not tile reduction}}
    %fill:2, %split, %merge, %loop = transform.structured.tile_reduction_using_forall %0 by num_threads = [0, 0, 0, 0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
