// RUN: pe-opt %s --pe-fuse-rope-into-attention --split-input-file | FileCheck %s

// Llama prefill: the same rope on Q and K (offset positions) fuses; the
// rotated tensors disappear.
// CHECK-LABEL: func @prefill
// CHECK-SAME: (%[[Q:.*]]: tensor<1x8x?x64xf32>, %[[K:.*]]: tensor<1x2x?x64xf32>, %[[V:.*]]: tensor<1x2x?x64xf32>, %[[F:.*]]: tensor<32xf32>, %[[M:.*]]: f32, %[[P:.*]]: index)
// CHECK-NOT: pe.rope
// CHECK: %[[O:.*]] = pe.fused_attention %[[Q]], %[[K]], %[[V]] rope half inv_freq(%[[F]] : tensor<32xf32>) attention_scaling(%[[M]]) q_offset(%[[P]] : index) k_offset(%[[P]] : index) {causal, k_static_offset = 3 : i64, q_static_offset = 3 : i64, rope_key, scale = 1.250000e-01 : f64}
// CHECK-NOT: pe.rope
// CHECK: return %[[O]]
func.func @prefill(%q: tensor<1x8x?x64xf32>, %k: tensor<1x2x?x64xf32>, %v: tensor<1x2x?x64xf32>,
                   %f: tensor<32xf32>, %m: f32, %p: index) -> tensor<1x8x?x64xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<32xf32>) attention_scaling(%m) offset(%p : index) {static_offset = 3 : i64} : tensor<1x8x?x64xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<32xf32>) attention_scaling(%m) offset(%p : index) {static_offset = 3 : i64} : tensor<1x2x?x64xf32>
  %o = pe.attention %qr, %kr, %v {causal, scale = 0.125 : f64} : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32> -> tensor<1x8x?x64xf32>
  return %o : tensor<1x8x?x64xf32>
}

// -----

// Decode: the KV cache already holds rotated keys, only Q is rotated.
// CHECK-LABEL: func @decode
// CHECK: pe.fused_attention %{{.*}}, %{{.*}}, %{{.*}} rope interleaved cache(%{{.*}}, %{{.*}} : tensor<4096x16xf32>, tensor<4096x16xf32>) q_offset(%{{.*}} : index) {rotary_dim = 32 : i64}
// CHECK-NOT: rope_key
func.func @decode(%q: tensor<1x4x1x64xf32>, %kc: tensor<1x4x?x64xf32>, %vc: tensor<1x4x?x64xf32>,
                  %c: tensor<4096x16xf32>, %s: tensor<4096x16xf32>, %past: index) -> tensor<1x4x1x64xf32> {
  %qr = pe.rope interleaved %q cache(%c, %s : tensor<4096x16xf32>, tensor<4096x16xf32>) offset(%past : index) {rotary_dim = 32 : i64} : tensor<1x4x1x64xf32>
  %o = pe.attention %qr, %kc, %vc : tensor<1x4x1x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

// A fused attention with ALiBi but no RoPE gains the RoPE.
// CHECK-LABEL: func @onto_fused
// CHECK: pe.fused_attention %{{.*}}, %{{.*}}, %{{.*}} rope half inv_freq({{.*}}) alibi signed {rope_key}
func.func @onto_fused(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %o = pe.fused_attention %qr, %kr, %k alibi signed : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Must not fire: Q and K ropes with different frequencies.
// CHECK-LABEL: func @different_frequencies
// CHECK-COUNT-2: pe.rope
// CHECK: pe.attention
func.func @different_frequencies(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %g: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %kr = pe.rope half %k inv_freq(%g : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %o = pe.attention %qr, %kr, %k : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Must not fire: different layouts.
// CHECK-LABEL: func @different_layouts
// CHECK: pe.attention
func.func @different_layouts(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %kr = pe.rope interleaved %k inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %o = pe.attention %qr, %kr, %k : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Must not fire: the rotated query has another user.
// CHECK-LABEL: func @other_user
// CHECK: pe.rope
// CHECK: pe.attention
func.func @other_user(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %o = pe.attention %qr, %q, %q : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o, %qr : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
}

// -----

// Must not fire: explicit positions tensor.
// CHECK-LABEL: func @positions_tensor
// CHECK: pe.rope
// CHECK: pe.attention
func.func @positions_tensor(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %p: tensor<8xi64>) -> tensor<1x4x8x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) positions(%p : tensor<8xi64>) : tensor<1x4x8x16xf32>
  %o = pe.attention %qr, %q, %q : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Must not fire: only the key is rotated.
// CHECK-LABEL: func @key_only
// CHECK: pe.rope
// CHECK: pe.attention
func.func @key_only(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %kr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %o = pe.attention %q, %kr, %q : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Must not fire: the attention has a mask.
// CHECK-LABEL: func @masked
// CHECK: pe.rope
// CHECK: pe.attention
func.func @masked(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %m: tensor<8x8xi1>) -> tensor<1x4x8x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %o = pe.attention %qr, %q, %q mask(%m : tensor<8x8xi1>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}
