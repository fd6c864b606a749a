// pe-run --ranks with a launcher that takes arguments: MPICH's mpiexec with
// a hostfile listing this machine (--mpiexec, and PE_MPIEXEC without
// --mpiexec), compared with the float64 reference (shard_cases.py
// sinusoidal_seq; rtol 1e-5, atol 1e-6) and the unsharded program (rtol
// 1e-6, atol 1e-7). A hostfile that does not exist makes mpiexec fail: the
// arguments reach it.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python %pe_ref_lib/shard_cases.py sinusoidal_seq %t
// RUN: echo "localhost:2" > %t/hosts
// RUN: pe-run %s -e sinusoidal_seq --ranks=2 --mpiexec='mpiexec.mpich -f %t/hosts' --input=%t/x.npy --output=%t/out.npy --check=cpu --rtol=1e-6 --atol=1e-7 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: rm %t/out.npy
// RUN: env PE_MPIEXEC='mpiexec.mpich -f %t/hosts' pe-run %s -e sinusoidal_seq --ranks=2 --input=%t/x.npy --output=%t/out.npy --check=cpu --rtol=1e-6 --atol=1e-7 | FileCheck %s --check-prefix=MPI
// RUN: %npycmp %t/out.npy %t/expected.npy --rtol 1e-5 --atol 1e-6 | FileCheck %s
// RUN: not pe-run %s -e sinusoidal_seq --ranks=2 --mpiexec='mpiexec.mpich -f %t/no-such-hosts' --input=%t/x.npy --output=%t/out.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// MPI: pe-run: ran 'sinusoidal_seq' on 2 ranks (pe-shard-pipeline)
// MPI: pe-run: check result 0: {{.*}}: PASS
// CHECK: npycmp: PASS
// MISSING: pe-run: error: the 2 ranks failed (mpiexec.mpich exit status {{[1-9][0-9]*}})

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @sinusoidal_seq(%x: tensor<2x16x32xf32>) -> tensor<2x16x32xf32> {
  %seq = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %seq : tensor<2x16x32xf32>
  %y = pe.add_sinusoidal interleaved %xs {static_offset = 3 : i64} : tensor<2x16x32xf32>
  %ys = shard.shard %y to %seq : tensor<2x16x32xf32>
  return %ys : tensor<2x16x32xf32>
}
