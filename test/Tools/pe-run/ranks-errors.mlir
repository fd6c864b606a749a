// pe-run --ranks: usage errors, each one 'pe-run: error:' line and exit
// status 1 (no process is started for them).
// REQUIRES: mpi

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.zeros((2, 8, 4), np.float32))"
// RUN: not pe-run %s -e f --ranks=4 --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not pe-run %s -e f --ranks=2 --pipeline=cpu --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: not pe-run %s -e f --ranks=0 --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not pe-run %s -e plain --ranks=2 --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: not pe-run %s -e f --ranks=2 --mpiexec=no-such-mpiexec --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=EXEC
// RUN: not pe-run %s -e f --ranks=2 --input=%t/x.npy 2>&1 | FileCheck %s --check-prefix=OUT

// GRID: pe-run: error: --ranks=4 but the function's grid has 2 processes
// PIPE: pe-run: error: --pipeline and --repeat do not apply with --ranks (each rank runs pe-shard-pipeline)
// ZERO: pe-run: error: --ranks must be at least 1, got 0
// PLAIN: pe-run: error: --ranks: function 'plain' has no shard.shard annotation on its arguments or results
// EXEC: pe-run: error: cannot find 'no-such-mpiexec' (Debian package mpich; or give --mpiexec)
// OUT: pe-run: error: function 'f' has 1 result but 0 --output files were given

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @f(%x: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<2x8x4xf32>
  %y = pe.add_sinusoidal interleaved %xs : tensor<2x8x4xf32>
  %ys = shard.shard %y to %s : tensor<2x8x4xf32>
  return %ys : tensor<2x8x4xf32>
}

func.func @plain(%x: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %y = pe.add_sinusoidal interleaved %x : tensor<2x8x4xf32>
  return %y : tensor<2x8x4xf32>
}
