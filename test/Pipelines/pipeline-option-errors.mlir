// The integer options of the pe pipelines are checked as the pipeline parses
// them: a value outside the option's range, or one LLVM's option parser cannot
// read as the option's type (threads=2^63-1 for an unsigned; it used to print
// only LLVM's "value invalid for uint argument!" without an `error:`), is an
// `error:` naming the pipeline, the option and its range, with a non-zero
// exit, given as --pe-*-pipeline=... and inside --pass-pipeline. (OpenMP's
// num_threads is an i32.) pe-gpu-pipeline's options:
// test/Conversion/PEToGPU/invalid-options.mlir; pe-cpu-pipeline's kernel
// options: test/Conversion/PEToCPU/invalid-options.mlir.
// RUN: not pe-opt %s --pe-cpu-pipeline=threads=9223372036854775807 2>&1 | FileCheck %s --check-prefix=THREADS-MAX
// RUN: not pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline{threads=9223372036854775807})' 2>&1 | FileCheck %s --check-prefix=THREADS-MAX
// RUN: not pe-opt %s --pe-cpu-pipeline="fuse=false threads=2147483648" 2>&1 | FileCheck %s --check-prefix=THREADS-2P31
// RUN: not pe-opt %s --pe-cpu-pipeline=threads=-1 2>&1 | FileCheck %s --check-prefix=THREADS-NEG
// RUN: not pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline{threads=four})' 2>&1 | FileCheck %s --check-prefix=THREADS-TEXT
// RUN: not pe-opt %s --pe-cpu-pipeline=threads= 2>&1 | FileCheck %s --check-prefix=THREADS-EMPTY
// RUN: not pe-opt %s --pe-cpu-pipeline="absolute-pe-row-tile=0" 2>&1 | FileCheck %s --check-prefix=ROWTILE
// RUN: not pe-opt %s --pe-shard-pipeline=threads=4294967296 2>&1 | FileCheck %s --check-prefix=SHARD
// RUN: not pe-opt %s --pe-shard-pipeline=stack-scratch-bytes=-1 2>&1 | FileCheck %s --check-prefix=SHARD-SCRATCH
// THREADS-MAX: error: pe-cpu-pipeline: threads must be an integer in [0, 2147483647] (0: the OpenMP default), not 9223372036854775807
// THREADS-2P31: error: pe-cpu-pipeline: threads must be an integer in [0, 2147483647] (0: the OpenMP default), not 2147483648
// THREADS-NEG: error: pe-cpu-pipeline: threads must be an integer in [0, 2147483647] (0: the OpenMP default), not -1
// THREADS-TEXT: error: pe-cpu-pipeline: threads must be an integer in [0, 2147483647] (0: the OpenMP default), not 'four'
// THREADS-EMPTY: error: pe-cpu-pipeline: threads must be an integer in [0, 2147483647] (0: the OpenMP default), not ''
// ROWTILE: error: pe-cpu-pipeline: absolute-pe-row-tile must be an integer in [1, 9223372036854775807], not 0
// SHARD: error: pe-shard-pipeline: threads must be an integer in [0, 2147483647] (0: the OpenMP default), not 4294967296
// SHARD-SCRATCH: error: pe-shard-pipeline: stack-scratch-bytes must be an integer in [0, 9223372036854775807] (0: all scratch on the heap), not -1

// The largest thread count is accepted, and options around it (a quoted
// value with a space) are read as before.
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-cpu-pipeline{threads=2147483647 triple=x86_64-unknown-linux-gnu features="+avx512f,+avx512vl"})' | FileCheck %s --check-prefix=OK
// OK: llvm.mlir.constant(2147483647 : i32) : i32
// OK: omp.parallel num_threads

func.func @f(%x: tensor<4x8x16xf32>) -> tensor<4x8x16xf32> {
  %0 = pe.add_sinusoidal interleaved %x : tensor<4x8x16xf32>
  return %0 : tensor<4x8x16xf32>
}
