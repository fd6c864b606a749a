// pe-run --ranks compiles each rank's program for the command line's CPU
// target (--target-triple, --target-cpu): an AVX2 target (x86-64-v3, 8-lane
// kernels) runs on this machine and matches the float64 reference
// (shard_cases.py sinusoidal_seq; rtol 1e-5, atol 1e-6) and the unsharded
// program (rtol 1e-6, atol 1e-7); an AArch64 target reaches the ranks too,
// which refuse to JIT-run it on this machine.
// REQUIRES: host-avx2

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/shard_cases.py sinusoidal_seq %t
// RUN: pe-run %s -e sinusoidal_seq --ranks=2 --target-triple=x86_64-unknown-linux-gnu --target-cpu=x86-64-v3 --input=%t/x.npy --output=%t/out.npy --check=cpu --rtol=1e-6 --atol=1e-7 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: not pe-run %s -e sinusoidal_seq --ranks=2 --target-triple=aarch64-unknown-linux-gnu --target-cpu=neoverse-n1 --input=%t/x.npy --output=%t/out2.npy 2>&1 | FileCheck %s --check-prefix=FOREIGN
// MPI: pe-run: ran 'sinusoidal_seq' on 2 ranks (pe-shard-pipeline)
// MPI: pe-run: check result 0: {{.*}}: PASS
// CHECK: npycmp: PASS
// FOREIGN: pe-run: error: the code is for 'aarch64-unknown-linux-gnu', which this machine ({{.*}}) cannot run
// FOREIGN: pe-run: error: the 2 ranks failed

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @sinusoidal_seq(%x: tensor<2x16x32xf32>) -> tensor<2x16x32xf32> {
  %seq = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %seq : tensor<2x16x32xf32>
  %y = pe.add_sinusoidal interleaved %xs {static_offset = 3 : i64} : tensor<2x16x32xf32>
  %ys = shard.shard %y to %seq : tensor<2x16x32xf32>
  return %ys : tensor<2x16x32xf32>
}
