//===- DeviceBuffers.cpp - host buffers of kernel launches into device memory //
//
// Part of the pe-mlir project.
//
// Upstream gaps: MLIR 22's gpu-to-llvm{intersperse-sizes-for-kernels} gives
// buffer sizes for static shapes only, and no MLIR 22 pass moves the host
// buffers of a launch into device memory.
//
// pe-gpu-intersperse-buffer-sizes: after the kernels are serialized, each
// memref operand of a launch is followed by its size in bytes (an i64), for
// any shape: the calling convention of the Vulkan runtime, which
// gpu-to-llvm's intersperse-sizes-for-kernels gives only for static shapes.
//
// pe-gpu-device-buffers: after bufferization, each memref operand of a
// gpu.launch_func in host code is copied into a device buffer (gpu.alloc +
// gpu.memcpy) for the launch, copied back if the kernel may write it, and
// freed (gpu.dealloc). This is what a discrete GPU (the CUDA runtime) needs;
// the Vulkan runtime copies buffers itself.
//
//===----------------------------------------------------------------------===//

#include "pe/Transforms/GPU/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_GPUDEVICEBUFFERS
#define GEN_PASS_DEF_GPUINTERSPERSEBUFFERSIZES
#include "pe/Transforms/GPU/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;

namespace {

/// True unless every use of kernel argument `arg` only reads it (loads, dims,
/// and ops that declare their memory effects, have no write effect on `arg`
/// and make no view of it, such as an asynchronous copy out of it): then the
/// kernel may write the buffer.
bool mayWrite(BlockArgument arg) {
  return llvm::any_of(arg.getUsers(), [&](Operation *user) {
    if (isa<memref::LoadOp, memref::DimOp>(user))
      return false;
    if (llvm::any_of(user->getResultTypes(), llvm::IsaPred<BaseMemRefType>))
      return true;
    return mightHaveEffect<MemoryEffects::Write>(user, arg);
  });
}

struct GPUDeviceBuffersPass
    : public pe::impl::GPUDeviceBuffersBase<GPUDeviceBuffersPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchFuncOp> launches;
    getOperation()->walk([&](gpu::LaunchFuncOp op) {
      if (!op->getParentOfType<gpu::GPUModuleOp>())
        launches.push_back(op);
    });
    for (gpu::LaunchFuncOp launch : launches) {
      if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty()) {
        launch.emitError() << "pe-gpu-device-buffers expects synchronous "
                              "launches (no async tokens)";
        return signalPassFailure();
      }
      auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      Location loc = launch.getLoc();
      OpBuilder b(launch);
      // gpu-to-llvm lowers allocations and copies on a stream only: one
      // chain of async ops (one stream) before the launch and one after,
      // each waited for.
      Type token = gpu::AsyncTokenType::get(b.getContext());
      Value chain =
          gpu::WaitOp::create(b, loc, token, ValueRange{}).getAsyncToken();
      SmallVector<std::pair<Value, Value>> copyBack; // (host, device)
      SmallVector<Value> device;
      unsigned first = launch.getKernelOperands().getBeginOperandIndex();
      for (OpOperand &operand : launch.getKernelOperandsMutable()) {
        auto type = dyn_cast<MemRefType>(operand.get().getType());
        if (!type)
          continue;
        Value host = operand.get();
        SmallVector<Value> dynamicSizes;
        for (int64_t i = 0; i < type.getRank(); ++i)
          if (type.isDynamicDim(i))
            dynamicSizes.push_back(memref::DimOp::create(b, loc, host, i));
        auto alloc = gpu::AllocOp::create(b, loc, type, token, chain,
                                          dynamicSizes, ValueRange{},
                                          /*hostShared=*/false);
        Value buffer = alloc.getMemref();
        chain = gpu::MemcpyOp::create(b, loc, token, alloc.getAsyncToken(),
                                      buffer, host)
                    .getAsyncToken();
        operand.set(buffer);
        device.push_back(buffer);
        // Without the kernel body (an external kernel), assume a write.
        unsigned index = operand.getOperandNumber() - first;
        if (!kernel || mayWrite(kernel.getArgument(index)))
          copyBack.push_back({host, buffer});
      }
      gpu::WaitOp::create(b, loc, Type(), chain);
      b.setInsertionPointAfter(launch);
      chain = gpu::WaitOp::create(b, loc, token, ValueRange{}).getAsyncToken();
      for (auto [host, buffer] : copyBack)
        chain = gpu::MemcpyOp::create(b, loc, token, chain, host, buffer)
                    .getAsyncToken();
      for (Value buffer : device)
        chain = gpu::DeallocOp::create(b, loc, token, chain, buffer)
                    .getAsyncToken();
      gpu::WaitOp::create(b, loc, Type(), chain);
    }
  }
};

struct GPUIntersperseBufferSizesPass
    : public pe::impl::GPUIntersperseBufferSizesBase<
          GPUIntersperseBufferSizesPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchFuncOp> launches;
    getOperation()->walk([&](gpu::LaunchFuncOp op) {
      if (!op->getParentOfType<gpu::GPUModuleOp>())
        launches.push_back(op);
    });
    for (gpu::LaunchFuncOp launch : launches) {
      // The sizes change the launch's arguments: the kernel must already be
      // a binary, whose runtime expects them.
      auto kernel = SymbolTable::lookupNearestSymbolFrom<gpu::GPUFuncOp>(
          launch, launch.getKernel());
      if (kernel) {
        launch.emitError() << "pe-gpu-intersperse-buffer-sizes: the kernel is "
                              "not serialized yet (run gpu-module-to-binary "
                              "first)";
        return signalPassFailure();
      }
      OpBuilder b(launch);
      Location loc = launch.getLoc();
      SmallVector<Value> operands;
      for (Value operand : launch.getKernelOperands()) {
        operands.push_back(operand);
        auto type = dyn_cast<MemRefType>(operand.getType());
        if (!type)
          continue;
        unsigned bits = type.getElementTypeBitWidth();
        if (!type.getLayout().isIdentity() || bits % 8 != 0) {
          launch.emitError()
              << "pe-gpu-intersperse-buffer-sizes: buffer " << type
              << " is not contiguous with whole-byte elements";
          return signalPassFailure();
        }
        Value bytes = arith::ConstantIndexOp::create(b, loc, bits / 8);
        for (int64_t i = 0; i < type.getRank(); ++i) {
          Value dim = type.isDynamicDim(i)
                          ? Value(memref::DimOp::create(b, loc, operand, i))
                          : Value(arith::ConstantIndexOp::create(
                                b, loc, type.getDimSize(i)));
          bytes = arith::MulIOp::create(b, loc, bytes, dim);
        }
        operands.push_back(
            arith::IndexCastOp::create(b, loc, b.getI64Type(), bytes));
      }
      launch.getKernelOperandsMutable().assign(operands);
    }
  }
};

} // namespace
