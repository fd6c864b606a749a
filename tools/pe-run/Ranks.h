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

/// One rank of a --ranks run: its blocks of the inputs, its program, its
/// blocks of the results in `dir`. Returns the exit status.
int runRank(mlir::ModuleOp module, const Signature &sig,
            const ShardedSignature &sharded,
            llvm::ArrayRef<mlir::pe::npy::Array> args, llvm::StringRef dir,
            llvm::ArrayRef<std::string> libs, bool runtimeChecks);

/// The launching process of a --ranks run: starts `ranks` copies of pe-run
/// with `mpiexec` and `rankArgs`, assembles the global results, writes them
/// to `outputs` and compares them with the unsharded program lowered by
/// `checkPipeline` (when given). Returns the exit status.
int runRanks(mlir::ModuleOp module, const Signature &sig,
             const ShardedSignature &sharded,
             llvm::ArrayRef<mlir::pe::npy::Array> args, int64_t ranks,
             llvm::StringRef mpiexec, llvm::ArrayRef<std::string> rankArgs,
             llvm::ArrayRef<std::string> outputs,
             const PipelineEntry *checkPipeline,
             llvm::ArrayRef<std::string> libs, double rtol, double atol,
             bool runtimeChecks);

} // namespace pe::run

#endif // PE_TOOLS_PE_RUN_RANKS_H
