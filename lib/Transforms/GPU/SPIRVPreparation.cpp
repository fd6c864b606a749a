//===- SPIRVPreparation.cpp - gpu kernels into the forms GPU->SPIR-V takes ===//
//
// Part of the pe-mlir project.
//
// Upstream gap: MLIR 22's GPU -> SPIR-V conversion does not take every form the
// gpu dialect allows, and leaves its result beside the gpu.module, where
// gpu-module-to-binary cannot serialize it. Two small passes bridge that:
//
//   pe-prepare-gpu-for-spirv   workgroup / private attributions of each
//                              kernel become memref.alloc / memref.alloca in
//                              the Workgroup / Function storage classes, and
//                              each kernel gets its spirv.entry_point_abi
//                              (workgroup size) from its known block size;
//   pe-nest-spirv-modules      each spirv.module moves into the gpu.module it
//                              was converted from.
//
//===----------------------------------------------------------------------===//

#include "pe/Transforms/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVAttributes.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVDialect.h"
#include "mlir/Dialect/SPIRV/IR/SPIRVOps.h"
#include "mlir/Dialect/SPIRV/IR/TargetAndABI.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_PREPAREGPUFORSPIRV
#define GEN_PASS_DEF_NESTSPIRVMODULES
#include "pe/Transforms/GPU/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;

namespace {

/// `type` with its memory space replaced by the storage class `sc`.
MemRefType inStorageClass(MemRefType type, spirv::StorageClass sc) {
  return MemRefType::get(type.getShape(), type.getElementType(),
                         type.getLayout(),
                         spirv::StorageClassAttr::get(type.getContext(), sc));
}

/// Moves the attributions of `func` into its body as allocations in the
/// storage class of their address space.
void materializeAttributions(gpu::GPUFuncOp func) {
  Block &entry = func.getBody().front();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  auto replace = [&](BlockArgument arg, spirv::StorageClass sc,
                     bool workgroup) {
    auto type = inStorageClass(cast<MemRefType>(arg.getType()), sc);
    Value buffer =
        workgroup ? Value(memref::AllocOp::create(b, func.getLoc(), type))
                  : Value(memref::AllocaOp::create(b, func.getLoc(), type));
    arg.replaceAllUsesWith(buffer);
  };
  // Private attributions follow the workgroup ones; erase from the back.
  unsigned numWorkgroup = func.getNumWorkgroupAttributions();
  unsigned numPrivate = func.getNumPrivateAttributions();
  for (BlockArgument arg : func.getWorkgroupAttributions())
    replace(arg, spirv::StorageClass::Workgroup, /*workgroup=*/true);
  for (BlockArgument arg : func.getPrivateAttributions())
    replace(arg, spirv::StorageClass::Function, /*workgroup=*/false);
  unsigned first = func.getNumArguments();
  entry.eraseArguments(first, numWorkgroup + numPrivate);
  func->setAttr(gpu::GPUFuncOp::getNumWorkgroupAttributionsAttrName(),
                b.getI64IntegerAttr(0));
}

struct PrepareGPUForSPIRVPass
    : public pe::impl::PrepareGPUForSPIRVBase<PrepareGPUForSPIRVPass> {
  using Base::Base;

  void runOnOperation() override {
    WalkResult result = getOperation()->walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return WalkResult::advance();
      materializeAttributions(func);
      if (spirv::lookupEntryPointABI(func))
        return WalkResult::advance();
      std::optional<ArrayRef<int32_t>> known = func.getKnownBlockSize();
      if (!known) {
        func.emitError() << "kernel has no known block size: a SPIR-V entry "
                            "point needs a static workgroup size";
        return WalkResult::interrupt();
      }
      func->setAttr(spirv::getEntryPointABIAttrName(),
                    spirv::getEntryPointABIAttr(func.getContext(), *known));
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      signalPassFailure();
  }
};

struct NestSPIRVModulesPass
    : public pe::impl::NestSPIRVModulesBase<NestSPIRVModulesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    for (auto spirvModule :
         llvm::make_early_inc_range(module.getOps<spirv::ModuleOp>())) {
      // convert-gpu-to-spirv names the module after its gpu.module.
      std::optional<StringRef> name = spirvModule.getName();
      StringRef prefix = "__spv__";
      if (!name || !name->starts_with(prefix))
        continue;
      auto gpuModule = module.lookupSymbol<gpu::GPUModuleOp>(
          name->drop_front(prefix.size()));
      if (!gpuModule) {
        spirvModule.emitError() << "no gpu.module named '"
                                << name->drop_front(prefix.size()) << "'";
        return signalPassFailure();
      }
      spirvModule->moveBefore(&gpuModule.getBody()->front());
    }
  }
};

} // namespace
