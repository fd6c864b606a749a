// Sharded execution test: RoPE with a constant (already folded) frequency
// table on x [2, 16, 8] split over the sequence on axis 0 and over the
// channels on axis 1 of a 2x2 grid, on 4 ranks. MLIR 22's shard-partition
// rejects a non-splat constant (pe-shard-unfold-constants gives it a form it
// accepts), and the rotation needs whole channels: propagation keeps the
// sequence split and drops the channel split, so the channels are gathered
// before the rotation and sliced after it. Compared with the unsharded
// function through pe-cpu-pipeline (--check=cpu) and the float64 reference
// (test/Integration/lib/shard_cases.py).
// Tolerances: rtol 1e-5, atol 1e-6 against the reference (f32 rotation,
// angles in f64); rtol 1e-6, atol 1e-7 against the unsharded program.

// RUN: rm -rf %t
// RUN: %python %pe_ref_lib/shard_cases.py rope_const_table_channels %t
// RUN: pe-run %s -e rope_const_table_channels --ranks=4 --input=%t/x.npy --output=%t/out.npy --check=cpu --rtol=1e-6 --atol=1e-7 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// MPI: pe-run: ran 'rope_const_table_channels' on 4 ranks (pe-shard-pipeline)
// MPI: pe-run: check result 0: {{.*}}: PASS
// CHECK: npycmp: PASS

shard.grid @grid(shape = 2x2) {sym_visibility = "private"}

func.func @rope_const_table_channels(%x: tensor<2x16x8xf32>) -> tensor<2x16x8xf32> {
  %s = shard.sharding @grid split_axes = [[], [0], [1]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<2x16x8xf32>
  %f = arith.constant dense<[1.0, 0.1, 0.01, 0.001]> : tensor<4xf32>
  %y = pe.rope half %xs inv_freq(%f : tensor<4xf32>) : tensor<2x16x8xf32>
  %ys = shard.shard %y to %s : tensor<2x16x8xf32>
  return %ys : tensor<2x16x8xf32>
}
