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
// CHECK: %[[O:.*]] = linalg.generic {indexing_maps = [#[[QMAP]], #[[VMAP]], #{{.*}}], {{.*}} ins(%[[P]], %[[V]] :
// CHECK: linalg.generic {{.*}} ins(%[[O]], %[[SUM]] :
// CHECK: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @gqa_all_features(%q: tensor<1x8x?x16xf16>, %k: tensor<1x2x?x16xf16>, %v: tensor<1x2x?x16xf16>,
                            %b: tensor<8x?x?xf32>, %m: tensor<1x1x?x?xi1>) -> tensor<1x8x?x16xf16> {
  %0 = pe.attention %q, %k, %v bias(%b : tensor<8x?x?xf32>) mask(%m : tensor<1x1x?x?xi1>)
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
  %0 = pe.attention %q, %q, %q bias(%b : tensor<4x4xf32>) {softcap = 20.0 : f64} : tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32>, tensor<1x1x4x8xf32> -> tensor<1x1x4x8xf32>
  return %0 : tensor<1x1x4x8xf32>
}

// -----

// Dynamic head counts cannot be lowered: the pass fails with a diagnostic.
func.func @dynamic_heads(%q: tensor<1x?x4x8xf32>) -> tensor<1x?x4x8xf32> {
  // expected-error@+1 {{lowering needs static head counts}}
  %0 = pe.attention %q, %q, %q : tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32>, tensor<1x?x4x8xf32> -> tensor<1x?x4x8xf32>
  return %0 : tensor<1x?x4x8xf32>
}
