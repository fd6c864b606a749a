// Tiling through the upstream TilingInterface drivers (transform dialect,
// script in Inputs/tile_attention_bshd.mlir), then the tiled program runs
// through the reference pipeline (and, with --param pe_pipeline=cpu,
// pe-cpu-pipeline) and is compared with the float64 reference of the untiled
// op (test/Integration/lib/cases.py attn_bshd_rope_gqa).
//
// A [B, S, H, D] attention (RoPE on Q and K, causal, GQA 8/2, Tq = 40 < Tk =
// 72): the loops follow the result [B, Tq, H, Dv], so the tile sizes [1, 16,
// 4, 0] are one batch, 16 query rows (the last tile partial) and one GQA
// group of heads.
// Tolerance: rtol 1e-5, atol 2e-6 (f32 attention math on rotated logits).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/cases.py attn_bshd_rope_gqa %t
// RUN: pe-opt %s --transform-preload-library=transform-library-paths=%S/Inputs/tile_attention_bshd.mlir --transform-interpreter > %t/tiled.mlir
// RUN: FileCheck %s --check-prefix=TILED < %t/tiled.mlir
// RUN: pe-run %t/tiled.mlir -e attn_bshd_rope_gqa --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/f.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @attn_bshd_rope_gqa(%q: tensor<2x40x8x32xf32>, %k: tensor<2x72x2x32xf32>, %v: tensor<2x72x2x32xf32>, %f: tensor<16xf64>) -> tensor<2x40x8x32xf32> {
  %attn_init0 = tensor.empty() : tensor<2x40x8x32xf32>
  %0 = pe.attention %q, %k, %v rope <half, query_offset = 7> inv_freq(%f : tensor<16xf64>) outs(%attn_init0 : tensor<2x40x8x32xf32>) {causal, layout = #pe<attention_layout bshd>} : tensor<2x40x8x32xf32>, tensor<2x72x2x32xf32>, tensor<2x72x2x32xf32> -> tensor<2x40x8x32xf32>
  return %0 : tensor<2x40x8x32xf32>
}
// TILED-COUNT-3: scf.for
// TILED: pe.attention {{.*}} causal_offset({{.*}}) rope <half, query_offset = 7> inv_freq({{.*}}) query_offset({{.*}}) outs({{[^)]*}}) {causal, layout = #pe<attention_layout bshd>} : tensor<1x?x4x32xf32>, tensor<1x72x1x32xf32>, tensor<1x72x1x32xf32> -> tensor<1x?x4x32xf32>
