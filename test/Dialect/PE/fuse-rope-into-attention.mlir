// RUN: pe-opt %s --pe-fuse-rope-into-attention --split-input-file | FileCheck %s

// Llama prefill: the same rope on Q and K (offset positions) fuses; the
// rotated tensors disappear.
// CHECK-LABEL: func @prefill
// CHECK-SAME: (%[[Q:.*]]: tensor<1x8x?x64xf32>, %[[K:.*]]: tensor<1x2x?x64xf32>, %[[V:.*]]: tensor<1x2x?x64xf32>, %[[F:.*]]: tensor<32xf32>, %[[M:.*]]: f32, %[[P:.*]]: index)
// CHECK-NOT: pe.rope
// The destination's size was a tensor.dim of the rotated query (a second
// use of it, which does not stop the fusion); it now asks the query.
// CHECK: tensor.dim %[[Q]], %{{.*}} : tensor<1x8x?x64xf32>
// CHECK-NOT: pe.rope
// CHECK: %[[O:.*]] = pe.attention %[[Q]], %[[K]], %[[V]] rope <half, query_offset = 3, key_offset = 3> inv_freq(%[[F]] : tensor<32xf32>) attention_scaling(%[[M]]) query_offset(%[[P]] : index) key_offset(%[[P]] : index) outs({{[^)]*}}) {causal, scale = 1.250000e-01 : f64}
// CHECK-NOT: pe.rope
// CHECK: return %[[O]]
func.func @prefill(%q: tensor<1x8x?x64xf32>, %k: tensor<1x2x?x64xf32>, %v: tensor<1x2x?x64xf32>,
                   %f: tensor<32xf32>, %m: f32, %p: index) -> tensor<1x8x?x64xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<32xf32>) attention_scaling(%m) offset(%p : index) {static_offset = 3 : i64} : tensor<1x8x?x64xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<32xf32>) attention_scaling(%m) offset(%p : index) {static_offset = 3 : i64} : tensor<1x2x?x64xf32>
  %attn_c2_0 = arith.constant 2 : index
  %attn_d0_2_0 = tensor.dim %qr, %attn_c2_0 : tensor<1x8x?x64xf32>
  %attn_init0 = tensor.empty(%attn_d0_2_0) : tensor<1x8x?x64xf32>
  %o = pe.attention %qr, %kr, %v outs(%attn_init0 : tensor<1x8x?x64xf32>) {causal, scale = 0.125 : f64} : tensor<1x8x?x64xf32>, tensor<1x2x?x64xf32>, tensor<1x2x?x64xf32> -> tensor<1x8x?x64xf32>
  return %o : tensor<1x8x?x64xf32>
}

// -----

// Decode: the KV cache already holds rotated keys, only Q is rotated.
// CHECK-LABEL: func @decode
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <interleaved, rotary_dim = 32, query_only> cache(%{{.*}}, %{{.*}} : tensor<4096x16xf32>, tensor<4096x16xf32>) query_offset(%{{.*}} : index) outs({{[^)]*}}) :
func.func @decode(%q: tensor<1x4x1x64xf32>, %kc: tensor<1x4x?x64xf32>, %vc: tensor<1x4x?x64xf32>,
                  %c: tensor<4096x16xf32>, %s: tensor<4096x16xf32>, %past: index) -> tensor<1x4x1x64xf32> {
  %qr = pe.rope interleaved %q cache(%c, %s : tensor<4096x16xf32>, tensor<4096x16xf32>) offset(%past : index) {rotary_dim = 32 : i64} : tensor<1x4x1x64xf32>
  %attn_init1 = tensor.empty() : tensor<1x4x1x64xf32>
  %o = pe.attention %qr, %kc, %vc outs(%attn_init1 : tensor<1x4x1x64xf32>) : tensor<1x4x1x64xf32>, tensor<1x4x?x64xf32>, tensor<1x4x?x64xf32> -> tensor<1x4x1x64xf32>
  return %o : tensor<1x4x1x64xf32>
}

