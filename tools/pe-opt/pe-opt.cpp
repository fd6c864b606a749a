//===- pe-opt.cpp - pe optimizer driver -----------------------------------===//
//
// Part of the pe-mlir project.
//
// An mlir-opt with the pe dialect and its passes on top of every upstream
// dialect, extension and pass, so that pe pipelines run in one tool.
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/PEToCPU/CPUTarget.h"
#include "pe/InitAllPE.h"
#include "pe/Transforms/GPU/Passes.h"
#include "pe/Version.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::pe::registerAllPasses();

  // Modules that name no CPU target (an llvm.target attribute, or
  // pe-cpu-pipeline{triple=...}) get kernels for this machine.
  mlir::pe::setDefaultCPUTarget(mlir::pe::getHostCPUTargetSpec());

  mlir::DialectRegistry registry;
  mlir::pe::registerAllDialects(registry);
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  // gpu.launch_func memory effects for buffer deallocation (pe-gpu-pipeline).
  mlir::pe::registerLaunchFuncMemoryEffectsModel(registry);
  // gpu-module-to-binary (pe-gpu-pipeline) translates kernels to LLVM IR.
  mlir::registerAllToLLVMIRTranslations(registry);

  llvm::cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) {
    os << "pe-mlir version " PE_VERSION_STRING "\n";
  });
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "pe optimizer driver\n", registry));
}
