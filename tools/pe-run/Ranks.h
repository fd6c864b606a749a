//===- Ranks.h - Sharded runs on MPI ranks (--ranks) ------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// `pe-run --ranks=N` starts N copies of itself with mpiexec (MPICH). Each
// rank reads the global inputs, keeps its block of every argument (from the
// argument's shard.shard annotation), compiles the module with
// pe-shard-pipeline, calls MPI_Init, runs its program and writes its result
// blocks to a scratch directory. The launching process then assembles the
// global results from the blocks (checking that replicated blocks agree) and
// compares them with the unsharded program (--check).
//
//===----------------------------------------------------------------------===//

#ifndef PE_TOOLS_PE_RUN_RANKS_H
#define PE_TOOLS_PE_RUN_RANKS_H

#include "Harness.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"

namespace pe::run {

/// How a function argument or result is laid out over the processes: the
/// grid's shape and, per dimension, the grid axes it is split on. An empty
/// grid shape: the whole value on every process.
struct Distribution {
  llvm::SmallVector<int64_t> gridShape;
  llvm::SmallVector<llvm::SmallVector<mlir::shard::GridAxis>> splitAxes;
};

struct ShardedSignature {
  llvm::SmallVector<Distribution> args, results;
  int64_t processes = 0;
};

/// The layout of each argument and result of `fn` over the processes, as
/// sharding propagation completes the annotations (what shard-partition
/// then gives the per-process function): it runs on a clone of the module.
mlir::FailureOr<ShardedSignature> readShardedSignature(mlir::func::FuncOp fn);

/// The offsets and sizes of process `rank`'s block of a value of `shape`
/// (an error unless the split dimensions divide evenly).
mlir::LogicalResult blockOf(const Distribution &d,
                            llvm::ArrayRef<int64_t> shape, int64_t rank,
                            llvm::SmallVector<int64_t> &offsets,
                            llvm::SmallVector<int64_t> &sizes);

/// Checks that the per-process function pe-shard-pipeline makes of `sig`
/// takes and returns the blocks `sharded` describes of arguments of
/// `argShapes` (for process 0; the splits are even), before any process is
/// started.
mlir::LogicalResult
checkPartitionedSignature(mlir::ModuleOp module, const Signature &sig,
                          const ShardedSignature &sharded,
                          llvm::ArrayRef<llvm::SmallVector<int64_t>> argShapes);

/// An error, at its first shard op, when `fn` is sharded: its annotations
/// are for --ranks (pe-shard-pipeline) or `emitting` (--emit-executable)
/// with --pipeline=cpu, which a plain run or another pipeline would fail on
/// far from the cause.
mlir::LogicalResult checkNotSharded(mlir::func::FuncOp fn, bool emitting);

/// What the launching process of a --ranks run is given.
struct RanksOptions {
  /// The number of processes (--ranks).
  int64_t ranks = 0;
  /// The MPI launcher and its arguments, before `-n N` (--mpiexec,
  /// PE_MPIEXEC, or mpiexec.mpich).
  llvm::SmallVector<std::string> mpiexec;
  /// The arguments each rank is started with (before --rank-dir).
  llvm::SmallVector<std::string> rankArgs;
  llvm::SmallVector<std::string> outputs;
  /// The pipeline of the unsharded program to compare with, or null.
  const PipelineEntry *checkPipeline = nullptr;
  llvm::SmallVector<std::string> libs;
  double rtol = 0, atol = 0;
  bool runtimeChecks = true;
  /// Seconds the ranks may take, from their start to their end (0: no
  /// limit; --ranks-timeout).
  double timeoutSeconds = 0;
  /// Timed calls in each rank after the first (0: none; --repeat).
  int repeat = 0;
};

/// The launcher command of --mpiexec=`spec`: the words of `spec` (quoted as
/// in a shell), or of $PE_MPIEXEC when `spec` is empty, or mpiexec.mpich; the
/// program is looked up on PATH unless it names a path.
mlir::FailureOr<llvm::SmallVector<std::string>>
launcherCommand(llvm::StringRef spec);

/// pe-shard-pipeline (each rank's program through pe-cpu-pipeline, with its
/// MPI calls), as pe-run compiles with it.
const PipelineEntry &shardPipelineEntry();

/// One rank of a --ranks run: its blocks of the inputs, its program, its
/// blocks of the results (and with `repeat`, the times of `repeat` more
/// calls) in `dir`. Returns the exit status.
int runRank(mlir::ModuleOp module, const Signature &sig,
            const ShardedSignature &sharded, llvm::ArrayRef<npy::Array> args,
            llvm::StringRef dir, llvm::ArrayRef<std::string> libs,
            bool runtimeChecks, int repeat);

/// The launching process of a --ranks run: starts the ranks (the launcher
/// with `-n N`, this program and the rank arguments), waits for them for at
/// most the time limit, assembles the global results, writes them to the
/// outputs and compares them with the unsharded program lowered by the check
/// pipeline (when given). The processes and the scratch directory are gone
/// when it returns, also after a time-out, a failed rank, or SIGINT, SIGTERM
/// or SIGHUP (after which pe-run ends by that signal). Returns the exit
/// status.
int runRanks(mlir::ModuleOp module, const Signature &sig,
             const ShardedSignature &sharded, llvm::ArrayRef<npy::Array> args,
             const RanksOptions &options);

} // namespace pe::run

#endif // PE_TOOLS_PE_RUN_RANKS_H
