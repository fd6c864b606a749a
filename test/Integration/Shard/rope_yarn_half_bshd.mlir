// Sharded execution test: YaRN-scaled RoPE (factor 4, with its attention scaling), half layout, [B, S, H, D] with S = 16 split over 2 ranks, positions 7 + t.
// pe-run --ranks=2 partitions the function with pe-shard-pipeline, runs it on
// 2 MPI ranks (each with its block of the tokens) and gathers the result;
// --check=cpu compares it with the unsharded function through
// pe-cpu-pipeline (the same kernels). The result is then compared with the
// float64 reference (test/Integration/lib/shard_cases.py), and must not match
// what shards rotating at local positions would give (naive.npy), which
// differs from the reference.
// Tolerances: rtol 1e-5, atol 1e-6 against the reference (f32 rotations,
// angles in f64, |x| < 1); rtol 1e-6, atol 1e-7 against the unsharded
// program (the same kernel at the same positions).

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/shard_cases.py rope_yarn_half_bshd %t
// RUN: pe-run %s -e rope_yarn_half_bshd --ranks=2 --input=%t/x.npy --input=%t/o.npy --output=%t/out.npy --check=cpu --rtol=1e-6 --atol=1e-7 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: not %npycmp %t/out.npy %t/naive.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=NAIVE
// RUN: not %npycmp %t/naive.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=NAIVE
// MPI: pe-run: ran 'rope_yarn_half_bshd' on 2 ranks (pe-shard-pipeline)
// MPI: pe-run: check result 0: {{.*}}: PASS
// CHECK: npycmp: PASS
// NAIVE: npycmp: FAIL

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @rope_yarn_half_bshd(%x: tensor<1x16x4x32xf32>, %o: index) -> tensor<1x16x4x32xf32> {
  %seq = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %seq : tensor<1x16x4x32xf32>
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 2048 : i64} : tensor<16xf64>
  %y = pe.rope half %xs inv_freq(%f : tensor<16xf64>) attention_scaling(%m) offset(%o : index) {sequence_dim = 1 : i64} : tensor<1x16x4x32xf32>
  %ys = shard.shard %y to %seq : tensor<1x16x4x32xf32>
  return %ys : tensor<1x16x4x32xf32>
}
