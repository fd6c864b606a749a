// RUN: pe-opt %s --pe-fold-attention-layout --split-input-file | FileCheck %s
// RUN: pe-opt %s --pe-fold-attention-layout --split-input-file --remarks-filter='pe-fold-attention-layout' --verify-diagnostics -o /dev/null

// Hugging Face's attention: Q, K and V transposed from [B, S, H, D] to
// [B, H, S, D], the result transposed back. The attention reads the
// projections in bshd layout and no transpose remains.
// CHECK-LABEL: func @hf_block
// CHECK-SAME: (%[[Q:.*]]: tensor<2x16x4x8xf32>, %[[K:.*]]: tensor<2x16x4x8xf32>, %[[V:.*]]: tensor<2x16x4x8xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x16x4x8xf32>
// CHECK: %[[O:.*]] = pe.attention %[[Q]], %[[K]], %[[V]] outs(%[[INIT]] : tensor<2x16x4x8xf32>) {causal, layout = #pe<attention_layout bshd>}
// CHECK-SAME: : tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32>, tensor<2x16x4x8xf32> -> tensor<2x16x4x8xf32>
// CHECK-NOT: linalg.transpose
// CHECK: return %[[O]]
func.func @hf_block(%q: tensor<2x16x4x8xf32>, %k: tensor<2x16x4x8xf32>, %v: tensor<2x16x4x8xf32>) -> tensor<2x16x4x8xf32> {
  %e = tensor.empty() : tensor<2x4x16x8xf32>
  %qt = linalg.transpose ins(%q : tensor<2x16x4x8xf32>) outs(%e : tensor<2x4x16x8xf32>) permutation = [0, 2, 1, 3]
  %kt = linalg.transpose ins(%k : tensor<2x16x4x8xf32>) outs(%e : tensor<2x4x16x8xf32>) permutation = [0, 2, 1, 3]
  %vt = linalg.transpose ins(%v : tensor<2x16x4x8xf32>) outs(%e : tensor<2x4x16x8xf32>) permutation = [0, 2, 1, 3]
  %init = tensor.empty() : tensor<2x4x16x8xf32>
  %o = pe.attention %qt, %kt, %vt outs(%init : tensor<2x4x16x8xf32>) {causal}
      : tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32> -> tensor<2x4x16x8xf32>
  %e2 = tensor.empty() : tensor<2x16x4x8xf32>
  %ot = linalg.transpose ins(%o : tensor<2x4x16x8xf32>) outs(%e2 : tensor<2x16x4x8xf32>) permutation = [0, 2, 1, 3]
  return %ot : tensor<2x16x4x8xf32>
}

// -----

