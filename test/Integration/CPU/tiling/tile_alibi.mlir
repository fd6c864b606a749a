// Tiling through the upstream TilingInterface drivers (transform dialect,
// script in Inputs/tile_alibi.mlir), then the tiled program runs through the
// reference pipeline (and, with --param pe_pipeline=cpu, pe-cpu-pipeline) and
// is compared with the float64 reference of the untiled op
// (test/Integration/lib/cases.py alibi_h40_key).
//
// pe.alibi_bias with 40 heads (paper slopes for a non-power of two) and the\n// key distance, tiled over (8 heads, 2 query rows): each tile takes its\n// slice of the 40-head slope table and shifts its query offset.
// Tolerance: rtol 2.4e-7, atol 0 (slope times an integer distance, rounded
// once to f32), as the untiled test.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/cases.py alibi_h40_key %t
// RUN: pe-opt %s --transform-preload-library=transform-library-paths=%S/Inputs/tile_alibi.mlir --transform-interpreter > %t/tiled.mlir
// RUN: FileCheck %s --check-prefix=TILED < %t/tiled.mlir
// RUN: pe-run %t/tiled.mlir -e alibi_h40_key --input=%t/o.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2.4e-7 --atol 0 | FileCheck %s
// CHECK: npycmp: PASS

func.func @alibi_h40_key(%o: index) -> tensor<40x5x9xf32> {
  %0 = pe.alibi_bias key offset(%o : index) : tensor<40x5x9xf32>
  return %0 : tensor<40x5x9xf32>
}
// TILED-COUNT-2: scf.for
// TILED: arith.constant dense<{{.*}}> : tensor<40xf64>
// TILED: pe.alibi_bias key[{{.*}}] slopes({{.*}} : tensor<8xf64>) offset({{.*}} : index) : tensor<8x?x9xf32>
