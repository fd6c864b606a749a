// The tiling interface of pe.attention with RoPE positions tensors: a tile
// of query rows [r, r + t) takes its slice of query_positions, a tile of keys
// [j0, j0 + n) its slice of key_positions (a [B, T] tensor with the tile's
// batches as well), instead of shifting an offset.
// RUN: pe-opt %s --transform-interpreter --split-input-file --verify-diagnostics | FileCheck %s

// Rows tiled by 16 (batch by 1): [B, Tq] query positions slice the batch
// and the rows, [Tk] key positions stay whole; no offset appears.
// CHECK-LABEL: func @rows
// CHECK-SAME: %[[PQ:[a-z0-9]+]]: tensor<2x64xi64>, %[[PK:[a-z0-9]+]]: tensor<64xi32>
// CHECK: scf.for %[[B:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[PQS:.*]] = tensor.extract_slice %[[PQ]][%[[B]], %[[R]]] [1, 16] [1, 1]
// CHECK: %[[PKS:.*]] = tensor.extract_slice %[[PK]][0] [64] [1]
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} causal_offset(%{{.*}} : index) rope <half> inv_freq(%{{.*}} : tensor<8xf64>) query_positions(%[[PQS]] : tensor<1x16xi64>) key_positions(%[[PKS]] : tensor<64xi32>) outs(
// CHECK-NOT: query_offset(
func.func @rows(%q: tensor<2x8x64x16xf32>, %k: tensor<2x2x64x16xf32>, %f: tensor<8xf64>, %pq: tensor<2x64xi64>, %pk: tensor<64xi32>) -> tensor<2x8x64x16xf32> {
  %init = tensor.empty() : tensor<2x8x64x16xf32>
  %o = pe.attention %q, %k, %k rope <half> inv_freq(%f : tensor<8xf64>) query_positions(%pq : tensor<2x64xi64>) key_positions(%pk : tensor<64xi32>) outs(%init : tensor<2x8x64x16xf32>) {causal} : tensor<2x8x64x16xf32>, tensor<2x2x64x16xf32>, tensor<2x2x64x16xf32> -> tensor<2x8x64x16xf32>
  return %o : tensor<2x8x64x16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.attention"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %1, %loops:2 = transform.structured.tile_using_for %0 tile_sizes [1, 0, 16, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Keys tiled by 16 (bshd): [B, Tk] key positions slice every batch and the
// tile's keys; [Tq] query positions stay whole; no key offset appears.
// CHECK-LABEL: func @keys
// CHECK-SAME: %[[PQ:[a-z0-9]+]]: tensor<4xi32>, %[[PK:[a-z0-9]+]]: tensor<2x40xi64>
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[N:.*]] = affine.min
// CHECK: %[[PQS:.*]] = tensor.extract_slice %[[PQ]][0] [4] [1]
// CHECK: %[[PKS:.*]] = tensor.extract_slice %[[PK]][0, %[[J]]] [2, %[[N]]] [1, 1]
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half> inv_freq(%{{.*}} : tensor<8xf64>) query_positions(%[[PQS]] : tensor<4xi32>) key_positions(%[[PKS]] : tensor<2x?xi64>) outs(
// CHECK-NOT: key_offset(
func.func @keys(%q: tensor<2x4x8x16xf32>, %k: tensor<2x40x2x16xf32>, %f: tensor<8xf64>, %pq: tensor<4xi32>, %pk: tensor<2x40xi64>) -> tensor<2x4x8x16xf32> {
  %init = tensor.empty() : tensor<2x4x8x16xf32>
  %o = pe.attention %q, %k, %k rope <half> inv_freq(%f : tensor<8xf64>) query_positions(%pq : tensor<4xi32>) key_positions(%pk : tensor<2x40xi64>) outs(%init : tensor<2x4x8x16xf32>) {layout = #pe<attention_layout bshd>} : tensor<2x4x8x16xf32>, tensor<2x40x2x16xf32>, tensor<2x40x2x16xf32> -> tensor<2x4x8x16xf32>
  return %o : tensor<2x4x8x16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.attention"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %fill:2, %split, %merge, %loop = transform.structured.tile_reduction_using_for %0 by tile_sizes = [0, 0, 0, 0, 16] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}
