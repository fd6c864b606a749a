//===- EmitExecutable.h - pe-run --emit-executable --------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_TOOLS_PE_RUN_EMITEXECUTABLE_H
#define PE_TOOLS_PE_RUN_EMITEXECUTABLE_H

#include "Harness.h"
#include "ShardExecutable.h"

namespace pe::run {

/// Compiles function `sig.name` of `original`, lowered by `pipeline`, into
/// the standalone executable `path`, linked with pe's AOT archives from
/// `libDir` (lib/Runtime/AOT); with `sharded`, as the MPI program of the
/// per-process function.
mlir::LogicalResult emitExecutable(mlir::ModuleOp original,
                                   const Signature &sig,
                                   const PipelineEntry &pipeline,
                                   bool runtimeChecks, llvm::StringRef path,
                                   llvm::StringRef libDir,
                                   const ShardedExecutable *sharded);

} // namespace pe::run

#endif // PE_TOOLS_PE_RUN_EMITEXECUTABLE_H
