//===- Passes.h - gpu dialect passes ----------------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
// Passes and patterns that fill gaps of MLIR 22's gpu, SPIR-V and bf16
// support (lib/Transforms/GPU); pe-gpu-pipeline runs them.
//
//===----------------------------------------------------------------------===//

#ifndef PE_TRANSFORMS_GPU_PASSES_H
#define PE_TRANSFORMS_GPU_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir {
class DialectRegistry;
class RewritePatternSet;
namespace pe {

#define GEN_PASS_DECL
#define GEN_PASS_REGISTRATION
#include "pe/Transforms/GPU/Passes.h.inc"

/// Patterns that route the bf16 <-> f64 conversions through f32:
/// `arith.extf` bf16 -> f64 as two exact steps, `arith.truncf` f64 -> bf16
/// as a round-to-odd step into f32 (integer operations on the bits of the
/// nearest f32) followed by the usual round-to-nearest-even into bf16, which
/// equals one correct rounding. With them, `arith-expand{include-bf16}`
/// covers every conversion a bf16 kernel makes (used by
/// pe-gpu-bf16-storage).
void populateBF16ThroughF32Patterns(RewritePatternSet &patterns);

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

#endif // PE_TRANSFORMS_GPU_PASSES_H
