// pe-run --ranks after a rank that crashes (rank 1 dies by SIGSEGV): the
// process manager stops the other ranks, pe-run reports the launcher's
// status, and no process or scratch directory is left (ranks_cleanup.py
// counts them).

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.zeros((2, 8, 4), np.float32))"
// RUN: %python %pe_ref_lib/ranks_cleanup.py %t -- pe-run %s -e f --ranks=2 --mpiexec='%S/Inputs/faulty-mpiexec.sh crash' --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s

// CHECK: pe-run: error: the 2 ranks failed (faulty-mpiexec.sh exit status {{[1-9][0-9]*}})
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
