// RUN: pe-opt %s --pe-fold-frequencies --pe-fold-attention-scaling --split-input-file | FileCheck %s

// YaRN factor 4: m = 0.1 ln 4 + 1 = 1.1386294361, an f32 constant
// 1.13862943649 once folded; with Q and K rotated the logits scale by m^2 and
// the default scale 1/sqrt(16) = 0.25 becomes 0.25 * 1.13862943649^2 =
// 0.32411924841.
// CHECK-LABEL: func @yarn_qk
// CHECK-NOT: attention_scaling
// CHECK: pe.attention {{.*}}scale = 0.32411924{{[0-9]*}} : f64
func.func @yarn_qk(%q: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 64 : i64} : tensor<8xf32>
  %attn_init0 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %q, %q, %q rope <half> inv_freq(%f : tensor<8xf32>) attention_scaling(%m) outs(%attn_init0 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Only Q rotated (decode over a rotated cache): the logits scale by m once;
// an explicit scale 0.5 becomes 0.5 * 1.13862943649 = 0.569314718.
// CHECK-LABEL: func @yarn_q_only
// CHECK: pe.attention {{.*}}scale = 0.56931471{{[0-9]*}} : f64
func.func @yarn_q_only(%q: tensor<1x4x1x16xf32>, %k: tensor<1x4x8x16xf32>) -> tensor<1x4x1x16xf32> {
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 64 : i64} : tensor<8xf32>
  %attn_init1 = tensor.empty() : tensor<1x4x1x16xf32>
  %o = pe.attention %q, %k, %k rope <half, query_only> inv_freq(%f : tensor<8xf32>) attention_scaling(%m) outs(%attn_init1 : tensor<1x4x1x16xf32>) {scale = 0.5 : f64} : tensor<1x4x1x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x1x16xf32>
  return %o : tensor<1x4x1x16xf32>
}

// -----

// Must not fire: partial rotary (channels 8..15 are not scaled).
// CHECK-LABEL: func @partial
// CHECK: attention_scaling
func.func @partial(%q: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 64 : i64} : tensor<4xf32>
  %attn_init2 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %q, %q, %q rope <half, rotary_dim = 8> inv_freq(%f : tensor<4xf32>) attention_scaling(%m) outs(%attn_init2 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Must not fire: a run-time scaling.
// CHECK-LABEL: func @runtime
// CHECK: attention_scaling(%{{.*}})
func.func @runtime(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>, %m: f32) -> tensor<1x4x8x16xf32> {
  %attn_init3 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %q, %q, %q rope <half> inv_freq(%f : tensor<8xf32>) attention_scaling(%m) outs(%attn_init3 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Must not fire: no rope encoding (the unfused form keeps its pe.rope ops).
// CHECK-LABEL: func @unfused
// CHECK: pe.rope {{.*}}attention_scaling
// CHECK: pe.attention %{{[a-z0-9]+}}, %{{[a-z0-9]+}}, %{{[a-z0-9]+}} outs({{[^)]*}}) :
func.func @unfused(%q: tensor<1x4x8x16xf32>) -> tensor<1x4x8x16xf32> {
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 64 : i64} : tensor<8xf32>
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) attention_scaling(%m) : tensor<1x4x8x16xf32>
  %attn_init4 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %qr, %q, %q outs(%attn_init4 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// Must not fire: a constant attention scaling of 0 (or NaN, below) would
// give a scale of 0 (NaN), which the attention verifier rejects; the op
// keeps its attention_scaling operand and stays valid (issue 11).
// CHECK-LABEL: func @zero_scaling
// CHECK: pe.attention {{.*}}attention_scaling(%{{.*}})
// CHECK-NOT: scale =
func.func @zero_scaling(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %m = arith.constant 0.0 : f32
  %attn_init5 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %q, %q, %q rope <half> inv_freq(%f : tensor<8xf32>) attention_scaling(%m) outs(%attn_init5 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// CHECK-LABEL: func @nan_scaling
// CHECK: pe.attention {{.*}}attention_scaling(%{{.*}})
// CHECK-NOT: scale =
func.func @nan_scaling(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %m = arith.constant 0x7FC00000 : f32
  %attn_init6 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %q, %q, %q rope <half> inv_freq(%f : tensor<8xf32>) attention_scaling(%m) outs(%attn_init6 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}

// -----

// A scaling so large that the folded scale overflows to infinity.
// CHECK-LABEL: func @inf_scale
// CHECK: pe.attention {{.*}}attention_scaling(%{{.*}}) outs({{[^)]*}}) {scale = 1.000000e+300 : f64}
func.func @inf_scale(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %m = arith.constant 3.0e+38 : f32
  %attn_init7 = tensor.empty() : tensor<1x4x8x16xf32>
  %o = pe.attention %q, %q, %q rope <half> inv_freq(%f : tensor<8xf32>) attention_scaling(%m) outs(%attn_init7 : tensor<1x4x8x16xf32>) {scale = 1.0e+300 : f64} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %o : tensor<1x4x8x16xf32>
}
