// Key tiling as a reduction (script in
// Inputs/tile_attention_keys_bottom_right.mlir) of a bottom-right causal
// attention with kv_lengths, whose causal offset L[b] - Tq differs per batch:
// the batch loop is tiled by 1 first (tile_using_for), then the keys by 8
// (Tk = 37: four tiles of 8 and one of 5). Each key tile is a top-left
// attention with causal offset clamp(L[b], 0, Tk) - Tq - j0 and valid length
// max(L[b], 0) - j0; the key-distance ALiBi (BLOOM) tile has its
// log-sum-exp shifted back by m_h * j0 before the merge. Compared with the
// float64 reference of the untiled op (test/Integration/lib/cases.py
// key_tiled_bottom_right), result and lse; batch 0 (L = 0) has no valid key
// (0 and -inf).
// Tolerance: rtol 1e-5, atol 2e-6 (f32 attention math over five merged
// tiles; the lse up to 7.2).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/cases.py key_tiled_bottom_right %t
// RUN: pe-opt %s --transform-preload-library=transform-library-paths=%S/Inputs/tile_attention_keys_bottom_right.mlir --transform-interpreter > %t/tiled.mlir
// RUN: FileCheck %s --check-prefix=TILED < %t/tiled.mlir
// RUN: pe-run %t/tiled.mlir -e key_tiled_bottom_right --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/lengths.npy --output=%t/out.npy --output=%t/lse.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// RUN: %npycmp %t/lse.npy %t/expected_lse.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @key_tiled_bottom_right(%q: tensor<2x4x6x16xf32>, %k: tensor<2x4x37x16xf32>, %v: tensor<2x4x37x8xf32>, %lengths: tensor<2xi64>) -> (tensor<2x4x6x8xf32>, tensor<2x4x6xf32>) {
  %attn_init0 = tensor.empty() : tensor<2x4x6x8xf32>
  %attn_lse_init0 = tensor.empty() : tensor<2x4x6xf32>
  %0, %1 = pe.attention %q, %k, %v kv_lengths(%lengths : tensor<2xi64>) alibi <key> outs(%attn_init0, %attn_lse_init0 : tensor<2x4x6x8xf32>, tensor<2x4x6xf32>) {causal, window = 5 : i64} : tensor<2x4x6x16xf32>, tensor<2x4x37x16xf32>, tensor<2x4x37x8xf32> -> tensor<2x4x6x8xf32>, tensor<2x4x6xf32>
  return %0, %1 : tensor<2x4x6x8xf32>, tensor<2x4x6xf32>
}
// TILED: scf.for
// TILED: scf.for
// TILED: tensor.extract
// TILED: pe.attention {{.*}} kv_lengths({{.*}} : tensor<1xi64>) causal_offset({{.*}} : index) alibi <key> outs({{[^)]*}}) {causal, causal_alignment = #pe<causal_alignment top_left>, window = 5 : i64} : tensor<1x4x6x16xf32>, tensor<1x4x?x16xf32>, tensor<1x4x?x8xf32> -> tensor<1x4x6x8xf32>, tensor<1x4x6xf32>
