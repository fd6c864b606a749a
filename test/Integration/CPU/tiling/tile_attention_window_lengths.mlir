// Tiling through the upstream TilingInterface drivers (transform dialect,
// script in Inputs/tile_attention_window_lengths.mlir), then the tiled program runs through the
// reference pipeline (and, with --param pe_pipeline=cpu, pe-cpu-pipeline) and
// is compared with the float64 reference of the untiled op
// (test/Integration/lib/cases.py attn_window_long).
//
// Window 70, top-left causal, valid lengths 200 and 150, GQA, tiled over\n// (batch 1, heads 2, query rows 64); the last query tile is partial (200 =\n// 3 * 64 + 8).
// Tolerance: rtol 1e-5, atol 1e-6 (f32 attention math, values in [-1, 1)).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/cases.py attn_window_long %t
// RUN: pe-opt %s --transform-preload-library=transform-library-paths=%S/Inputs/tile_attention_window_lengths.mlir --transform-interpreter > %t/tiled.mlir
// RUN: FileCheck %s --check-prefix=TILED < %t/tiled.mlir
// RUN: pe-run %t/tiled.mlir -e attn_window_long --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/lengths.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_window_long(%q: tensor<2x4x200x32xf32>, %k: tensor<2x2x200x32xf32>, %v: tensor<2x2x200x32xf32>, %lengths: tensor<2xi32>) -> tensor<2x4x200x32xf32> {
  %attn_init0 = tensor.empty() : tensor<2x4x200x32xf32>
  %0 = pe.attention %q, %k, %v kv_lengths(%lengths : tensor<2xi32>) outs(%attn_init0 : tensor<2x4x200x32xf32>) {causal, causal_alignment = #pe<causal_alignment top_left>, window = 70 : i64} : tensor<2x4x200x32xf32>, tensor<2x2x200x32xf32>, tensor<2x2x200x32xf32> -> tensor<2x4x200x32xf32>
  return %0 : tensor<2x4x200x32xf32>
}
// TILED-COUNT-3: scf.for
// TILED: pe.attention {{.*}} kv_lengths({{.*}} : tensor<1xi32>) causal_offset({{.*}}) outs({{[^)]*}}) {causal, causal_alignment = #pe<causal_alignment top_left>, window = 70 : i64}
