// RUN: pe-opt %s --pe-fuse-alibi-into-attention --split-input-file | FileCheck %s

// The ALiBi bias becomes the attention's alibi encoding; no [H, Tq, Tk]
// tensor remains. Its dynamic sizes could be 1 at run time (a broadcast the
// encoding does not make), so they are checked against the query and key
// lengths.
// CHECK-LABEL: func @alibi
// CHECK-SAME: (%[[Q:[^:]*]]: {{[^,]*}}, %[[K:[^:]*]]: {{[^,]*}}, %{{[^:]*}}: {{[^,]*}}, %[[TQ:[^:]*]]: index, %[[TK:[^:]*]]: index
// CHECK-NOT: pe.alibi_bias
// CHECK: %[[QT:.*]] = tensor.dim %[[Q]], %[[C2:.*]] :
// CHECK: %[[OKQ:.*]] = arith.cmpi eq, %[[TQ]], %[[QT]]
// CHECK: cf.assert %[[OKQ]], "{{.*}}fuse-alibi-into-attention.mlir:{{[0-9]+}}:{{[0-9]+}}: 'pe.attention' op has a fused pe.alibi_bias, which must have one row per query (it may not broadcast over the queries)"
// CHECK: %[[KT:.*]] = tensor.dim %[[K]], %[[C2]] :
// CHECK: %[[OKK:.*]] = arith.cmpi eq, %[[TK]], %[[KT]]
// CHECK: cf.assert %[[OKK]], "{{.*}}: 'pe.attention' op has a fused pe.alibi_bias, which must have one column per key (it may not broadcast over the keys)"
// CHECK-NOT: pe.alibi_bias
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} alibi <symmetric, max_bias = 1.600000e+01, query_offset = 2> alibi_offset(%{{.*}} : index) outs({{[^)]*}}) {causal}
func.func @alibi(%q: tensor<1x12x?x64xf32>, %k: tensor<1x12x?x64xf32>, %v: tensor<1x12x?x64xf32>, %tq: index, %tk: index, %o: index) -> tensor<1x12x?x64xf32> {
  %b = pe.alibi_bias symmetric [%tq, %tk] offset(%o : index) {max_bias = 16.0 : f64, static_offset = 2 : i64} : tensor<12x?x?xf32>
  %attn_c2_0 = arith.constant 2 : index
  %attn_d0_2_0 = tensor.dim %q, %attn_c2_0 : tensor<1x12x?x64xf32>
  %attn_init0 = tensor.empty(%attn_d0_2_0) : tensor<1x12x?x64xf32>
  %r = pe.attention %q, %k, %v bias(%b : tensor<12x?x?xf32>) outs(%attn_init0 : tensor<1x12x?x64xf32>) {causal} : tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32>, tensor<1x12x?x64xf32> -> tensor<1x12x?x64xf32>
  return %r : tensor<1x12x?x64xf32>
}

// -----

// A mask stays: BLOOM's ALiBi with a padding mask. Static sizes need no
// check.
// CHECK-LABEL: func @alibi_and_mask
// CHECK-NOT: pe.alibi_bias
// CHECK-NOT: cf.assert
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} alibi <key> mask(%{{.*}} : tensor<1x1x8x8xi1>) outs({{[^)]*}}) {causal}
func.func @alibi_and_mask(%q: tensor<1x4x8x16xf32>, %m: tensor<1x1x8x8xi1>) -> tensor<1x4x8x16xf32> {
  %b = pe.alibi_bias key : tensor<4x8x8xf32>
  %attn_init1 = tensor.empty() : tensor<1x4x8x16xf32>
  %r = pe.attention %q, %q, %q bias(%b : tensor<4x8x8xf32>) mask(%m : tensor<1x1x8x8xi1>) outs(%attn_init1 : tensor<1x4x8x16xf32>) {causal} : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r : tensor<1x4x8x16xf32>
}

// -----

// An attention that already rotates gains the ALiBi.
// CHECK-LABEL: func @onto_rope
// CHECK: pe.attention %{{.*}}, %{{.*}}, %{{.*}} rope <half> inv_freq(%{{.*}} : tensor<8xf32>) alibi <signed> outs({{[^)]*}}) :
func.func @onto_rope(%q: tensor<1x4x8x16xf32>, %f: tensor<8xf32>) -> tensor<1x4x8x16xf32> {
  %b = pe.alibi_bias signed : tensor<4x8x8xf32>
  %attn_init2 = tensor.empty() : tensor<1x4x8x16xf32>
  %r = pe.attention %q, %q, %q rope <half> inv_freq(%f : tensor<8xf32>) bias(%b : tensor<4x8x8xf32>) outs(%attn_init2 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r : tensor<1x4x8x16xf32>
}

// -----

// Explicit slopes move with the bias.
// CHECK-LABEL: func @slopes
// CHECK-SAME: %[[S:[a-z0-9]+]]: tensor<4xf32>
// CHECK-NOT: pe.alibi_bias
// CHECK: pe.attention {{.*}} alibi <signed> alibi_slopes(%[[S]] : tensor<4xf32>) outs({{[^)]*}}) :
func.func @slopes(%q: tensor<1x4x8x16xf32>, %s: tensor<4xf32>) -> tensor<1x4x8x16xf32> {
  %b = pe.alibi_bias signed slopes(%s : tensor<4xf32>) : tensor<4x8x8xf32>
  %attn_init3 = tensor.empty() : tensor<1x4x8x16xf32>
  %r = pe.attention %q, %q, %q bias(%b : tensor<4x8x8xf32>) outs(%attn_init3 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r : tensor<1x4x8x16xf32>
}

// -----

// Must not fire (fusion-remarks.mlir checks the remark): the bias is also
// returned.
// CHECK-LABEL: func @bias_used_twice
// CHECK: pe.alibi_bias
// CHECK: pe.attention {{.*}} bias(
func.func @bias_used_twice(%q: tensor<1x4x8x16xf32>) -> (tensor<1x4x8x16xf32>, tensor<4x8x8xf32>) {
  %b = pe.alibi_bias signed : tensor<4x8x8xf32>
  %attn_init4 = tensor.empty() : tensor<1x4x8x16xf32>
  %r = pe.attention %q, %q, %q bias(%b : tensor<4x8x8xf32>) outs(%attn_init4 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r, %b : tensor<1x4x8x16xf32>, tensor<4x8x8xf32>
}

// -----

// Must not fire: a bias that is not ALiBi.
// CHECK-LABEL: func @not_alibi
// CHECK-NOT: alibi
func.func @not_alibi(%q: tensor<1x4x8x16xf32>, %b: tensor<4x8x8xf32>) -> tensor<1x4x8x16xf32> {
  %attn_init5 = tensor.empty() : tensor<1x4x8x16xf32>
  %r = pe.attention %q, %q, %q bias(%b : tensor<4x8x8xf32>) outs(%attn_init5 : tensor<1x4x8x16xf32>) : tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32>, tensor<1x4x8x16xf32> -> tensor<1x4x8x16xf32>
  return %r : tensor<1x4x8x16xf32>
}
