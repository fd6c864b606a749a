// Sharded execution test: the ALiBi bias [H, Tq, Tk] = [6, 4, 8] of
// 6 heads (not a power of two), signed distance, query offset 4, with the heads split over 2 ranks: each rank computes its heads'
// bias with the slopes of its global heads (the global slope table sliced at
// its first head). pe-run --ranks=2 runs the partitioned function on 2 MPI
// ranks and gathers the result; --check=cpu compares it with the unsharded
// function. The result is compared with the float64 reference
// (test/Integration/lib/shard_cases.py) and must not match shards that use
// the slopes of H/2 heads (naive.npy), which differ from the reference.
// Tolerances: rtol 1e-6, atol 1e-6 against the reference (slope times an
// integer distance, rounded once to f32); exact (0, 0) against the unsharded
// program: the same slopes and distances.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/shard_cases.py alibi_heads_6 %t
// RUN: pe-run %s -e alibi_heads_6 --ranks=2 --output=%t/out.npy --check=cpu --rtol=0 --atol=0 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-6 --atol 1e-6 | FileCheck %s
// RUN: not %npycmp %t/out.npy %t/naive.npy --rtol 1e-6 --atol 1e-6 | FileCheck %s --check-prefix=NAIVE
// RUN: not %npycmp %t/naive.npy %t/expected.npy --rtol 1e-6 --atol 1e-6 | FileCheck %s --check-prefix=NAIVE
// MPI: pe-run: ran 'alibi_heads_6' on 2 ranks (pe-shard-pipeline)
// MPI: pe-run: check result 0: {{.*}}: PASS
// CHECK: npycmp: PASS
// NAIVE: npycmp: FAIL

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @alibi_heads_6() -> tensor<6x4x8xf32> {
  %heads = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %b = pe.alibi_bias signed {static_offset = 4 : i64} : tensor<6x4x8xf32>
  %bs = shard.shard %b to %heads : tensor<6x4x8xf32>
  return %bs : tensor<6x4x8xf32>
}
