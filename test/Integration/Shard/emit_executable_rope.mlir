// pe-run --emit-executable of a sharded function: an MPI program that takes
// the global inputs. YaRN-scaled RoPE (as rope_yarn_half_bshd.mlir), [B, S,
// H, D] with S = 16 split over 2 ranks, positions 7 + t. The executable runs
// under plain `mpiexec -n 2` and with a hostfile listing this machine; rank
// 0 writes the gathered result, which is compared with the float64
// reference (shard_cases.py rope_yarn_half_bshd; rtol 1e-5, atol 1e-6: f32
// rotations, angles in f64, |x| < 1), must differ from shards rotating at
// local positions (naive.npy), and is compared with pe-run --ranks=2 (rtol
// 1e-6, atol 1e-7: the same per-rank program, JIT- rather than
// AOT-compiled). --random-inputs gives the same data as pe-run's.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/shard_cases.py rope_yarn_half_bshd %t
// RUN: pe-run %s -e rope_yarn_half_bshd --pipeline=cpu --emit-executable=%t/exe | FileCheck %s --check-prefix=WROTE
// RUN: %t/exe --help | FileCheck %s --check-prefix=HELP
// RUN: mpiexec.mpich -n 2 %t/exe --input=%t/x.npy --input=%t/o.npy --output=%t/out.npy
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: not %npycmp %t/out.npy %t/naive.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s --check-prefix=NAIVE
// RUN: pe-run %s -e rope_yarn_half_bshd --ranks=2 --input=%t/x.npy --input=%t/o.npy --output=%t/ranks.npy
// RUN: %npycmp %t/out.npy %t/ranks.npy --rtol 1e-6 --atol 1e-7 | FileCheck %s
// RUN: echo "localhost:2" > %t/hosts
// RUN: mpiexec.mpich -n 2 -f %t/hosts %t/exe --input=%t/x.npy --input=%t/o.npy --output=%t/hosts.npy
// RUN: %npycmp %t/hosts.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: mpiexec.mpich -n 2 %t/exe --random-inputs --seed=5 --output=%t/random.npy
// RUN: pe-run %s -e rope_yarn_half_bshd --ranks=2 --random-inputs --seed=5 --output=%t/random-ranks.npy
// RUN: %npycmp %t/random.npy %t/random-ranks.npy --rtol 1e-6 --atol 1e-7 | FileCheck %s
// RUN: mpiexec.mpich -n 2 %t/exe --input=%t/x.npy --input=%t/o.npy --repeat=3 | FileCheck %s --check-prefix=TIME

// WROTE: pe-run: wrote '{{.*}}exe' (function 'rope_yarn_half_bshd', pipeline shard; needs MPICH's libmpich.so.12 (start it with 'mpiexec -n 2') at run time
// HELP: USAGE: mpiexec -n 2 {{.*}}exe [--input=FILE.npy]...
// HELP: argument 0: tensor<1x16x4x32xf32>
// HELP-NEXT: argument 1: index
// HELP-NEXT: result 0: tensor<1x16x4x32xf32>
// CHECK: npycmp: PASS
// NAIVE: npycmp: FAIL
// TIME: pe-aot: time pipeline=shard ranks=2 runs=3 min_ms={{[0-9.]+}} median_ms={{[0-9.]+}}
// TIME-NOT: pe-aot: time

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @rope_yarn_half_bshd(%x: tensor<1x16x4x32xf32>, %o: index) -> tensor<1x16x4x32xf32> {
  %seq = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %seq : tensor<1x16x4x32xf32>
  %f, %m = pe.yarn_scale {factor = 4.0 : f64, original_max_position_embeddings = 2048 : i64} : tensor<16xf64>
  %y = pe.rope half %xs inv_freq(%f : tensor<16xf64>) attention_scaling(%m) offset(%o : index) {sequence_dim = 1 : i64} : tensor<1x16x4x32xf32>
  %ys = shard.shard %y to %seq : tensor<1x16x4x32xf32>
  return %ys : tensor<1x16x4x32xf32>
}
