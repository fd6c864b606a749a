//===- AlignWorkgroupMemory.cpp - aligned buffers of async copies ---------===//
//
// Part of the pe-mlir project.
//
// Upstream gap: gpu-kernel-outlining in MLIR 22 creates the workgroup
// attributions of a kernel without attributes (gpu.launch has none), and
// convert-gpu-to-nvvm declares each .shared array with the alignment of its
// element type unless the attribution has `llvm.align`; cp.async of N bytes
// needs N-byte aligned shared addresses.
//
// pe-gpu-align-workgroup-memory: each workgroup attribution of a kernel
// gpu.func that an nvgpu.device_async_copy writes gets an `llvm.align` of
// at least the copy's size.
//
//===----------------------------------------------------------------------===//

#include "pe/Transforms/GPU/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_GPUALIGNWORKGROUPMEMORY
#include "pe/Transforms/GPU/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;

namespace {

struct GPUAlignWorkgroupMemoryPass
    : public pe::impl::GPUAlignWorkgroupMemoryBase<
          GPUAlignWorkgroupMemoryPass> {
  void runOnOperation() override {
    StringRef name = LLVM::LLVMDialect::getAlignAttrName();
    Builder builder(&getContext());
    getOperation()->walk([&](gpu::GPUFuncOp func) {
      if (!func.isKernel())
        return;
      ArrayRef<BlockArgument> attributions = func.getWorkgroupAttributions();
      func.walk([&](nvgpu::DeviceAsyncCopyOp copy) {
        auto it = llvm::find(attributions, copy.getDst());
        if (it == attributions.end())
          return;
        unsigned i = it - attributions.begin();
        int64_t bytes =
            copy.getDstElements().getZExtValue() *
            cast<MemRefType>(copy.getDst().getType()).getElementTypeBitWidth() /
            8;
        auto old = dyn_cast_or_null<IntegerAttr>(
            func.getWorkgroupAttributionAttr(i, name));
        if (!old || old.getInt() < bytes)
          func.setWorkgroupAttributionAttr(i, name,
                                           builder.getI64IntegerAttr(bytes));
      });
    });
  }
};

} // namespace
