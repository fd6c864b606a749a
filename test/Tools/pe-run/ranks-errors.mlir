// pe-run --ranks: usage errors, each one 'pe-run: error:' line (after the
// located diagnostic, for errors in the IR) and exit status 1; no process is
// started for them.
// REQUIRES: mpi

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.zeros((2, 8, 4), np.float32))"
// RUN: not pe-run %s -e f --ranks=4 --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=GRID
// RUN: not pe-run %s -e f --ranks=2 --pipeline=cpu --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: not pe-run %s -e f --ranks=0 --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not pe-run %s -e plain --ranks=2 --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=PLAIN
// RUN: not pe-run %s -e f --ranks=2 --mpiexec=no-such-mpiexec --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=EXEC
// RUN: not pe-run %s -e f --ranks=2 --mpiexec='no-such-mpiexec -f hosts' --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=EXEC
// RUN: env PE_MPIEXEC='no-such-mpiexec -f hosts' not pe-run %s -e f --ranks=2 --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=ENV
// RUN: not pe-run %s -e f --ranks=2 --mpiexec=%t/no-such-dir/mpiexec --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=PATH
// RUN: not pe-run %s -e f --ranks=2 --mpiexec=' ' --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=BLANK
// RUN: not pe-run %s -e f --ranks=2 --input=%t/x.npy 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: not pe-run %s -e f --ranks=abc --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=ABC
// RUN: not pe-run %s -e f --ranks= --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=EMPTY
// RUN: not pe-run %s -e f --ranks=2 --ranks-timeout=-1 --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=TIMEOUT
// RUN: not pe-run %s -e f --ranks=2 --repeat=3 --roofline --input=%t/x.npy 2>&1 | FileCheck %s --check-prefix=ROOF
// RUN: not pe-run %s -e f --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=NORANKS
// RUN: not pe-run %s -e f --emit-executable=%t/f 2>&1 | FileCheck %s --check-prefix=EMIT
// RUN: not pe-run %s -e plain --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=OTHER
// RUN: %python -c "import numpy as np; np.save('%t/x12.npy', np.zeros((2, 12, 4), np.float32)); np.save('%t/q.npy', np.zeros((1, 2, 4, 8), np.float32)); np.save('%t/k.npy', np.zeros((1, 2, 3, 8), np.float32))"
// RUN: not pe-run %S/Inputs/ranks-uneven-tokens.mlir -e f --ranks=5 --input=%t/x12.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=TOKENS
// RUN: not pe-run %S/Inputs/ranks-uneven-keys.mlir -e f --ranks=2 --input=%t/q.npy --input=%t/k.npy --input=%t/k.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=KEYS
// RUN: not pe-run %S/Inputs/ranks-missing-axis.mlir -e f --ranks=2 --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=AXIS

// GRID: pe-run: error: --ranks=4 but the function's grid has 2 processes
// PIPE: pe-run: error: --pipeline does not apply with --ranks (each rank runs pe-shard-pipeline)
// ZERO: pe-run: error: --ranks must be at least 1, got 0
// PLAIN: pe-run: error: --ranks: function 'plain' has no shard.shard annotation on its arguments or results
// EXEC: pe-run: error: cannot find 'no-such-mpiexec' (--mpiexec; Debian package mpich, or give --mpiexec)
// ENV: pe-run: error: cannot find 'no-such-mpiexec' (PE_MPIEXEC; Debian package mpich, or give --mpiexec)
// PATH: pe-run: error: --mpiexec: '{{.*}}/no-such-dir/mpiexec' is not an executable file
// BLANK: pe-run: error: --mpiexec names no program
// OUT: pe-run: error: function 'f' has 1 result but 0 --output files were given
// ABC: pe-run: error: --ranks must be a number of processes, got 'abc'
// EMPTY: pe-run: error: --ranks must be a number of processes, got ''
// TIMEOUT: pe-run: error: --ranks-timeout must be a finite number of seconds, at least 0
// ROOF: pe-run: error: --roofline and --flops do not apply with --ranks
// NORANKS: ranks-errors.mlir:[[@LINE+17]]:8: error: function 'f' is sharded: its annotations need one process per block; run it with --ranks=2
// NORANKS-NEXT: %s = shard.sharding
// NORANKS: pe-run: error: function 'f' is sharded: run it with --ranks=2 (pe-shard-pipeline on MPI ranks)
// EMIT: ranks-errors.mlir:[[@LINE+14]]:8: error: function 'f' is sharded: --emit-executable compiles it with --pipeline=cpu only (pe-shard-pipeline); run it with --ranks=2
// EMIT: pe-run: error: function 'f' is sharded: emit it with --pipeline=cpu (an MPI program), or run it with --ranks=2 (pe-shard-pipeline on MPI ranks)
// OTHER: ranks-errors.mlir:[[@LINE+12]]:8: error: function 'f' is sharded, and pe-run compiles the whole module: 'plain' runs without --ranks only from a module without shard annotations
// OTHER: pe-run: error: function 'f' of the module is sharded: run 'plain' from a module without shard annotations
// TOKENS: ranks-uneven-tokens.mlir:6:9: error: 'shard.shard' op splits dimension 1 of size 12 over 5 processes (axes [0] of grid @grid), which do not divide it: shard-partition supports even splits only
// TOKENS: pe-run: error: --ranks: the function's shardings cannot be partitioned
// KEYS: ranks-uneven-keys.mlir:6:9: error: 'shard.shard' op splits dimension 2 of size 3 over 2 processes (axes [0] of grid @grid), which do not divide it
// KEYS: pe-run: error: --ranks: the function's shardings cannot be partitioned
// AXIS: ranks-missing-axis.mlir:5:8: error: 'shard.sharding' op splits dimension 1 over grid axis 1, but grid @grid has 1 axis (shape [2])
// AXIS: pe-run: error: --ranks: the function's shardings cannot be partitioned

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
