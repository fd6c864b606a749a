// RUN: pe-opt %s --convert-pe-to-linalg | FileCheck %s
// RUN: pe-opt %s --convert-pe-to-linalg | FileCheck %s --check-prefix=NEG
// RUN: pe-opt %s --convert-pe-to-linalg | FileCheck %s --check-prefix=POS

// A pe.attention with encodings lowers through the ops that define them
// (AttentionOp::decomposeOperation): two RoPE generics (Q and K, each with
// its own offset), the ALiBi generic, then the attention composition.

// CHECK-LABEL: func @fused
// CHECK-SAME: (%[[Q:.*]]: tensor<1x4x8x16xf32>, %[[K:.*]]: tensor<1x2x8x16xf32>, %[[V:.*]]: tensor<1x2x8x16xf32>, %[[F:.*]]: tensor<8xf32>, %[[P:.*]]: index)
// Q rope at query_offset 5 + the query_offset operand:
// CHECK: %[[QB:.*]] = arith.addi %{{.*}}, %[[P]] : index
// CHECK: %[[QR:.*]] = linalg.generic {{.*}} ins(%[[Q]] : tensor<1x4x8x16xf32>)
// CHECK: math.cos
// K rope at key_offset 2:
// CHECK: %[[KR:.*]] = linalg.generic {{.*}} ins(%[[K]] : tensor<1x2x8x16xf32>)
// CHECK: math.cos
// ALiBi bias [4, 8, 8] with the paper's 4-head slopes 2^-2, 2^-4, 2^-6, 2^-8:
// CHECK: arith.constant dense<[2.500000e-01, 6.250000e-02, 1.562500e-02, 3.906250e-03]> : tensor<4xf64>
// CHECK: %[[B:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<4x8x8xf32>)
// Scores from the rotated tensors, then the bias:
// CHECK: linalg.generic {{.*}} ins(%[[QR]], %[[KR]] :
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[B]] :
// NEG-NOT: pe.
func.func @fused(%q: tensor<1x4x8x16xf32>, %k: tensor<1x2x8x16xf32>, %v: tensor<1x2x8x16xf32>,
                 %f: tensor<8xf32>, %p: index) -> tensor<1x4x8x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %q, %k, %v rope <half, query_offset = 5, key_offset = 2> inv_freq(%f : tensor<8xf32>)
         query_offset(%p : index) alibi <signed> outs(%attn_init0 : tensor<1x4x8x16xf32>) {causal}
         : tensor<1x4x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Positions tensors decompose into pe.rope ... positions(...): each rotation
// reads its own tensor, a [T] one by the token (d2) and a [B, T] one by the
// batch and the token (d0, d2); the causal mask stays index-based.
// POS-DAG: #[[TOK:.*]] = affine_map<(d0, d1, d2, d3) -> (d2)>
// POS-DAG: #[[BTOK:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2)>
// POS-LABEL: func @positions
// POS-SAME: (%[[Q:.*]]: tensor<2x4x8x16xf32>, %[[K:.*]]: tensor<2x2x6x16xf32>, %{{.*}}: tensor<2x2x6x16xf32>, %{{.*}}: tensor<8xf32>, %[[PQ:.*]]: tensor<8xi32>, %[[PK:.*]]: tensor<2x6xi64>)
// POS: linalg.generic {indexing_maps = [#{{.*}}, #[[TOK]], #{{.*}}], {{.*}} ins(%[[Q]], %[[PQ]] : tensor<2x4x8x16xf32>, tensor<8xi32>)
// POS: math.cos
// POS: linalg.generic {indexing_maps = [#{{.*}}, #[[BTOK]], #{{.*}}], {{.*}} ins(%[[K]], %[[PK]] : tensor<2x2x6x16xf32>, tensor<2x6xi64>)
// POS: math.cos
// NEG-LABEL: func @positions
// NEG-NOT: pe.
func.func @positions(%q: tensor<2x4x8x16xf32>, %k: tensor<2x2x6x16xf32>, %v: tensor<2x2x6x16xf32>,
                     %f: tensor<8xf32>, %pq: tensor<8xi32>, %pk: tensor<2x6xi64>) -> tensor<2x4x8x16xf32> {
  %init = tensor.empty() : tensor<2x4x8x16xf32>
  %o = pe.attention %q, %k, %v rope <half> inv_freq(%f : tensor<8xf32>)
         query_positions(%pq : tensor<8xi32>) key_positions(%pk : tensor<2x6xi64>) outs(%init : tensor<2x4x8x16xf32>) {causal}
         : tensor<2x4x8x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32> -> tensor<2x4x8x16xf32>
  return %o : tensor<2x4x8x16xf32>
}
