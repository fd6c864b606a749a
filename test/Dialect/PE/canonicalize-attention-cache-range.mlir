// RUN: pe-opt %s --canonicalize | FileCheck %s

// A constant rope offset of pe.attention stays a dynamic operand (clamped at
// run time) when moving it into the encoding would read the cache outside
// its rows statically, which the verifier rejects (as pe.rope's
// FoldConstantOffset does); a fitting one moves (issue 11).
// CHECK-LABEL: func @attention_cache_range
// CHECK: pe.attention {{.*}}rope <half, key_offset = 12> cache({{.*}}) query_offset(%{{.*}} : index) outs({{[^)]*}}) :
func.func @attention_cache_range(%q: tensor<1x2x4x16xf32>, %c: tensor<16x8xf32>) -> tensor<1x2x4x16xf32> {
  %big = arith.constant 100 : index
  %fits = arith.constant 12 : index
  %attn_init0 = tensor.empty() : tensor<1x2x4x16xf32>
  %0 = pe.attention %q, %q, %q rope <half> cache(%c, %c : tensor<16x8xf32>, tensor<16x8xf32>) query_offset(%big : index) key_offset(%fits : index) outs(%attn_init0 : tensor<1x2x4x16xf32>) : tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32>, tensor<1x2x4x16xf32> -> tensor<1x2x4x16xf32>
  return %0 : tensor<1x2x4x16xf32>
}
