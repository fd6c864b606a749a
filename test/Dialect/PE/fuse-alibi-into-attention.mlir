// RUN: pe-opt %s --pe-fuse-alibi-into-attention --split-input-file | FileCheck %s
// RUN: pe-opt %s --pe-fuse-alibi-into-attention --pe-fuse-rope-into-attention --split-input-file | FileCheck %s --check-prefix=BOTH

// The ALiBi bias becomes attributes of the fused attention; no [H, Tq, Tk]
// tensor remains.
// CHECK-LABEL: func @alibi
// CHECK-NOT: pe.alibi_bias
// CHECK: pe.fused_attention %{{.*}}, %{{.*}}, %{{.*}} alibi symmetric alibi_offset(%{{.*}} : index) {alibi_max_bias = 1.600000e+01 : f64, alibi_static_offset = 2 : i64, causal}
// BOTH-LABEL: func @alibi
// BOTH: pe.fused_attention {{.*}} alibi symmetric
func.func @alibi(%q: tensor<1x12x?x64xf32>, %k: tensor<1x12x?x64xf32>, %v: tensor<1x12x?x64xf32>, %tq: index, %tk: index, %o: index) -> tensor<1x12x?x64xf32> {
  %b = pe.alibi_bias symmetric [%tq, %tk] offset(%o : index) {max_bias = 16.0 : f64, static_offset = 2 : i64} : tensor<12x?x?xf32>
  %r = pe.attention %q, %k, %v bias(%b : tensor<12x?x?xf32>) {causal} : tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32> -> tensor<1x12x?x64xf32>
  return %r : tensor<1x12x?x64xf32>
}

// -----

// With RoPE in front, ALiBi first and then RoPE fuse into one op.
// BOTH-LABEL: func @alibi_and_rope
// BOTH-NOT: pe.rope
// BOTH-NOT: pe.alibi_bias
// BOTH: pe.fused_attention %{{.*}}, %{{.*}}, %{{.*}} rope half inv_freq(%{{.*}} : tensor<8xf32>) alibi key {rope_key}
func.func @alibi_and_rope(%q: tensor<1x4x8x16xf32>, %k: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %qr = pe.rope half %q inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %kr = pe.rope half %k inv_freq(%f : tensor<8xf32>) : tensor<1x4x8x16xf32>
  %b = pe.alibi_bias key : tensor<4x8x8xf32>
  %r = pe.attention %qr, %kr, %k bias(%b : tensor<4x8x8xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r : tensor<1x4x8x16xf32>
}

// -----

// Must not fire: explicit slopes.
// CHECK-LABEL: func @slopes
// CHECK: pe.alibi_bias
// CHECK: pe.attention
func.func @slopes(%q: tensor<1x4x8x16xf32>, %s: tensor<4xf32>) -> tensor<1x4x8x16xf32> {
  %b = pe.alibi_bias signed slopes(%s : tensor<4xf32>) : tensor<4x8x8xf32>
  %r = pe.attention %q, %q, %q bias(%b : tensor<4x8x8xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r : tensor<1x4x8x16xf32>
}

// -----

// Must not fire: the bias is also returned.
// CHECK-LABEL: func @bias_used_twice
// CHECK: pe.alibi_bias
// CHECK: pe.attention
func.func @bias_used_twice(%q: tensor<1x4x8x16xf32>) -> (tensor<1x4x8x16xf32>, tensor<4x8x8xf32>) {
  %b = pe.alibi_bias signed : tensor<4x8x8xf32>
  %r = pe.attention %q, %q, %q bias(%b : tensor<4x8x8xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r, %b : tensor<1x4x8x16xf32>, tensor<4x8x8xf32>
}

// -----

// Must not fire: a bias that is not ALiBi, or ALiBi together with a mask.
// CHECK-LABEL: func @not_alibi
// CHECK-NOT: pe.fused_attention
func.func @not_alibi(%q: tensor<1x4x8x16xf32>, %b: tensor<4x8x8xf32>, %m: tensor<8x8xi1>) -> (tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>) {
  %r = pe.attention %q, %q, %q bias(%b : tensor<4x8x8xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  %a = pe.alibi_bias signed : tensor<4x8x8xf32>
  %s = pe.attention %q, %q, %q bias(%a : tensor<4x8x8xf32>) mask(%m : tensor<8x8xi1>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r, %s : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>
}
