//===- LaunchFuncMemoryEffects.cpp - memory effects of gpu.launch_func ----===//
//
// Part of the pe-mlir project.
//
// Upstream gap: MLIR 22's gpu.launch_func declares no memory effects, so
// ownership-based buffer deallocation rejects host code that launches
// kernels on its buffers, and nothing stops a launch without results from
// being erased as dead. This external model gives a launch a read and a
// write of each memref kernel operand, and a write of its own.
//
//===----------------------------------------------------------------------===//

#include "pe/Transforms/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace {
struct LaunchFuncMemoryEffects
    : public MemoryEffectOpInterface::ExternalModel<LaunchFuncMemoryEffects,
                                                    gpu::LaunchFuncOp> {
  void
  getEffects(Operation *op,
             SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
                 &effects) const {
    // A launch always has an effect (also once its operands are LLVM
    // pointers): it must never be erased as dead.
    effects.emplace_back(MemoryEffects::Write::get(),
                         SideEffects::DefaultResource::get());
    for (OpOperand &operand :
         cast<gpu::LaunchFuncOp>(op).getKernelOperandsMutable()) {
      if (!isa<BaseMemRefType>(operand.get().getType()))
        continue;
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
      effects.emplace_back(MemoryEffects::Write::get(), &operand,
                           SideEffects::DefaultResource::get());
    }
  }
};
} // namespace

void mlir::pe::registerLaunchFuncMemoryEffectsModel(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, gpu::GPUDialect *) {
    gpu::LaunchFuncOp::attachInterface<LaunchFuncMemoryEffects>(*ctx);
  });
}
