// Head tiles, then key tiles (script in
// Inputs/tile_attention_keys_bshd_heads.mlir) of a bshd attention: loops
// (b, s, h, e, keys); heads by 4 (one GQA group of 4 per tile, the tile's
// slice of the explicit f32 slope table), then keys by 8 (Tk = 29: three
// tiles of 8 and one of 5). The key-distance ALiBi tile's log-sum-exp gets
// m_h * j0 back from the sliced slopes; the [Tq, Tk] mask is sliced along
// the keys; row 3 is masked everywhere (0). Compared with the float64
// reference of the untiled op (test/Integration/lib/cases.py
// key_tiled_bshd_heads).
// Tolerance: rtol 1e-5, atol 2e-6 (f32 attention math over four merged
// tiles).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/cases.py key_tiled_bshd_heads %t
// RUN: pe-opt %s --transform-preload-library=transform-library-paths=%S/Inputs/tile_attention_keys_bshd_heads.mlir --transform-interpreter > %t/tiled.mlir
// RUN: FileCheck %s --check-prefix=TILED < %t/tiled.mlir
// RUN: pe-run %t/tiled.mlir -e key_tiled_bshd_heads --input=%t/q.npy --input=%t/k.npy --input=%t/v.npy --input=%t/s.npy --input=%t/mask.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 2e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @key_tiled_bshd_heads(%q: tensor<1x10x8x16xf32>, %k: tensor<1x29x2x16xf32>, %v: tensor<1x29x2x16xf32>, %s: tensor<8xf32>, %m: tensor<10x29xi1>) -> tensor<1x10x8x16xf32> {
  %attn_init0 = tensor.empty() : tensor<1x10x8x16xf32>
  %0 = pe.attention %q, %k, %v alibi <key> alibi_slopes(%s : tensor<8xf32>) mask(%m : tensor<10x29xi1>) outs(%attn_init0 : tensor<1x10x8x16xf32>) {layout = #pe<attention_layout bshd>, softcap = 20.0 : f64} : tensor<1x10x8x16xf32>, tensor<1x29x2x16xf32>, tensor<1x29x2x16xf32> -> tensor<1x10x8x16xf32>
  return %0 : tensor<1x10x8x16xf32>
}
// TILED: scf.for
// TILED: scf.for
// TILED: pe.attention {{.*}} alibi <key> alibi_slopes({{.*}} : tensor<4xf32>) mask({{.*}} : tensor<10x?xi1>) outs({{[^)]*}}) {layout = #pe<attention_layout bshd>, softcap = 2.000000e+01 : f64} : tensor<1x10x4x16xf32>, tensor<1x?x1x16xf32>, tensor<1x?x1x16xf32> -> tensor<1x10x4x16xf32>, tensor<1x4x10xf32>
// TILED: arith.extf {{.*}} : f32 to f64
