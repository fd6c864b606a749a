// RUN: pe-opt %s --convert-pe-to-linalg --split-input-file --verify-diagnostics | FileCheck %s

// pe.attention becomes the unfused composition: scores, then scale, softcap,
// bias and masks, then a max-subtracted softmax (0 for fully masked rows) and
// the weighted sum of values. GQA reads KV head h floordiv (H / Hkv).

// CHECK-DAG: #[[QMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[KMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 4, d3, d4)>
// CHECK-DAG: #[[VMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 floordiv 4, d4, d3)>
// CHECK-DAG: #[[BIAS:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d2, d3)>
// CHECK-DAG: #[[MASK:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, 0, d2, d3)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func @gqa_all_features
// CHECK-SAME: (%[[Q:.*]]: tensor<1x8x?x16xf16>, %[[K:.*]]: tensor<1x2x?x16xf16>, %[[V:.*]]: tensor<1x2x?x16xf16>, %[[B:.*]]: tensor<8x?x?xf32>, %[[M:.*]]: tensor<1x1x?x?xi1>)
// Scores, reduction over d, in f32:
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [#[[QMAP]], #[[KMAP]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[Q]], %[[K]] :
// CHECK: arith.extf {{.*}} : f16 to f32
// CHECK: %[[SHIFT:.*]] = arith.subi %[[TK:.*]], %[[TQ:.*]] : index
// Elementwise: scale 0.25 = 1/sqrt(16), softcap after the bias, masks.
// CHECK: %[[SM:.*]] = linalg.generic {indexing_maps = [#{{.*}}, #[[BIAS]], #[[MASK]], #{{.*}}], {{.*}} ins(%[[S]], %[[B]], %[[M]] :
// CHECK: ^bb0(%[[SIN:.*]]: f32, %[[BIN:.*]]: f32, %[[MIN:.*]]: i1, %{{.*}}: f32):
// CHECK: %[[SC:.*]] = arith.mulf %[[SIN]], %{{.*}} : f32
// CHECK: %[[SB:.*]] = arith.addf %[[SC]], %[[BIN]] : f32
// CHECK: %[[T:.*]] = math.tanh
// CHECK: %[[CAP:.*]] = arith.mulf %{{.*}}, %[[T]] : f32
// CHECK: %[[I:.*]] = linalg.index 2
// CHECK: %[[J:.*]] = linalg.index 3
// CHECK: %[[LIM:.*]] = arith.addi %[[I]], %[[SHIFT]]
// CHECK: %[[OK:.*]] = arith.cmpi sle, %[[J]], %[[LIM]]
// CHECK: %[[ALLOWED:.*]] = arith.andi %[[MIN]], %[[OK]]
// CHECK: arith.select %[[ALLOWED]], %[[CAP]], %{{.*}} : f32
// Row max, exp with the empty-row guard, row sum, P V, normalize:
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[SM]] :
// CHECK: arith.maximumf
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%[[SM]], %[[MAX]] :
// CHECK: arith.cmpf oeq
// CHECK: math.exp
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} ins(%[[P]] :
// P V over the keys each row sees: a masked (-inf) score adds nothing.
// CHECK: %[[O:.*]] = linalg.generic {indexing_maps = [#[[QMAP]], #[[QMAP]], #[[VMAP]], #{{.*}}], {{.*}} ins(%[[P]], %[[SM]], %[[V]] :
// CHECK: %[[PV:.*]] = arith.mulf
// CHECK: %[[UNSEEN:.*]] = arith.cmpf oeq, %{{.*}}, %{{.*}} : f32
// CHECK: %[[ACC:.*]] = arith.addf %[[OUT:.*]], %[[PV]]
// CHECK: arith.select %[[UNSEEN]], %[[OUT]], %[[ACC]]
// CHECK: linalg.generic {{.*}} ins(%[[O]], %[[SUM]] :
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @gqa_all_features(%q: tensor<1x8x?x16xf16>, %k: tensor<1x2x?x16xf16>, %v: tensor<1x2x?x16xf16>,
                            %b: tensor<8x?x?xf32>, %m: tensor<1x1x?x?xi1>) -> tensor<1x8x?x16xf16> {
  %attn_c2_0 = arith.constant 2 : index
  %attn_d0_2_0 = tensor.dim %q, %attn_c2_0 : tensor<1x8x?x16xf16>
  %attn_init0 = tensor.empty(%attn_d0_2_0) : tensor<1x8x?x16xf16>
  %0 = pe.attention %q, %k, %v bias(%b : tensor<8x?x?xf32>) mask(%m : tensor<1x1x?x?xi1>)
      outs(%attn_init0 : tensor<1x8x?x16xf16>)
      {causal, softcap = 20.0 : f64, softcap_order = #pe<softcap_order after_bias>}
         : tensor<1x8x?x16xf16>, tensor<1x2x?x16xf16>, tensor<1x2x?x16xf16> -> tensor<1x8x?x16xf16>
  return %0 : tensor<1x8x?x16xf16>
}

// -----

// Plain MHA without masks: no select in the score epilogue, and the default
// softcap order caps before the bias.
// CHECK-LABEL: func @plain
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>)
// CHECK: ^bb0(%[[SIN:.*]]: f32, %[[BIN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[SC:.*]] = arith.mulf %[[SIN]], %{{.*}} : f32
// CHECK: math.tanh
// CHECK: %[[CAP:.*]] = arith.mulf
// CHECK: %[[SB:.*]] = arith.addf %[[CAP]], %[[BIN]] : f32
// CHECK-NEXT: linalg.yield %[[SB]]
func.func @plain(%q: tensor<1x1x4x8xf32>, %b: tensor<4x4xf32>) -> tensor<1x1x4x8xf32> {
  %attn_init1 = tensor.empty() : tensor<1x1x4x8xf32>
  %0 = pe.attention %q, %q, %q bias(%b : tensor<4x4xf32>) outs(%attn_init1 : tensor<1x1x4x8xf32>) {softcap = 20.0 : f64} : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}

// -----

// Dynamic head counts cannot be lowered: the pass fails with a diagnostic.
func.func @dynamic_heads(%q: tensor<1x?x4x8xf32>) -> tensor<1x?x4x8xf32> {
  %attn_c1_2 = arith.constant 1 : index
  %attn_d0_1_2 = tensor.dim %q, %attn_c1_2 : tensor<1x?x4x8xf32>
  %attn_init2 = tensor.empty(%attn_d0_1_2) : tensor<1x?x4x8xf32>
  // expected-error@+1 {{lowering needs static head counts}}
  %0 = pe.attention %q, %q, %q outs(%attn_init2 : tensor<1x?x4x8xf32>) : tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32> -> tensor<1x?x4x8xf32>
  return %0 : tensor<1x?x4x8xf32>
}

// -----

// Masks from indices: valid KV lengths per batch (a [B] input clamped to
// [0, Tk]), bottom-right causal against each batch's own length, and a
// sliding window of 4 keys: j < L, j <= i + L - Tq, j > i + L - Tq - 4.
// CHECK-DAG: #[[LEN:.*]] = affine_map<(d0, d1, d2, d3) -> (d0)>
// CHECK-LABEL: func @index_masks
// CHECK-SAME: %[[L:[a-z0-9]+]]: tensor<2xi32>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[LEN]], #{{.*}}], {{.*}} ins(%{{.*}}, %[[L]] :
// CHECK: ^bb0(%{{.*}}: f32, %[[LI:.*]]: i32, %{{.*}}: f32):
// CHECK: %[[I:.*]] = linalg.index 2
// CHECK: %[[J:.*]] = linalg.index 3
// The clamp is in 64 bits, before the cast to index (no narrowing first):
// CHECK: %[[LX:.*]] = arith.extsi %[[LI]] : i32 to i64
// CHECK: %[[TK:.*]] = arith.index_cast %{{.*}} : index to i64
// CHECK: %[[LP:.*]] = arith.maxsi %[[LX]], %{{.*}} : i64
// CHECK: %[[LC64:.*]] = arith.minsi %[[LP]], %[[TK]] : i64
// CHECK: %[[LC:.*]] = arith.index_cast %[[LC64]] : i64 to index
// CHECK: %[[O:.*]] = arith.subi %[[LC]], %{{.*}} : index
// CHECK: %[[LIM:.*]] = arith.addi %[[I]], %[[O]]
// CHECK: %[[INLEN:.*]] = arith.cmpi slt, %[[J]], %[[LC]]
// CHECK: arith.cmpi sle, %[[J]], %[[LIM]]
// CHECK: %[[LOW:.*]] = arith.subi %[[LIM]], %{{.*}} : index
// CHECK: arith.cmpi sgt, %[[J]], %[[LOW]]
func.func @index_masks(%q: tensor<2x2x8x16xf32>, %l: tensor<2xi32>) -> tensor<2x2x8x16xf32> {
  %attn_init3 = tensor.empty() : tensor<2x2x8x16xf32>
  %o = pe.attention %q, %q, %q kv_lengths(%l : tensor<2xi32>) outs(%attn_init3 : tensor<2x2x8x16xf32>) {causal, window = 4 : i64} : tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32>, tensor<2x2x8x16xf32> -> tensor<2x2x8x16xf32>
  return %o : tensor<2x2x8x16xf32>
}

// -----

// Top-left causal: o = 0 + causal_offset; bottom-right adds the offset to
// Tk - Tq (computed once, outside the generic).
// CHECK-LABEL: func @alignments
// CHECK-SAME: %[[OFF:[a-z0-9]+]]: index
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: linalg.index 2
// CHECK: %[[LIM0:.*]] = arith.addi %{{.*}}, %[[ZERO]]
// CHECK: arith.cmpi sle, %{{.*}}, %[[LIM0]]
// CHECK: %[[BASE:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK: %[[O:.*]] = arith.addi %[[BASE]], %[[OFF]] : index
// CHECK: linalg.index 2
// CHECK: %[[LIM1:.*]] = arith.addi %{{.*}}, %[[O]]
// CHECK: arith.cmpi sle, %{{.*}}, %[[LIM1]]
func.func @alignments(%q: tensor<1x2x8x16xf32>, %k: tensor<1x2x?x16xf32>, %off: index) -> (tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>) {
  %attn_init4 = tensor.empty() : tensor<1x2x8x16xf32>
  %0 = pe.attention %q, %q, %q outs(%attn_init4 : tensor<1x2x8x16xf32>) {causal, causal_alignment = #pe<causal_alignment top_left>} : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>
  %attn_init5 = tensor.empty() : tensor<1x2x8x16xf32>
  %1 = pe.attention %q, %k, %k causal_offset(%off : index) outs(%attn_init5 : tensor<1x2x8x16xf32>) {causal} : tensor<1x2x8x16xf32>, tensor<1x2x?x16xf32>, tensor<1x2x?x16xf32> -> tensor<1x2x8x16xf32>
  return %0, %1 : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>
}

// -----

// The lse result: the row max plus the log of the row sum (-inf + log 0 =
// -inf for an empty row).
// CHECK-LABEL: func @lse
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "reduction"]
// CHECK: %[[LSE:.*]] = linalg.generic {{.*}} ins(%[[MAX]], %[[SUM]] : tensor<1x2x8xf32>, tensor<1x2x8xf32>)
// CHECK: math.log
// CHECK: arith.addf
// CHECK: return %{{.*}}, %[[LSE]]
func.func @lse(%q: tensor<1x2x8x16xf32>) -> (tensor<1x2x8x16xf32>, tensor<1x2x8xf32>) {
  %attn_init6 = tensor.empty() : tensor<1x2x8x16xf32>
  %attn_lse_init6 = tensor.empty() : tensor<1x2x8xf32>
  %o, %l = pe.attention %q, %q, %q outs(%attn_init6, %attn_lse_init6 : tensor<1x2x8x16xf32>, tensor<1x2x8xf32>) {causal} : tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32>, tensor<1x2x8x16xf32> -> tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
  return %o, %l : tensor<1x2x8x16xf32>, tensor<1x2x8xf32>
}
