//===- PipelineTable.h - The pipelines pe-run compiles with -----*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_TOOLS_PE_RUN_PIPELINETABLE_H
#define PE_TOOLS_PE_RUN_PIPELINETABLE_H

#include "Harness.h"

#include "pe/Conversion/PEToCPU/CPUTarget.h"

#include <string>

namespace pe::run {

/// The pipeline options pe-run's command line sets.
struct PipelineSettings {
  /// pe-cpu-pipeline{triple cpu features} of the cpu pipeline
  /// (--target-triple, --target-cpu, --target-features); an empty triple:
  /// the module's llvm.target, else the host (pe's default CPU target).
  mlir::pe::CPUTargetSpec cpuTarget;
  /// pe-cpu-pipeline{openmp} of the cpu pipeline (--cpu-openmp).
  bool cpuOpenMP = true;
  /// pe-gpu-pipeline{tensor-cores} of the vulkan and cuda pipelines
  /// (--gpu-tensor-cores).
  std::string gpuTensorCores = "auto";
  /// pe-gpu-pipeline{decode-split-keys} of the vulkan and cuda pipelines
  /// (--gpu-decode-split-keys).
  int64_t gpuDecodeSplitKeys = 128;
  /// pe-gpu-pipeline{shared-memory-bytes} of the vulkan and cuda pipelines
  /// (--gpu-shared-memory-bytes); 0: the target's.
  int64_t gpuSharedMemoryBytes = 0;
};

/// Sets what the pipelines' builders use.
void setPipelineSettings(const PipelineSettings &settings);
/// What the pipelines' builders use (the shard pipeline of --ranks too).
const PipelineSettings &getPipelineSettings();

/// The pipeline named `name`, or null.
const PipelineEntry *lookupPipeline(llvm::StringRef name);

/// "reference, cpu, vulkan, cuda".
std::string knownPipelineNames();

/// pe's own library directory: ../lib beside the pe-run executable.
std::string peLibraryDir(const char *argv0);

} // namespace pe::run

#endif // PE_TOOLS_PE_RUN_PIPELINETABLE_H
