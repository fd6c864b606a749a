// Key tiling as a reduction (script in Inputs/tile_attention_keys.mlir):
// transform.structured.tile_reduction_using_for splits the keys of one
// attention into tiles of 16 (Tk = 45: tiles of 16, 16 and 13), each tile a
// pe.attention with an lse result that a running (output, log-sum-exp) state
// absorbs; the tiled program runs through the reference pipeline (and, with
// --param pe_pipeline=cpu/vulkan, those pipelines) and is compared with the
// float64 reference of the untiled op (test/Integration/lib/cases.py
// key_tiled_attention).
//
// RoPE on Q and K (f64 table, static query offset 5, key offset 3: tile j0
// rotates its keys at 3 + j0 + j), symmetric ALiBi (query offset 2: the tile
// measures from its first key, offset 2 - j0), top-left causal with
// causal_offset 30 (30 - j0 in the tile), GQA 8/2, kv_lengths 45 and 13
// (max(L, 0) - j0 in the tile: batch 1 has no valid key in the last two
// tiles, whose log-sum-exp -inf adds nothing).
// Tolerance: rtol 1e-5, atol 2e-6: f32 attention math, three tiles merged
// through exp/log1p of f32 log-sum-exps.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/cases.py key_tiled_attention %t
// RUN: pe-opt %s --transform-preload-library=transform-library-paths=%S/Inputs/tile_attention_keys.mlir --transform-interpreter > %t/tiled.mlir
// RUN: FileCheck %s --check-prefix=TILED < %t/tiled.mlir
// RUN: pe-run %t/tiled.mlir -e key_tiled_attention --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/f.npy --input=%t/lengths.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @key_tiled_attention(%q: tensor<2x8x12x16xf32>, %k: tensor<2x2x45x16xf32>, %v: tensor<2x2x45x16xf32>, %f: tensor<8xf64>, %lengths: tensor<2xi32>) -> tensor<2x8x12x16xf32> {
  %c30 = arith.constant 30 : index
  %attn_init0 = tensor.empty() : tensor<2x8x12x16xf32>
  %0 = pe.attention %q, %k, %v kv_lengths(%lengths : tensor<2xi32>) causal_offset(%c30 : index) rope <half, query_offset = 5, key_offset = 3> inv_freq(%f : tensor<8xf64>) alibi <symmetric, query_offset = 2> outs(%attn_init0 : tensor<2x8x12x16xf32>) {causal, causal_alignment = #pe<causal_alignment top_left>} : tensor<2x8x12x16xf32>, tensor<2x2x45x16xf32>, tensor<2x2x45x16xf32> -> tensor<2x8x12x16xf32>
  return %0 : tensor<2x8x12x16xf32>
}
// TILED: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
// TILED: linalg.generic
// TILED: arith.subi
// TILED: pe.attention {{.*}} kv_lengths({{.*}} : tensor<2xi32>) causal_offset({{.*}}) rope <half, query_offset = 5, key_offset = 3> inv_freq({{.*}}) key_offset(%[[J]] : index) alibi <symmetric, query_offset = 2> alibi_offset({{.*}}) outs({{[^)]*}}) {causal, causal_alignment = #pe<causal_alignment top_left>} : tensor<2x8x12x16xf32>, tensor<2x2x?x16xf32>, tensor<2x2x?x16xf32> -> tensor<2x8x12x16xf32>, tensor<2x8x12xf32>