// torch-mlir spells the transposes as linalg.generic; GQA (2 KV heads, 8
// query heads), a RoPE encoding with positions, a mask and lse: all of them
// stay as they are (the mask and lse are [B, H, ...] in either layout). The
// result is returned in bhsd, so the folded result is transposed back once
// for both of its uses.
#qmap = affine_map<(d0, d1, d2, d3) -> (d0, d2, d1, d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func @torch_generic_gqa
// CHECK-SAME: (%[[Q:[a-z0-9]+]]: tensor<1x?x8x16xf32>, %[[K:[a-z0-9]+]]: tensor<1x?x2x16xf32>, %[[V:[a-z0-9]+]]: tensor<1x?x2x16xf32>, %[[P:[a-z0-9]+]]: tensor<?xi64>, %[[M:[a-z0-9]+]]: tensor<1x1x?x?xi1>, %[[F:[a-z0-9]+]]: tensor<8xf64>)
// CHECK-NOT: linalg.generic
// CHECK: %[[INIT:.*]] = tensor.empty(%{{.*}}) : tensor<1x?x8x16xf32>
// CHECK: %[[O:[a-z0-9_]+]], %[[L:[a-z0-9_]+]] = pe.attention %[[Q]], %[[K]], %[[V]] rope <half> inv_freq(%[[F]] : tensor<8xf64>) query_positions(%[[P]] : tensor<?xi64>) key_positions(%[[P]] : tensor<?xi64>) mask(%[[M]] : tensor<1x1x?x?xi1>) outs(%[[INIT]], %{{.*}} : tensor<1x?x8x16xf32>, tensor<1x8x?xf32>) {layout = #pe<attention_layout bshd>}
// CHECK-SAME: -> tensor<1x?x8x16xf32>, tensor<1x8x?xf32>
// CHECK: %[[T2:.*]] = tensor.dim %[[O]], %c1
// CHECK: %[[E:.*]] = tensor.empty(%[[T2]]) : tensor<1x8x?x16xf32>
// CHECK: %[[B:.*]] = linalg.transpose ins(%[[O]] : tensor<1x?x8x16xf32>) outs(%[[E]] : tensor<1x8x?x16xf32>) permutation = [0, 2, 1, 3]
// CHECK-NOT: linalg.transpose
// CHECK: return %[[B]], %[[B]], %[[L]]
func.func @torch_generic_gqa(%q: tensor<1x?x8x16xf32>, %k: tensor<1x?x2x16xf32>, %v: tensor<1x?x2x16xf32>,
                             %pos: tensor<?xi64>, %mask: tensor<1x1x?x?xi1>, %f: tensor<8xf64>)
    -> (tensor<1x8x?x16xf32>, tensor<1x8x?x16xf32>, tensor<1x8x?xf32>) {
  %c1 = arith.constant 1 : index
  %t = tensor.dim %q, %c1 : tensor<1x?x8x16xf32>
  %eq = tensor.empty(%t) : tensor<1x8x?x16xf32>
  %ekv = tensor.empty(%t) : tensor<1x2x?x16xf32>
  %qt = linalg.generic {indexing_maps = [#qmap, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%q : tensor<1x?x8x16xf32>) outs(%eq : tensor<1x8x?x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x8x?x16xf32>
  %kt = linalg.generic {indexing_maps = [#qmap, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%k : tensor<1x?x2x16xf32>) outs(%ekv : tensor<1x2x?x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x?x16xf32>
  %vt = linalg.generic {indexing_maps = [#qmap, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%v : tensor<1x?x2x16xf32>) outs(%ekv : tensor<1x2x?x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<1x2x?x16xf32>
  %init = tensor.empty(%t) : tensor<1x8x?x16xf32>
  %lse_init = tensor.empty(%t) : tensor<1x8x?xf32>
  %o, %lse = pe.attention %qt, %kt, %vt rope <half> inv_freq(%f : tensor<8xf64>)
      query_positions(%pos : tensor<?xi64>) key_positions(%pos : tensor<?xi64>)
      mask(%mask : tensor<1x1x?x?xi1>) outs(%init, %lse_init : tensor<1x8x?x16xf32>, tensor<1x8x?xf32>)
      : tensor<1x8x?x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x8x?x16xf32>, tensor<1x8x?xf32>
  return %o, %o, %lse : tensor<1x8x?x16xf32>, tensor<1x8x?x16xf32>, tensor<1x8x?xf32>
}

// -----

// V is not transposed (it comes from a cache held as [B, H, S, D]): the op
// has one layout for all three operands, so nothing folds, and a remark says
// why.
// CHECK-LABEL: func @mixed_layouts
// CHECK-COUNT-2: linalg.transpose
// CHECK: pe.attention
// CHECK-NOT: layout = #pe<attention_layout bshd>
func.func @mixed_layouts(%q: tensor<1x16x4x8xf32>, %k: tensor<1x16x4x8xf32>, %v: tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32> {
  %e = tensor.empty() : tensor<1x4x16x8xf32>
  %qt = linalg.transpose ins(%q : tensor<1x16x4x8xf32>) outs(%e : tensor<1x4x16x8xf32>) permutation = [0, 2, 1, 3]
  %kt = linalg.transpose ins(%k : tensor<1x16x4x8xf32>) outs(%e : tensor<1x4x16x8xf32>) permutation = [0, 2, 1, 3]
  // expected-remark@+1 {{[Missed] layout-not-folded | Category:pe-fold-attention-layout | Reason="the value of this attention are not [0, 2, 1, 3] transposes like the other operands; one layout (bshd) would need all three"}}
  %o = pe.attention %qt, %kt, %v outs(%e : tensor<1x4x16x8xf32>)
      : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32> -> tensor<1x4x16x8xf32>
  return %o : tensor<1x4x16x8xf32>
}

// -----

// Only the query is transposed: the remark names both others.
// CHECK-LABEL: func @query_only_transposed
// CHECK-NOT: layout = #pe<attention_layout bshd>
func.func @query_only_transposed(%q: tensor<1x16x4x8xf32>, %k: tensor<1x4x16x8xf32>, %v: tensor<1x4x16x8xf32>) -> tensor<1x4x16x8xf32> {
  %e = tensor.empty() : tensor<1x4x16x8xf32>
  %qt = linalg.transpose ins(%q : tensor<1x16x4x8xf32>) outs(%e : tensor<1x4x16x8xf32>) permutation = [0, 2, 1, 3]
  // expected-remark@+1 {{Reason="the key and value of this attention are not [0, 2, 1, 3] transposes like the other operands; one layout (bshd) would need all three"}}
  %o = pe.attention %qt, %k, %v outs(%e : tensor<1x4x16x8xf32>)
      : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32> -> tensor<1x4x16x8xf32>
  return %o : tensor<1x4x16x8xf32>
}

// -----

// Transposes by another permutation (here [0, 1, 3, 2]: K^T) are no layout
// of the op: nothing folds and nothing is reported.
// CHECK-LABEL: func @other_permutation
// CHECK-COUNT-3: linalg.transpose
// CHECK: pe.attention
// CHECK-NOT: bshd
func.func @other_permutation(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>) -> tensor<1x4x16x8xf32> {
  %e = tensor.empty() : tensor<1x4x16x8xf32>
  %qt = linalg.transpose ins(%q : tensor<1x4x8x16xf32>) outs(%e : tensor<1x4x16x8xf32>) permutation = [0, 1, 3, 2]
  %kt = linalg.transpose ins(%k : tensor<1x4x8x16xf32>) outs(%e : tensor<1x4x16x8xf32>) permutation = [0, 1, 3, 2]
  %vt = linalg.transpose ins(%v : tensor<1x4x8x16xf32>) outs(%e : tensor<1x4x16x8xf32>) permutation = [0, 1, 3, 2]
  %o = pe.attention %qt, %kt, %vt outs(%e : tensor<1x4x16x8xf32>)
      : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32> -> tensor<1x4x16x8xf32>
  return %o : tensor<1x4x16x8xf32>
}

// -----

// A bshd attention is already in the operands' layout: transposes of its
// operands (here to bhsd) are left alone.
// CHECK-LABEL: func @already_bshd
// CHECK-COUNT-3: linalg.transpose
// CHECK: pe.attention
func.func @already_bshd(%q: tensor<1x4x16x8xf32>, %k: tensor<1x4x16x8xf32>, %v: tensor<1x4x16x8xf32>) -> tensor<1x16x4x8xf32> {
  %e = tensor.empty() : tensor<1x16x4x8xf32>
  %qt = linalg.transpose ins(%q : tensor<1x4x16x8xf32>) outs(%e : tensor<1x16x4x8xf32>) permutation = [0, 2, 1, 3]
  %kt = linalg.transpose ins(%k : tensor<1x4x16x8xf32>) outs(%e : tensor<1x16x4x8xf32>) permutation = [0, 2, 1, 3]
  %vt = linalg.transpose ins(%v : tensor<1x4x16x8xf32>) outs(%e : tensor<1x16x4x8xf32>) permutation = [0, 2, 1, 3]
  %o = pe.attention %qt, %kt, %vt outs(%e : tensor<1x16x4x8xf32>) {layout = #pe<attention_layout bshd>}
      : tensor<1x16x4x8xf32>, tensor<1x16x4x8xf32>, tensor<1x16x4x8xf32> -> tensor<1x16x4x8xf32>
  return %o : tensor<1x16x4x8xf32>
}