// -----

// An attention that already computes ALiBi gains the RoPE.
// CHECK-LABEL: func @onto_alibi
// CHECK-NOT: pe.rope
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half> inv_freq({{.*}}) alibi <signed> outs({{[^)]*}}) :
func.func @onto_alibi(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %attn_init2 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %qr, %kr, %k alibi <signed> outs(%attn_init2 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// A mask and a bias stay where they are: the rotation fuses around them.
// CHECK-LABEL: func @masked_and_biased
// CHECK-NOT: pe.rope
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half> inv_freq({{.*}}) bias(%{{.*}} : tensor<8x8xf32>) mask(%{{.*}} : tensor<8x8xi1>) outs({{[^)]*}}) {softcap = 3.000000e+01 : f64}
func.func @masked_and_biased(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %b: tensor<8x8xf32>, %m: tensor<8x8xi1>) -> tensor<1x4x8x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %attn_init3 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %qr, %kr, %k bias(%b : tensor<8x8xf32>) mask(%m : tensor<8x8xi1>) outs(%attn_init3 : tensor<1x4x8x16xf32>) {softcap = 30.0 : f64} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Must not fire: the query is not rotated.
// CHECK-LABEL: func @no_rope
// CHECK: pe.attention %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} outs({{[^)]*}}) :
func.func @no_rope(%q: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %attn_init4 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %q, %q, %q outs(%attn_init4 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Must not fire (fusion-remarks.mlir checks the remark): Q and K ropes with different frequencies.
// CHECK-LABEL: func @different_frequencies
// CHECK-COUNT-2: pe.rope
// CHECK: pe.attention %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} outs({{[^)]*}}) :
func.func @different_frequencies(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %g: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %kr = pe.rope half %k inv_freq(%g : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %attn_init5 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %qr, %kr, %k outs(%attn_init5 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Must not fire (fusion-remarks.mlir checks the remark): different layouts.
// CHECK-LABEL: func @different_layouts
// CHECK-COUNT-2: pe.rope
// CHECK: pe.attention %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} outs({{[^)]*}}) :
func.func @different_layouts(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %kr = pe.rope interleaved %k inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %attn_init6 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %qr, %kr, %k outs(%attn_init6 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Must not fire (fusion-remarks.mlir checks the remark): the rotated query has another user.
// CHECK-LABEL: func @other_user
// CHECK: pe.rope
// CHECK: pe.attention %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} outs({{[^)]*}}) :
func.func @other_user(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %attn_init7 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %qr, %q, %q outs(%attn_init7 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o, %qr : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
}

// -----

// Must not fire (fusion-remarks.mlir checks the remark): the rotated key has another user.
// CHECK-LABEL: func @key_other_user
// CHECK-COUNT-2: pe.rope
// CHECK: pe.attention %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} outs({{[^)]*}}) :
func.func @key_other_user(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %kr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %attn_init8 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %qr, %kr, %q outs(%attn_init8 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o, %kr : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
}

// -----

// Positions tensors fuse, each side with its own: [T] i32 positions of the
// queries and of the keys (GQA, prefill; Hugging Face position_ids).
// CHECK-LABEL: func @positions_tensors
// CHECK-SAME: (%[[Q:.*]]: tensor<1x8x16x64xf32>, %[[K:.*]]: tensor<1x2x16x64xf32>, %[[V:.*]]: tensor<1x2x16x64xf32>, %[[F:.*]]: tensor<32xf32>, %[[PQ:.*]]: tensor<16xi32>, %[[PK:.*]]: tensor<16xi32>)
// CHECK-NOT: pe.rope
// CHECK: pe.attention %[[Q]], %[[K]], %[[V]] rope <half> inv_freq(%[[F]] : tensor<32xf32>) query_positions(%[[PQ]] : tensor<16xi32>) key_positions(%[[PK]] : tensor<16xi32>) outs({{[^)]*}}) {causal}
func.func @positions_tensors(%q: tensor<1x8x16x64xf32>, %k: tensor<1x2x16x64xf32>, %v: tensor<1x2x16x64xf32>,
                             %f: tensor<32xf32>, %pq: tensor<16xi32>, %pk: tensor<16xi32>) -> tensor<1x8x16x64xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<32xf32>) positions(%pq : tensor<16xi32>) : tensor<1x8x16x64xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<32xf32>) positions(%pk : tensor<16xi32>) : tensor<1x2x16x64xf32>
  %init = tensor.empty() : tensor<1x8x16x64xf32>
  %o = pe.attention %qr, %kr, %v outs(%init : tensor<1x8x16x64xf32>) {causal} : tensor<1x8x16x64xf32>, tensor<1x2x16x64xf32>, tensor<1x2x16x64xf32> -> tensor<1x8x16x64xf32>
  return %o : tensor<1x8x16x64xf32>
}

// -----

// [B, T] i64 positions in the [B, S, H, D] layout (vLLM continuous
// batching: every sequence its own positions), one tensor for both sides.
// CHECK-LABEL: func @batch_positions_bshd
// CHECK-SAME: %[[P:[a-z0-9]+]]: tensor<2x?xi64>
// CHECK-NOT: pe.rope
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <interleaved, rotary_dim = 32> cache(%{{.*}}, %{{.*}} : tensor<4096x16xf32>, tensor<4096x16xf32>) query_positions(%[[P]] : tensor<2x?xi64>) key_positions(%[[P]] : tensor<2x?xi64>) outs({{[^)]*}}) {layout = #pe<attention_layout bshd>}
func.func @batch_positions_bshd(%q: tensor<2x?x8x64xf32>, %k: tensor<2x?x8x64xf32>, %v: tensor<2x?x8x64xf32>,
                                %c: tensor<4096x16xf32>, %s: tensor<4096x16xf32>, %p: tensor<2x?xi64>) -> tensor<2x?x8x64xf32> {
  %qr = pe.rope interleaved %q cache(%c, %s : tensor<4096x16xf32>, tensor<4096x16xf32>) positions(%p : tensor<2x?xi64>) {rotary_dim = 32 : i64, sequence_dim = 1 : i64} : tensor<2x?x8x64xf32>
  %kr = pe.rope interleaved %k cache(%c, %s : tensor<4096x16xf32>, tensor<4096x16xf32>) positions(%p : tensor<2x?xi64>) {rotary_dim = 32 : i64, sequence_dim = 1 : i64} : tensor<2x?x8x64xf32>
  %c1 = arith.constant 1 : index
  %t = tensor.dim %qr, %c1 : tensor<2x?x8x64xf32>
  %init = tensor.empty(%t) : tensor<2x?x8x64xf32>
  %o = pe.attention %qr, %kr, %v outs(%init : tensor<2x?x8x64xf32>) {layout = #pe<attention_layout bshd>} : tensor<2x?x8x64xf32>, tensor<2x?x8x64xf32>, tensor<2x?x8x64xf32> -> tensor<2x?x8x64xf32>
  return %o : tensor<2x?x8x64xf32>
}

// -----

// Decode: the query at its [B, 1] position, the keys at offset positions
// (a dynamic offset and a static one), or not rotated at all (query_only).
// CHECK-LABEL: func @decode_positions
// CHECK-SAME: %[[P:[a-z0-9]+]]: tensor<2x1xi32>, %[[O:[a-z0-9]+]]: index
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half, key_offset = 4> inv_freq(%{{.*}} : tensor<32xf32>) key_offset(%[[O]] : index) query_positions(%[[P]] : tensor<2x1xi32>) outs(
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half, query_only> inv_freq(%{{.*}} : tensor<32xf32>) query_positions(%[[P]] : tensor<2x1xi32>) outs(
// CHECK-NOT: pe.rope
func.func @decode_positions(%q: tensor<2x8x1x64xf32>, %k: tensor<2x2x32x64xf32>, %v: tensor<2x2x32x64xf32>,
                            %f: tensor<32xf32>, %p: tensor<2x1xi32>, %o: index) -> (tensor<2x8x1x64xf32>, tensor<2x8x1x64xf32>) {
  %qr = pe.rope half %q inv_freq(%f : tensor<32xf32>) positions(%p : tensor<2x1xi32>) : tensor<2x8x1x64xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<32xf32>) offset(%o : index) {static_offset = 4 : i64} : tensor<2x2x32x64xf32>
  %init = tensor.empty() : tensor<2x8x1x64xf32>
  %0 = pe.attention %qr, %kr, %v outs(%init : tensor<2x8x1x64xf32>) : tensor<2x8x1x64xf32>, tensor<2x2x32x64xf32>, tensor<2x2x32x64xf32> -> tensor<2x8x1x64xf32>
  %qr2 = pe.rope half %q inv_freq(%f : tensor<32xf32>) positions(%p : tensor<2x1xi32>) : tensor<2x8x1x64xf32>
  %1 = pe.attention %qr2, %k, %v outs(%init : tensor<2x8x1x64xf32>) : tensor<2x8x1x64xf32>, tensor<2x2x32x64xf32>, tensor<2x2x32x64xf32> -> tensor<2x8x1x64xf32>
  return %0, %1 : tensor<2x8x1x64xf32>, tensor<2x8x1x64xf32>
}

// -----

// Must not fire (fusion-remarks.mlir checks the remark): the query has
// positions, the key per-token caches (no positions to carry).
// CHECK-LABEL: func @positions_and_per_token_key
// CHECK: pe.rope
// CHECK: pe.rope
// CHECK: pe.attention %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} outs({{[^)]*}}) :
func.func @positions_and_per_token_key(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %p: tensor<8xi64>, %c: tensor<1x8x8xf32>) -> tensor<1x4x8x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) positions(%p : tensor<8xi64>) : tensor<1x4x8x16xf32>
  %kr = pe.rope half %q cache(%c, %c : tensor<1x8x8xf32>, tensor<1x8x8xf32>) : tensor<1x4x8x16xf32>
  %init = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %qr, %kr, %q outs(%init : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Must not fire (fusion-remarks.mlir checks the remark): only the key is rotated.
// CHECK-LABEL: func @key_only
// CHECK: pe.rope
// CHECK: pe.attention %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} outs({{[^)]*}}) :
func.func @key_only(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %kr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %attn_init10 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %q, %kr, %q outs(%attn_init10 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// [B, S, H, D]: ropes along dimension 1 fuse into a bshd attention.
// CHECK-LABEL: func @bshd
// CHECK-NOT: pe.rope
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half> inv_freq(%{{.*}} : tensor<8xf32>) outs({{[^)]*}}) {causal, layout = #pe<attention_layout bshd>}
func.func @bshd(%q: tensor<1x8x4x16xf32>, %k: tensor<1x8x2x16xf32>, %f: tensor<8xf32>) -> tensor<1x8x4x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) {sequence_dim = 1 : i64} : tensor<1x8x4x16xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<8xf32>) {sequence_dim = 1 : i64} : tensor<1x8x2x16xf32>
  %attn_init11 = tensor.empty() : tensor<1x8x4x16xf32>
  %o = pe.attention %qr, %kr, %k outs(%attn_init11 : tensor<1x8x4x16xf32>) {causal, layout = #pe<attention_layout bshd>} : tensor<1x8x4x16xf32>, tensor<1x8x2x16xf32>, tensor<1x8x2x16xf32> -> tensor<1x8x4x16xf32>
  return %o : tensor<1x8x4x16xf32>
}
