// Every combination of RoPE (Q and K, or Q only), ALiBi, softcap, mask and
// causal fuses into one pe.attention, whatever the order of the passes.
// RUN: pe-opt %s --pe-fuse-encodings-into-attention | FileCheck %s
// RUN: pe-opt %s --pe-fuse-rope-into-attention --pe-fuse-alibi-into-attention | FileCheck %s
// RUN: pe-opt %s --pe-fuse-alibi-into-attention --pe-fuse-rope-into-attention | FileCheck %s
// The three runs print the same IR.
// RUN: pe-opt %s --pe-fuse-rope-into-attention --pe-fuse-alibi-into-attention > %t.ra
// RUN: pe-opt %s --pe-fuse-alibi-into-attention --pe-fuse-rope-into-attention > %t.ar
// RUN: pe-opt %s --pe-fuse-encodings-into-attention > %t.both
// RUN: diff %t.ra %t.ar
// RUN: diff %t.ra %t.both

// CHECK-LABEL: func @rope_alibi
// CHECK-NOT: pe.rope
// CHECK-NOT: pe.alibi_bias
// CHECK: pe.attention %arg0, %arg1, %arg2 rope <half> inv_freq(%arg3 : tensor<8xf32>) alibi <symmetric> outs({{[^)]*}}) {causal}
func.func @rope_alibi(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %b = pe.alibi_bias symmetric : tensor<4x8x8xf32>
  %attn_init0 = tensor.empty() : tensor<1x4x8x16xf32>
  %r = pe.attention %qr, %kr, %v bias(%b : tensor<4x8x8xf32>) outs(%attn_init0 : tensor<1x4x8x16xf32>) {causal} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r : tensor<1x4x8x16xf32>
}

// CHECK-LABEL: func @rope_alibi_mask_softcap
// CHECK-NOT: pe.rope
// CHECK-NOT: pe.alibi_bias
// CHECK: pe.attention %arg0, %arg1, %arg2 rope <interleaved> inv_freq(%arg3 : tensor<8xf32>) alibi <key> mask(%arg4 : tensor<8x8xi1>) outs({{[^)]*}}) {softcap = 5.000000e+01 : f64, softcap_order = #pe<softcap_order after_bias>}
func.func @rope_alibi_mask_softcap(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %v: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %m: tensor<8x8xi1>) -> tensor<1x4x8x16xf32> {
  %b = pe.alibi_bias key : tensor<4x8x8xf32>
  %qr = pe.rope interleaved %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %kr = pe.rope interleaved %k inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %attn_init1 = tensor.empty() : tensor<1x4x8x16xf32>
  %r = pe.attention %qr, %kr, %v bias(%b : tensor<4x8x8xf32>) mask(%m : tensor<8x8xi1>) outs(%attn_init1 : tensor<1x4x8x16xf32>) {softcap = 50.0 : f64, softcap_order = #pe<softcap_order after_bias>} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r : tensor<1x4x8x16xf32>
}

// Decode with a rotated KV cache and ALiBi (query-only rotation).
// CHECK-LABEL: func @query_rope_alibi_decode
// CHECK: pe.attention %arg0, %arg1, %arg2 rope <half, query_only> inv_freq(%arg3 : tensor<8xf32>) query_offset(%arg4 : index) alibi <signed> alibi_offset(%arg4 : index) outs({{[^)]*}}) :
func.func @query_rope_alibi_decode(%q: tensor<1x4x1x16xf32>, %k: tensor<1x4x?x16xf32>, %v: tensor<1x4x?x16xf32>, %f: tensor<8xf32>, %past: index) -> tensor<1x4x1x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) offset(%past : index) : tensor<1x4x1x16xf32>
  %c2 = arith.constant 2 : index
  %tk = tensor.dim %k, %c2 : tensor<1x4x?x16xf32>
  %b = pe.alibi_bias signed [%tk] offset(%past : index) : tensor<4x1x?xf32>
  %attn_init2 = tensor.empty() : tensor<1x4x1x16xf32>
  %r = pe.attention %qr, %k, %v bias(%b : tensor<4x1x?xf32>) outs(%attn_init2 : tensor<1x4x1x16xf32>) : tensor<1x4x1x16xf32>, tensor<1x4x?x16xf32>, tensor<1x4x?x16xf32> -> tensor<1x4x1x16xf32>
  return %r : tensor<1x4x1x16xf32>
}

// RoPE only, and ALiBi only, in one function.
// CHECK-LABEL: func @separate
// CHECK: pe.attention %arg0, %arg0, %arg0 rope <half, rotary_dim = 8> inv_freq(%arg1 : tensor<4xf32>) outs({{[^)]*}}) {causal}
// CHECK: pe.attention %arg0, %arg0, %arg0 alibi <key> outs({{[^)]*}}) :
func.func @separate(%x: tensor<1x4x8x16xf32>, %f: tensor<4xf32>) -> (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) {
  %qr = pe.rope half %x inv_freq(%f : tensor<4xf32>) {rotary_dim = 8 : i64} : tensor<1x4x8x16xf32>
  %kr = pe.rope half %x inv_freq(%f : tensor<4xf32>) {rotary_dim = 8 : i64} : tensor<1x4x8x16xf32>
  %attn_init3 = tensor.empty() : tensor<1x4x8x16xf32>
  %r = pe.attention %qr, %kr, %x outs(%attn_init3 : tensor<1x4x8x16xf32>) {causal} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  %b = pe.alibi_bias key : tensor<4x8x8xf32>
  %attn_init4 = tensor.empty() : tensor<1x4x8x16xf32>
  %s = pe.attention %x, %x, %x bias(%b : tensor<4x8x8xf32>) outs(%attn_init4 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r, %s : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
}
