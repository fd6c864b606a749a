// Sharded execution test: a function with a tensor argument it does not use
// (MLIR 22's shard-partition crashes on one; pe-shard-pipeline annotates it
// as replicated, so every rank gets it whole). Otherwise the sinusoidal case:
// [2, 16, 32] with T split over 2 ranks, positions 3 + t, compared with the
// float64 reference (test/Integration/lib/shard_cases.py) and with the
// unsharded program through pe-cpu-pipeline, and required to differ from
// shards that encode local positions. Tolerances as sinusoidal_seq.mlir:
// rtol 1e-5, atol 1e-6 against the reference; rtol 1e-6, atol 1e-7 against
// the unsharded program.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/shard_cases.py sinusoidal_unused_argument %t
// RUN: pe-run %s -e sinusoidal_unused_argument --ranks=2 --input=%t/x.npy --input=%t/u.npy --output=%t/out.npy --check=cpu --rtol=1e-6 --atol=1e-7 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: not %npycmp %t/out.npy %t/naive.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=NAIVE
// RUN: pe-opt %s --pe-shard-pipeline -o /dev/null
// MPI: pe-run: ran 'sinusoidal_unused_argument' on 2 ranks (pe-shard-pipeline)
// MPI: pe-run: check result 0: {{.*}}: PASS
// CHECK: npycmp: PASS
// NAIVE: npycmp: FAIL

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @sinusoidal_unused_argument(%x: tensor<2x16x32xf32>, %unused: tensor<3x5xf32>) -> tensor<2x16x32xf32> {
  %seq = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %seq : tensor<2x16x32xf32>
  %y = pe.add_sinusoidal interleaved %xs {static_offset = 3 : i64} : tensor<2x16x32xf32>
  %ys = shard.shard %y to %seq : tensor<2x16x32xf32>
  return %ys : tensor<2x16x32xf32>
}
