// pe.attention is destination-style: the upstream tiling drivers take its
// `outs` operands as the loops' destinations (tensor::getOrCreateDestinations
// returns them, no tensor.empty is made up), and a tile of the op writes the
// tile of its destination (an extract_slice of the loop's iter_arg or
// shared_out).
// RUN: pe-opt %s --transform-interpreter --split-input-file --verify-diagnostics | FileCheck %s

// tile_using_forall: the destination is the forall's shared_out, the tile
// writes its slice.
// CHECK-LABEL: func @forall
// CHECK-SAME: (%[[Q:.*]]: tensor<2x4x32x16xf32>, %[[INIT:.*]]: tensor<2x4x32x16xf32>)
// CHECK: scf.forall (%[[B:.*]], %[[HI:.*]], %[[RI:.*]]) in (2, 2, 4) shared_outs(%[[OUT:.*]] = %[[INIT]])
// CHECK-DAG: %[[H:.*]] = affine.apply #{{.*}}(%[[HI]])
// CHECK-DAG: %[[R:.*]] = affine.apply #{{.*}}(%[[RI]])
// CHECK: %[[QS:.*]] = tensor.extract_slice %[[Q]][%[[B]], %[[H]], %[[R]], 0] [1, 2, 8, 16]
// CHECK: %[[OS:.*]] = tensor.extract_slice %[[OUT]][%[[B]], %[[H]], %[[R]], 0] [1, 2, 8, 16] [1, 1, 1, 1] : tensor<2x4x32x16xf32> to tensor<1x2x8x16xf32>
// CHECK: %[[T:.*]] = pe.attention %[[QS]], %{{.*}}, %{{.*}} outs(%[[OS]] : tensor<1x2x8x16xf32>) {causal}
// CHECK: tensor.parallel_insert_slice %[[T]] into %[[OUT]][%[[B]], %[[H]], %[[R]], 0] [1, 2, 8, 16]
func.func @forall(%q: tensor<2x4x32x16xf32>, %init: tensor<2x4x32x16xf32>) -> tensor<2x4x32x16xf32> {
  %o = pe.attention %q, %q, %q outs(%init : tensor<2x4x32x16xf32>) {causal} : tensor<2x4x32x16xf32>, tensor<2x4x32x16xf32>, tensor<2x4x32x16xf32> -> tensor<2x4x32x16xf32>
  return %o : tensor<2x4x32x16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.attention"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %1, %2 = transform.structured.tile_using_forall %0 tile_sizes [1, 2, 8, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// tile_using_for with the lse result: both destinations are iter_args, both
// tiles are their slices (lse [B, H, Tq] by meaning in the bshd layout).
// CHECK-LABEL: func @for_lse_bshd
// CHECK-SAME: (%[[Q:.*]]: tensor<1x16x4x8xf32>, %[[INIT:.*]]: tensor<1x16x4x8xf32>, %[[LINIT:.*]]: tensor<1x4x16xf32>)
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OUT:.*]] = %[[INIT]], %[[LSE:.*]] = %[[LINIT]])
// CHECK: scf.for %[[H:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[OUT2:.*]] = %[[OUT]], %[[LSE2:.*]] = %[[LSE]])
// CHECK-DAG: %[[OS:.*]] = tensor.extract_slice %[[OUT2]][0, %[[R]], %[[H]], 0] [1, 4, 2, 8] [1, 1, 1, 1] : tensor<1x16x4x8xf32> to tensor<1x4x2x8xf32>
// CHECK-DAG: %[[LS:.*]] = tensor.extract_slice %[[LSE2]][0, %[[H]], %[[R]]] [1, 2, 4] [1, 1, 1] : tensor<1x4x16xf32> to tensor<1x2x4xf32>
// CHECK: %[[T:.*]], %[[L:.*]] = pe.attention %{{.*}}, %{{.*}}, %{{.*}} outs(%[[OS]], %[[LS]] : tensor<1x4x2x8xf32>, tensor<1x2x4xf32>)
// CHECK: tensor.insert_slice %[[T]] into %[[OUT2]][0, %[[R]], %[[H]], 0] [1, 4, 2, 8]
// CHECK: tensor.insert_slice %[[L]] into %[[LSE2]][0, %[[H]], %[[R]]] [1, 2, 4]
func.func @for_lse_bshd(%q: tensor<1x16x4x8xf32>, %init: tensor<1x16x4x8xf32>, %lse_init: tensor<1x4x16xf32>) -> (tensor<1x16x4x8xf32>, tensor<1x4x16xf32>) {
  %o:2 = pe.attention %q, %q, %q outs(%init, %lse_init : tensor<1x16x4x8xf32>, tensor<1x4x16xf32>) {layout = #pe<attention_layout bshd>} : tensor<1x16x4x8xf32>, tensor<1x16x4x8xf32>, tensor<1x16x4x8xf32> -> tensor<1x16x4x8xf32>, tensor<1x4x16xf32>
  return %o#0, %o#1 : tensor<1x16x4x8xf32>, tensor<1x4x16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["pe.attention"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %1, %loops:2 = transform.structured.tile_using_for %0 tile_sizes [0, 4, 2, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)
    transform.yield
  }
}

// -----

// Tile-and-fuse from a consumer (transform.structured.fuse): the fused
// attention tile (generateResultTileValue) writes the slice of its own
// destination, the tensor.empty of the untiled op.
// CHECK-LABEL: func @fuse_into_consumer
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<1x4x32x16xf32>
// CHECK: scf.for %[[R:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// CHECK: %[[OS:.*]] = tensor.extract_slice %[[INIT]][0, 0, %[[R]], 0] [1, 4, 8, 16] [1, 1, 1, 1] : tensor<1x4x32x16xf32> to tensor<1x4x8x16xf32>
// CHECK: %[[T:.*]] = pe.attention %{{.*}}, %{{.*}}, %{{.*}} outs(%[[OS]] : tensor<1x4x8x16xf32>)
// CHECK: linalg.exp ins(%[[T]] : tensor<1x4x8x16xf32>)
func.func @fuse_into_consumer(%q: tensor<1x4x32x16xf32>) -> tensor<1x4x32x16xf32> {
  %init = tensor.empty() : tensor<1x4x32x16xf32>
  %o = pe.attention %q, %q, %q outs(%init : tensor<1x4x32x16xf32>) : tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32>, tensor<1x4x32x16xf32> -> tensor<1x4x32x16xf32>
  %e = tensor.empty() : tensor<1x4x32x16xf32>
  %x = linalg.exp ins(%o : tensor<1x4x32x16xf32>) outs(%e : tensor<1x4x32x16xf32>) -> tensor<1x4x32x16xf32>
  return %x : tensor<1x4x32x16xf32>
}
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%arg0: !transform.any_op {transform.readonly}) {
    %0 = transform.structured.match ops{["linalg.exp"]} in %arg0 : (!transform.any_op) -> !transform.any_op
    %1, %loops = transform.structured.fuse %0 tile_sizes [0, 0, 8, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}

