// pe-shard-pipeline: the passes it builds, what it leaves with
// lower-to-llvm=false, and the LLVM dialect program of each rank.

// RUN: pe-opt %s --pe-shard-pipeline --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PASSES
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-shard-pipeline{lower-to-llvm=false})' | FileCheck %s --check-prefix=PART
// RUN: pe-opt %s --pe-shard-pipeline | FileCheck %s --check-prefix=LLVM
// RUN: pe-opt %s --pe-shard-pipeline | FileCheck %s --check-prefix=NOSHARD
// RUN: pe-opt %s --pass-pipeline='builtin.module(pe-shard-pipeline{mpi-implementation=OpenMPI})' | FileCheck %s --check-prefix=OMPI
// RUN: not pe-opt %s --pass-pipeline='builtin.module(pe-shard-pipeline{mpi-implementation=LAM})' 2>&1 | FileCheck %s --check-prefix=BAD
// Every option of pe-cpu-pipeline reaches the ranks' CPU pipeline.
// RUN: pe-opt %s --pe-shard-pipeline="fuse=false openmp=true threads=3 decode-prefetch-bytes=0 decode-prefetch-min-ops=5 decode-prefetch-l2-min-ops=6 stack-scratch-bytes=4096 runtime-checks=false triple=x86_64-unknown-linux-gnu cpu=x86-64-v3" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=CPUOPTS

// PASSES: builtin.module(
// PASSES-NEXT: func.func(
// PASSES-NEXT: pe-shard-check-splits
// PASSES-NEXT: sharding-propagation
// PASSES-NEXT: pe-shard-check-splits
// PASSES-NEXT: pe-shard-replicate-unused-arguments
// PASSES-NEXT: pe-shard-unfold-constants
// PASSES-NEXT: shard-partition
// PASSES-NEXT: ),
// PASSES-NEXT: canonicalize
// PASSES-NEXT: cse
// PASSES-NEXT: pe-lower-shard-collectives
// PASSES-NEXT: pe-set-mpi-implementation{implementation=MPICH}
// PASSES-NEXT: convert-shard-to-mpi
// PASSES-NEXT: pe-finalize-shard-to-mpi
// PASSES-NEXT: convert-to-llvm{{.*}}filter-dialects={mpi}
// PASSES-NEXT: pe-free-mpi-communicators
// PASSES-NEXT: canonicalize
// PASSES-NEXT: pe-insert-runtime-checks
// PASSES-NEXT: convert-elementwise-to-linalg
// PASSES-NEXT: pe-attach-cpu-target
// PASSES-NEXT: pe-fold-frequencies
// PASSES: convert-pe-to-vector
// PASSES-NOT: convert-scf-to-openmp
// PASSES: reconcile-unrealized-casts

// CPUOPTS: pe-free-mpi-communicators
// CPUOPTS-NOT: pe-insert-runtime-checks
// CPUOPTS: pe-attach-cpu-target{cpu=x86-64-v3 features= triple=x86_64-unknown-linux-gnu}
// CPUOPTS-NOT: pe-fuse-encodings-into-attention
// CPUOPTS: convert-pe-to-vector{decode-prefetch-bytes=0 decode-prefetch-l2-min-ops=6 decode-prefetch-min-ops=5 stack-scratch-bytes=4096}
// CPUOPTS: convert-scf-to-openmp{num-threads=3}

// Keys and values split over the sequence, queries and result replicated,
// with llama3-scaled RoPE on the keys (the key positions start at 4 idx).
// PART-LABEL: func @keys
// PART-SAME: (%{{.*}}: tensor<1x4x8x8xf32>, %{{.*}}: tensor<1x2x4x8xf32>, %{{.*}}: tensor<1x2x4x8xf32>) -> tensor<1x4x8x8xf32>
// PART: %[[IDX:.*]] = shard.process_multi_index on @grid axes = [0] : index
// PART: %[[START:.*]] = arith.muli %[[IDX]], %{{.*}} : index
// PART: pe.rope half %{{.*}} inv_freq({{.*}}) offset(%[[START]] : index)
// PART: shard.all_reduce {{.*}} reduction = max
// PART: shard.all_reduce
// PART: shard.all_reduce

// LLVM-LABEL: llvm.func @keys
// LLVM: llvm.call @MPI_Comm_rank
// Each collective's communicator is freed right after its MPI_Allreduce.
// LLVM: llvm.call @MPI_Comm_split({{.*}}, %[[C1:[0-9]+]]) :
// LLVM: llvm.call @MPI_Allreduce
// LLVM-NEXT: llvm.call @MPI_Comm_free(%[[C1]])
// LLVM: llvm.call @MPI_Comm_split({{.*}}, %[[C2:[0-9]+]]) :
// LLVM: llvm.call @MPI_Allreduce
// LLVM-NEXT: llvm.call @MPI_Comm_free(%[[C2]])
// LLVM: llvm.call @MPI_Comm_split({{.*}}, %[[C3:[0-9]+]]) :
// LLVM: llvm.call @MPI_Allreduce
// LLVM-NEXT: llvm.call @MPI_Comm_free(%[[C3]])
// NOSHARD-NOT: shard.
// NOSHARD-NOT: mpi.
// OMPI: module attributes {dlti.map = #dlti.map<"MPI:Implementation" = "OpenMPI">
// BAD: pe-set-mpi-implementation: unknown MPI implementation 'LAM'

shard.grid @grid(shape = 2) {sym_visibility = "private"}
func.func @keys(%q: tensor<1x4x8x8xf32>, %k: tensor<1x2x8x8xf32>, %v: tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %seq = shard.sharding @grid split_axes = [[], [], [0]] : !shard.sharding
  %rep = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %qr = shard.shard %q to %rep : tensor<1x4x8x8xf32>
  %ks = shard.shard %k to %seq : tensor<1x2x8x8xf32>
  %vs = shard.shard %v to %seq : tensor<1x2x8x8xf32>
  %f, %m = pe.llama3_scale {base = 500000.0 : f64, factor = 8.0 : f64, low_freq_factor = 1.0 : f64, high_freq_factor = 4.0 : f64, original_max_position_embeddings = 8 : i64} : tensor<4xf32>
  %kr = pe.rope half %ks inv_freq(%f : tensor<4xf32>) : tensor<1x2x8x8xf32>
  %attn_init0 = tensor.empty() : tensor<1x4x8x8xf32>
  %o = pe.attention %qr, %kr, %vs outs(%attn_init0 : tensor<1x4x8x8xf32>) {causal} : tensor<1x4x8x8xf32>, tensor<1x2x8x8xf32>, tensor<1x2x8x8xf32> -> tensor<1x4x8x8xf32>
  %os = shard.shard %o to %rep : tensor<1x4x8x8xf32>
  return %os : tensor<1x4x8x8xf32>
}
