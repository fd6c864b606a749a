// RUN: pe-run %s -e qkv --random-inputs --seed=3 --pipeline=cpu --check=reference --rtol=1e-6 --atol=1e-6 | FileCheck %s
// RUN: pe-run %s -e gather_random --random-inputs --seed=4 --pipeline=cpu --check=reference --rtol=0 --atol=0 | FileCheck %s
// RUN: pe-opt %s --pe-cpu-pipeline | FileCheck %s --check-prefix=IR

// Absolute encodings fused into their consumer (the QKV projection, tiled by
// rows) and producer (an embedding gather) through pe-cpu-pipeline give the
// reference pipeline's results (whose own accuracy the execution tests check
// against float64). The gather case is bit-identical.

// RUN: pe-opt %s --pe-fuse-absolute-pe | FileCheck %s --check-prefix=FUSED

// CHECK: pe-run: check result 0: {{.*}}: PASS
// pe-fuse-absolute-pe runs on the pe ops, before any lowering: the encoding
// of @qkv becomes a pe.add_sinusoidal per row tile inside the matmul's row
// loop, which the generated sinusoidal kernel then lowers (f32 polynomials,
// no f64 sin of the reference lowering); the gather moves into the row
// tiles of the pe.add_learned.
// FUSED-LABEL: func @qkv
// FUSED: scf.for %[[I:[a-z0-9]+]] =
// FUSED: pe.add_sinusoidal interleaved %{{.*}} offset(%[[I]] : index) {static_offset = 7 : i64}
// FUSED: linalg.matmul
// FUSED-LABEL: func @gather_random
// FUSED: scf.for
// FUSED: scf.for %[[T:[a-z0-9]+]] =
// FUSED: linalg.generic
// FUSED: pe.add_learned %{{.*}}, %{{.*}} offset(%[[T]] : index) {static_offset = 3 : i64}
// IR-LABEL: llvm.func @qkv
// IR-NOT: llvm.intr.sin
// IR: llvm.return

func.func @qkv(%x: tensor<100x64xf32>, %w: tensor<64x96xf32>) -> tensor<100x96xf32> {
  %e = pe.add_sinusoidal interleaved %x {static_offset = 7 : i64} : tensor<100x64xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<100x96xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<100x96xf32>) -> tensor<100x96xf32>
  %y = linalg.matmul ins(%e, %w : tensor<100x64xf32>, tensor<64x96xf32>) outs(%acc : tensor<100x96xf32>) -> tensor<100x96xf32>
  return %y : tensor<100x96xf32>
}
func.func @gather_random(%ids: tensor<2x40xi64>, %emb: tensor<1000x32xf32>, %wpe: tensor<64x32xf32>) -> tensor<2x40x32xf32> {
  %init = tensor.empty() : tensor<2x40x32xf32>
  %g = linalg.generic {indexing_maps = [affine_map<(b, t, c) -> (b, t)>, affine_map<(b, t, c) -> (b, t, c)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<2x40xi64>) outs(%init : tensor<2x40x32xf32>) {
  ^bb0(%id: i64, %out: f32):
    %i = arith.index_cast %id : i64 to index
    %c = linalg.index 2 : index
    %v = tensor.extract %emb[%i, %c] : tensor<1000x32xf32>
    linalg.yield %v : f32
  } -> tensor<2x40x32xf32>
  %e = pe.add_learned %g, %wpe {static_offset = 3 : i64} : tensor<2x40x32xf32>, tensor<64x32xf32>
  return %e : tensor<2x40x32xf32>
}
