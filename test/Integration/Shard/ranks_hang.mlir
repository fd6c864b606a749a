// pe-run --ranks stops ranks that do not finish: rank 1 hangs (sleeps), or
// exits with status 0 or 3 before MPI_Init (rank 0 then waits in MPI_Init
// for it, and MPICH's process manager waits for rank 0); after
// --ranks-timeout seconds pe-run stops the launcher, the process
// manager's proxy and the ranks, removes its scratch directory and fails.
// ranks_cleanup.py counts the processes started under the run that are
// left, and pe-run's scratch directories (in TMPDIR) that are left.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.zeros((2, 8, 4), np.float32))"
// RUN: %python %pe_ref_lib/ranks_cleanup.py %t -- pe-run %s -e f --ranks=2 --ranks-timeout=4 --mpiexec='%S/Inputs/faulty-mpiexec.sh hang' --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s
// RUN: %python %pe_ref_lib/ranks_cleanup.py %t -- pe-run %s -e f --ranks=2 --ranks-timeout=4 --mpiexec='%S/Inputs/faulty-mpiexec.sh early' --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s
// RUN: %python %pe_ref_lib/ranks_cleanup.py %t -- pe-run %s -e f --ranks=2 --ranks-timeout=4 --mpiexec='%S/Inputs/faulty-mpiexec.sh exit' --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s

// CHECK: pe-run: error: the 2 ranks did not finish within 4 s (--ranks-timeout): stopped faulty-mpiexec.sh and its processes
// CHECK: ranks_cleanup: exit 1
// CHECK: ranks_cleanup: processes left 0
// CHECK: ranks_cleanup: scratch directories left 0

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @f(%x: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<2x8x4xf32>
  %y = pe.add_sinusoidal interleaved %xs : tensor<2x8x4xf32>
  %ys = shard.shard %y to %s : tensor<2x8x4xf32>
  return %ys : tensor<2x8x4xf32>
}
