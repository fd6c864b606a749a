// Errors of the MPI executables pe-run --emit-executable writes for sharded
// functions: a rank count other than the grid's (under mpiexec -n 3 and
// -n 1, and started without mpiexec, a singleton of 1 rank) is one
// 'pe-aot: error:' line from rank 0 and a non-zero exit status; so are
// inputs of the wrong global shape and a missing --output (from each rank).
// Emitting a sharded function with a pipeline other than cpu, or with
// shardings that cannot be partitioned, is a located pe-run error.

// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.zeros((2, 8, 4), np.float32)); np.save('%t/bad.npy', np.zeros((2, 4, 4), np.float32))"
// RUN: pe-run %s -e f --pipeline=cpu --emit-executable=%t/exe > /dev/null
// RUN: not mpiexec.mpich -n 3 %t/exe --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=THREE
// RUN: not mpiexec.mpich -n 1 %t/exe --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not %t/exe --input=%t/x.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=ONE
// RUN: not mpiexec.mpich -n 2 %t/exe --input=%t/bad.npy --output=%t/o.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not mpiexec.mpich -n 2 %t/exe --input=%t/x.npy 2>&1 | FileCheck %s --check-prefix=OUT
// RUN: not pe-run %s -e f --pipeline=reference --emit-executable=%t/ref 2>&1 | FileCheck %s --check-prefix=PIPE
// RUN: not pe-run %S/../../Tools/pe-run/Inputs/ranks-uneven-tokens.mlir -e f --pipeline=cpu --emit-executable=%t/uneven 2>&1 | FileCheck %s --check-prefix=UNEVEN

// THREE: pe-aot: error: 'f' is sharded over 2 processes but runs on 3 MPI ranks: start it with 'mpiexec -n 2'
// THREE-NOT: pe-aot: error
// ONE: pe-aot: error: 'f' is sharded over 2 processes but runs on 1 MPI rank: start it with 'mpiexec -n 2'
// ONE-NOT: pe-aot: error
// SHAPE: pe-aot: error: argument 0 (tensor<2x8x4xf32>) from '{{.*}}bad.npy': expected shape (2, 8, 4), got (2, 4, 4)
// OUT: pe-aot: error: function 'f' has 1 result but 0 --output files were given
// PIPE: emit_executable_errors.mlir:[[@LINE+8]]:8: error: function 'f' is sharded: --emit-executable compiles it with --pipeline=cpu only (pe-shard-pipeline); run it with --ranks=2
// PIPE: pe-run: error: function 'f' is sharded: emit it with --pipeline=cpu (an MPI program), or run it with --ranks=2 (pe-shard-pipeline on MPI ranks)
// UNEVEN: ranks-uneven-tokens.mlir:6:9: error: 'shard.shard' op splits dimension 1 of size 12 over 5 processes
// UNEVEN: pe-run: error: {{.*}}the function's shardings cannot be partitioned

shard.grid @grid(shape = 2) {sym_visibility = "private"}

func.func @f(%x: tensor<2x8x4xf32>) -> tensor<2x8x4xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %xs = shard.shard %x to %s : tensor<2x8x4xf32>
  %y = pe.add_sinusoidal interleaved %xs : tensor<2x8x4xf32>
  %ys = shard.shard %y to %s : tensor<2x8x4xf32>
  return %ys : tensor<2x8x4xf32>
}
