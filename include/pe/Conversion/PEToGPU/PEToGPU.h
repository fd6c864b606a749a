//===- PEToGPU.h - GPU kernels for pe ops -----------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_CONVERSION_PETOGPU_PETOGPU_H
#define PE_CONVERSION_PETOGPU_PETOGPU_H

namespace mlir {
class DialectRegistry;
namespace pe {

/// Registers a MemoryEffectOpInterface model for `gpu.launch_func`, which
/// MLIR 22 does not declare: a launch reads and writes its memref kernel
/// operands (and has a write effect of its own, so that it is never erased
/// as dead, also once its operands are LLVM pointers). Ownership-based buffer
/// deallocation rejects ops with unknown effects; with this model it places the
/// deallocations of host buffers after the launches that use them (launches
/// without an async token are synchronous).
void registerLaunchFuncMemoryEffectsModel(DialectRegistry &registry);

} // namespace pe
} // namespace mlir

#endif // PE_CONVERSION_PETOGPU_PETOGPU_H
