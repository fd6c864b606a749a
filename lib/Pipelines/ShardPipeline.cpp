//===- ShardPipeline.cpp - pe-shard-pipeline
//-------------------------------===//
//
// Part of the pe-mlir project.
//
// From a module with shard annotations to the LLVM dialect program of one
// MPI rank. Built from pass constructors like the other pipelines; the MPI
// runtime calls come from MLIR's mpi dialect lowering (MPICH ABI by default).
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/Transforms/Passes.h"
#include "pe/Dialect/PE/Transforms/ShardingInterfaceImpl.h"
#include "pe/Pipelines/Pipelines.h"
#include "pe/Transforms/MPI/Passes.h"

#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/MPIToLLVM/MPIToLLVM.h"
#include "mlir/Conversion/Passes.h"
#include "mlir/Conversion/ShardToMPI/ShardToMPI.h"
#include "mlir/Dialect/Arith/Transforms/ShardingInterfaceImpl.h"
#include "mlir/Dialect/DLTI/DLTI.h"
#include "mlir/Dialect/Func/Extensions/ShardingExtensions.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/Transforms/ShardingInterfaceImpl.h"
#include "mlir/Dialect/MPI/IR/MPI.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/Transforms/Passes.h"
#include "mlir/Dialect/Tensor/Extensions/ShardingExtensions.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

void mlir::pe::buildShardPipeline(OpPassManager &pm,
                                  const ShardPipelineOptions &options) {
  // SPMD partitioning: every op gets a sharding, then each becomes its
  // shard's op (global positions and slopes included) plus the
  // communication that resharding needs.
  // Splits that MLIR 22's partitioning would get wrong are errors, for the
  // annotations as written and as propagation completes them.
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createShardCheckSplits());
  fpm.addPass(shard::createShardingPropagation());
  fpm.addPass(createShardCheckSplits());
  // Unused tensor arguments replicated (partitioning crashes on them), and
  // non-splat constants (folded tables) in a form partitioning accepts.
  fpm.addPass(createShardReplicateUnusedArguments());
  fpm.addPass(createShardUnfoldConstants());
  fpm.addPass(shard::createPartition());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Collectives to all_reduce (or a diagnostic), then MPI.
  pm.addPass(createLowerShardCollectives());
  if (!options.lowerToLLVM)
    return;
  SetMPIImplementationOptions mpi;
  mpi.implementation = options.mpiImplementation;
  pm.addPass(createSetMPIImplementation(mpi));
  pm.addPass(createConvertShardToMPIPass());
  pm.addPass(createFinalizeShardToMPI());
  // The mpi ops work on memrefs already; lowering them to calls now lets
  // bufferization and buffer deallocation see only calls on LLVM values
  // (buffers are freed at the end of the function, after the calls).
  ConvertToLLVMPassOptions toLLVM;
  toLLVM.filterDialects = {"mpi"};
  pm.addPass(createConvertToLLVMPass(toLLVM));
  // Each collective's communicator is freed after use (MLIR 22's mpi dialect
  // has no op for it; without this, every call leaks one per collective).
  pm.addPass(createFreeMPICommunicators());
  pm.addPass(createCanonicalizerPass());
  // Each rank's program: the CPU pipeline.
  CPUPipelineOptions cpu;
  options.copyCPUCodegenOptionsTo(cpu);
  buildCPUPipeline(pm, cpu);
}

void mlir::pe::buildShardPipeline(OpPassManager &pm) {
  buildShardPipeline(pm, ShardPipelineOptions());
}

void mlir::pe::registerShardPipelineDialects(DialectRegistry &registry) {
  registry.insert<shard::ShardDialect, mpi::MPIDialect, DLTIDialect>();
  registerShardingInterfaceExternalModels(registry);
  arith::registerShardingInterfaceExternalModels(registry);
  func::registerShardingInterfaceExternalModels(registry);
  linalg::registerShardingInterfaceExternalModels(registry);
  tensor::registerShardingInterfaceExternalModels(registry);
  mpi::registerConvertMPIToLLVMInterface(registry);
}
