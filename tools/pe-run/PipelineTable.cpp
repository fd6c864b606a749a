//===- PipelineTable.cpp - The pipelines pe-run compiles with -------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Pipelines: name -> builder. Adding a pipeline is one line here.
//
//===----------------------------------------------------------------------===//

#include "PipelineTable.h"

#include "pe/Pipelines/Pipelines.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace ::pe::run;
using llvm::SmallString;
using llvm::StringRef;

namespace pe::run {

static PipelineSettings settings;

void setPipelineSettings(const PipelineSettings &s) { settings = s; }
const PipelineSettings &getPipelineSettings() { return settings; }

/// pe-gpu-pipeline{target} with the command line's GPU options.
static void buildGPUPipeline(OpPassManager &pm, mlir::pe::GPUTarget target,
                             bool runtimeChecks) {
  mlir::pe::GPUPipelineOptions options;
  options.target = target;
  options.tensorCores = settings.gpuTensorCores;
  options.decodeSplitKeys = settings.gpuDecodeSplitKeys;
  options.sharedMemoryBytes = settings.gpuSharedMemoryBytes;
  options.runtimeChecks = runtimeChecks;
  mlir::pe::buildGPUPipeline(pm, options);
}

/// pe-gpu-pipeline{target=spirv}: SPIR-V kernels, run by the Vulkan runtime.
static void buildVulkanPipeline(OpPassManager &pm, bool runtimeChecks) {
  buildGPUPipeline(pm, mlir::pe::GPUTarget::SPIRV, runtimeChecks);
}

/// pe-gpu-pipeline{target=nvvm}: PTX kernels (JIT-compiled by the driver),
/// run by the CUDA runtime on device copies of the buffers.
static void buildCUDAPipeline(OpPassManager &pm, bool runtimeChecks) {
  buildGPUPipeline(pm, mlir::pe::GPUTarget::NVVM, runtimeChecks);
}

static const PipelineEntry kPipelines[] = {
    {"reference",
     [](OpPassManager &pm, bool runtimeChecks) {
       mlir::pe::ReferencePipelineOptions options;
       options.runtimeChecks = runtimeChecks;
       mlir::pe::buildReferencePipeline(pm, options);
     },
     "", "", false},
    // scf.parallel is lowered to OpenMP: the code calls __kmpc_* in libomp.
    {"cpu",
     [](OpPassManager &pm, bool runtimeChecks) {
       mlir::pe::CPUPipelineOptions options;
       options.runtimeChecks = runtimeChecks;
       options.triple = settings.cpuTarget.triple;
       options.cpu = settings.cpuTarget.cpu;
       options.features = settings.cpuTarget.features;
       options.openmp = settings.cpuOpenMP;
       mlir::pe::buildCPUPipeline(pm, options);
     },
     "libomp.so", "Debian package libomp-22-dev", false},
    // The kernels run through Vulkan (lavapipe on a CPU): the host code calls
    // mgpu* in pe's Vulkan runtime.
    {"vulkan", buildVulkanPipeline, "libpe_vulkan_runtime.so",
     "built with the Vulkan headers, Debian package libvulkan-dev", true},
    // The kernels run on an NVIDIA GPU: the host code calls mgpu* in pe's
    // CUDA runtime, which loads the driver (libcuda.so.1) when first called.
    {"cuda", buildCUDAPipeline, "libpe_cuda_runtime.so", "built with pe-run",
     true},
};

/// pe's own library directory: ../lib beside the pe-run executable.
std::string peLibraryDir(const char *argv0) {
  std::string exe = llvm::sys::fs::getMainExecutable(
      argv0, reinterpret_cast<void *>(&::pe::run::peLibraryDir));
  SmallString<256> dir(llvm::sys::path::parent_path(exe));
  llvm::sys::path::append(dir, "..", "lib");
  return std::string(dir);
}

const PipelineEntry *lookupPipeline(StringRef name) {
  for (const PipelineEntry &entry : kPipelines)
    if (entry.name == name)
      return &entry;
  return nullptr;
}

std::string knownPipelineNames() {
  std::string names;
  for (const PipelineEntry &entry : kPipelines) {
    if (!names.empty())
      names += ", ";
    names += entry.name.str();
  }
  return names;
}

} // namespace pe::run
