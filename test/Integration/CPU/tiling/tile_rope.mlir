// Tiling through the upstream TilingInterface drivers (transform dialect,
// script in Inputs/tile_rope.mlir), then the tiled program runs through the
// reference pipeline (and, with --param pe_pipeline=cpu, pe-cpu-pipeline) and
// is compared with the float64 reference of the untiled op
// (test/Integration/lib/cases.py rope_half_offset).
//
// pe.rope half at offset positions, tiled over (1, 2, 3 tokens): each token\n// tile adds its first row to the offset.
// Tolerance: rtol 1e-5, atol 1e-6 as the untiled rope test (f32 rotation of f64 angles).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/cases.py rope_half_offset %t
// RUN: pe-opt %s --transform-preload-library=transform-library-paths=%S/Inputs/tile_rope.mlir --transform-interpreter > %t/tiled.mlir
// RUN: FileCheck %s --check-prefix=TILED < %t/tiled.mlir
// RUN: pe-run %t/tiled.mlir -e rope_half_offset --input=%t/x.npy --input=%t/f.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// CHECK: npycmp: PASS

func.func @rope_half_offset(%x: tensor<2x4x?x16xf32>, %f: tensor<8xf32>, %o: index) -> tensor<2x4x?x16xf32> {
  %0 = pe.rope half %x inv_freq(%f : tensor<8xf32>) offset(%o : index) : tensor<2x4x?x16xf32>
  return %0 : tensor<2x4x?x16xf32>
}
// TILED-COUNT-3: scf.for
// TILED: pe.rope half {{.*}} offset({{.*}} : index) : tensor<1x2x?x16xf32>
