// Sharded execution test: interleaved sinusoidal encoding of [B, T, C] =
// [2, 16, 32] with T split over 2 ranks, positions 3 + t. pe-run --ranks=2
// runs the partitioned function (pe-shard-pipeline) on 2 MPI ranks and
// gathers the result; --check=cpu compares it with the unsharded function
// through pe-cpu-pipeline. The result is compared with the float64 reference
// (test/Integration/lib/shard_cases.py) and must not match shards that
// encode local positions (naive.npy), which differ from the reference.
// Tolerances: rtol 1e-5, atol 1e-6 against the reference (the encoding is
// evaluated in f64 and rounded once to f32); rtol 1e-6, atol 1e-7 against the
// unsharded program.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/shard_cases.py sinusoidal_seq %t
// RUN: pe-run %s -e sinusoidal_seq --ranks=2 --input=%t/x.npy --output=%t/out.npy --check=cpu --rtol=1e-6 --atol=1e-7 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: not %npycmp %t/out.npy %t/naive.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=NAIVE
// RUN: not %npycmp %t/naive.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=NAIVE
// MPI: pe-run: ran 'sinusoidal_seq' on 2 ranks (pe-shard-pipeline)
// MPI: pe-run: check result 0: {{.*}}: PASS
// CHECK: npycmp: PASS
// NAIVE: npycmp: FAIL

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @sinusoidal_seq(%x: tensor<2x16x32xf32>) -> tensor<2x16x32xf32> {
  %seq = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %seq : tensor<2x16x32xf32>
  %y = pe.add_sinusoidal interleaved %xs {static_offset = 3 : i64} : tensor<2x16x32xf32>
  %ys = shard.shard %y to %seq : tensor<2x16x32xf32>
  return %ys : tensor<2x16x32xf32>
}
