//===- pe-plugin.cpp - the pe dialect and passes as an mlir-opt plugin ----===//
//
// Part of the pe-mlir project.
//
// Lets an upstream mlir-opt (or any MlirOptMain tool of the same LLVM) load
// the pe dialect, its passes and pipelines:
//
//   mlir-opt --load-dialect-plugin=libPEPlugin.so \
//            --load-pass-plugin=libPEPlugin.so --pe-cpu-pipeline in.mlir
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/PEToCPU/CPUTarget.h"
#include "pe/InitAllPE.h"
#include "pe/Transforms/GPU/Passes.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

using namespace mlir;

extern "C" LLVM_ATTRIBUTE_WEAK DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "PE", LLVM_VERSION_STRING,
          [](DialectRegistry *registry) {
            pe::registerAllDialects(*registry);
            // gpu.launch_func memory effects, for pe-gpu-pipeline.
            pe::registerLaunchFuncMemoryEffectsModel(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "PE", LLVM_VERSION_STRING, []() {
            pe::registerAllPasses();
            // As in pe-opt: modules that name no CPU target get kernels for
            // this machine.
            pe::setDefaultCPUTarget(pe::getHostCPUTargetSpec());
          }};
}
