//===- ShardExecutable.h - --emit-executable of sharded functions -*- C++
//-*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// `pe-run FILE -e F --pipeline=cpu --emit-executable=EXE` for a function with
// shard.shard annotations: EXE is an MPI program (mpiexec -n N EXE ...) built
// from the per-rank program of pe-shard-pipeline and libpe_aot_shard_main.a
// (lib/Runtime/AOT/AOTShardMain.cpp). It takes the global inputs, each rank
// keeps its block (the rule of --ranks), and rank 0 gathers and writes the
// global results. What differs from the executable of an unsharded function
// is gathered here; pe-run.cpp's emitExecutable does the rest.
//
//===----------------------------------------------------------------------===//

#ifndef PE_TOOLS_PE_RUN_SHARDEXECUTABLE_H
#define PE_TOOLS_PE_RUN_SHARDEXECUTABLE_H

#include "Harness.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace pe::run {

struct ShardedExecutable {
  /// pe-shard-pipeline, which lowers the module to the per-rank program.
  const PipelineEntry *pipeline = nullptr;
  /// The signature of the per-rank function (the blocks' shapes).
  Signature local;
  /// Appended to the executable's embedded signature: the process count and
  /// each argument's and result's layout (AOTShardMain.cpp reads it).
  std::string signatureText;
  /// The main() archive, in pe's library directory.
  std::string mainArchive;
  /// What the executable is linked with after the archives (the MPI library).
  llvm::SmallVector<std::string> linkArgs;
  /// What it needs at run time, for pe-run's "wrote" line.
  std::string needs;
};

/// Whether `fn` has shard annotations (shard ops other than grids).
bool hasShardAnnotations(mlir::func::FuncOp fn);

/// How the sharded function `fn` of signature `sig` is emitted: its layouts,
/// checked against the function pe-shard-pipeline makes of it. Errors: a
/// layout pe-run --ranks would refuse, dynamic shapes, no MPICH library.
mlir::FailureOr<ShardedExecutable>
prepareShardedExecutable(mlir::func::FuncOp fn, const Signature &sig);

} // namespace pe::run

#endif // PE_TOOLS_PE_RUN_SHARDEXECUTABLE_H
