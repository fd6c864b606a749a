// Tiling through the upstream TilingInterface drivers (transform dialect,
// script in Inputs/tile_attention_rope_alibi.mlir), then the tiled program runs through the
// reference pipeline (and, with --param pe_pipeline=cpu, pe-cpu-pipeline) and
// is compared with the float64 reference of the untiled op
// (test/Integration/lib/cases.py tiled_rope_alibi_attention).
//
// RoPE (f64 table, query offset 5, key offset 3) and ALiBi (query offset 2) in\n// one causal GQA attention, tiled over (batch 1, heads 4 = one KV group, query rows 16) by\n// tile_using_forall: each tile carries its query offset, ALiBi offset, slope\n// slice and causal offset.
// Tolerance: rtol 1e-5, atol 2e-6: f32 attention math with rotated logits and biases up to 2^-1 * 47.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/cases.py tiled_rope_alibi_attention %t
// RUN: pe-opt %s --transform-preload-library=transform-library-paths=%S/Inputs/tile_attention_rope_alibi.mlir --transform-interpreter > %t/tiled.mlir
// RUN: FileCheck %s --check-prefix=TILED < %t/tiled.mlir
// RUN: pe-run %t/tiled.mlir -e tiled_rope_alibi_attention --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/f.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @tiled_rope_alibi_attention(%q: tensor<1x8x48x16xf32>, %k: tensor<1x2x48x16xf32>, %v: tensor<1x2x48x16xf32>, %f: tensor<8xf64>) -> tensor<1x8x48x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x8x48x16xf32>
  %0 = pe.attention %q, %k, %v rope <half, query_offset = 5, key_offset = 3> inv_freq(%f : tensor<8xf64>) alibi <symmetric, query_offset = 2> outs(%attn_init0 : tensor<1x8x48x16xf32>) {causal} : tensor<1x8x48x16xf32>, tensor<1x2x48x16xf32>, tensor<1x2x48x16xf32> -> tensor<1x8x48x16xf32>
  return %0 : tensor<1x8x48x16xf32>
}
// TILED: scf.forall
// TILED: pe.attention {{.*}} causal_offset({{.*}}) rope <half, query_offset = 5, key_offset = 3> {{.*}} query_offset({{.*}}) alibi <symmetric, query_offset = 2> alibi_offset({{.*}}) alibi_slopes({{.*}} : tensor<4xf64>) outs({{[^)]*}}) {causal} : tensor<1x4x16x16xf32>, tensor<1x1x48x16xf32>
