// Tiling through the upstream TilingInterface drivers (transform dialect,
// script in Inputs/tile_sinusoidal_positions.mlir), then the tiled program runs through the
// reference pipeline (and, with --param pe_pipeline=cpu, pe-cpu-pipeline) and
// is compared with the float64 reference of the untiled op
// (test/Integration/lib/cases.py sin_interleaved_batch_positions).
//
// pe.add_sinusoidal with a [B, T] positions tensor, tiled over (batch 1, 2\n// tokens): each tile slices the positions.
// Tolerance: rtol 2e-7, atol 1e-7 (one rounding of an f64 sum, as the untiled test).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/cases.py sin_interleaved_batch_positions %t
// RUN: pe-opt %s --transform-preload-library=transform-library-paths=%S/Inputs/tile_sinusoidal_positions.mlir --transform-interpreter > %t/tiled.mlir
// RUN: FileCheck %s --check-prefix=TILED < %t/tiled.mlir
// RUN: pe-run %t/tiled.mlir -e sin_interleaved_batch_positions --input=%t/x.npy --input=%t/p.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 2e-7 --atol 1e-7 | FileCheck %s
// CHECK: npycmp: PASS

func.func @sin_interleaved_batch_positions(%x: tensor<2x3x5x8xf32>, %p: tensor<2x5xi64>) -> tensor<2x3x5x8xf32> {
  %0 = pe.add_sinusoidal interleaved %x positions(%p : tensor<2x5xi64>) : tensor<2x3x5x8xf32>
  return %0 : tensor<2x3x5x8xf32>
}
// TILED-COUNT-2: scf.for
// TILED: pe.add_sinusoidal interleaved {{.*}} positions({{.*}} : tensor<1x?xi64>) : tensor<1x3x?x8xf32>
