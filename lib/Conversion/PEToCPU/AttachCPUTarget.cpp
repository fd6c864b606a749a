//===- AttachCPUTarget.cpp - pe-attach-cpu-target -------------------------===//
//
// Part of the pe-mlir project.
//
// Names the CPU target of a module (see pe/Conversion/PEToCPU/CPUTarget.h).
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/PEToCPU/CPUTarget.h"
#include "pe/Conversion/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"

#define DEBUG_TYPE "pe-attach-cpu-target"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_ATTACHCPUTARGET
#include "pe/Conversion/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

namespace {
struct AttachCPUTargetPass
    : public pe::impl::AttachCPUTargetBase<AttachCPUTargetPass> {
  using AttachCPUTargetBase::AttachCPUTargetBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (triple.empty() && (!cpu.empty() || !features.empty())) {
      module.emitError() << "pe-attach-cpu-target: cpu and features need a "
                            "triple (for example "
                            "triple=x86_64-unknown-linux-gnu)";
      return signalPassFailure();
    }
    FailureOr<CPUTarget> target =
        triple.empty() ? lookupCPUTarget(module)
                       : resolveCPUTarget(CPUTargetSpec{triple, cpu, features},
                                          [&] { return module.emitError(); });
    if (failed(target))
      return signalPassFailure();
    LLVM_DEBUG(llvm::dbgs() << "pe-attach-cpu-target: " << target->triple
                            << " cpu=" << target->cpu << " "
                            << target->vectorBits << "-bit vectors\n");
    attachCPUTarget(module, *target);
  }
};
} // namespace
