// Tiling through the upstream TilingInterface drivers (transform dialect,
// script in Inputs/tile_learned.mlir), then the tiled program runs through the
// reference pipeline (and, with --param pe_pipeline=cpu, pe-cpu-pipeline) and
// is compared with the float64 reference of the untiled op
// (test/Integration/lib/cases.py learned_offset).
//
// pe.add_learned at offset positions, tiled over (batch 1, 4 tokens) by\n// tile_using_forall.
// Tolerance: rtol 1.2e-7, atol 0 (one rounding of an f32 sum), as untiled.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/cases.py learned_offset %t
// RUN: pe-opt %s --transform-preload-library=transform-library-paths=%S/Inputs/tile_learned.mlir --transform-interpreter > %t/tiled.mlir
// RUN: FileCheck %s --check-prefix=TILED < %t/tiled.mlir
// RUN: pe-run %t/tiled.mlir -e learned_offset --input=%t/x.npy --input=%t/table.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1.2e-7 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @learned_offset(%x: tensor<2x?x8xf32>, %t: tensor<32x8xf32>, %o: index) -> tensor<2x?x8xf32> {
  %0 = pe.add_learned %x, %t offset(%o : index) : tensor<2x?x8xf32>, tensor<32x8xf32>
  return %0 : tensor<2x?x8xf32>
}
// TILED: scf.forall
// TILED: pe.add_learned {{.*}} offset({{.*}} : index) : tensor<1x?x8xf32>, tensor<32x8xf32>
