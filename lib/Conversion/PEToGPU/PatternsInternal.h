//===- PatternsInternal.h - the GPU kernel patterns -------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
// One populate function per kernel file; populatePEToGPUPatterns
// (PEToGPU.cpp) adds them all with the benefits that order them.
//
//===----------------------------------------------------------------------===//

#ifndef PE_LIB_CONVERSION_PETOGPU_PATTERNSINTERNAL_H
#define PE_LIB_CONVERSION_PETOGPU_PATTERNSINTERNAL_H

#include "pe/Conversion/PEToGPU/PEToGPU.h"

#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace pe {
namespace gpu_kernels {

/// pe.attention -> the one-row-per-thread kernel (SIMTAttention.cpp).
void populateSIMTAttentionPattern(RewritePatternSet &patterns,
                                  const GPUKernelOptions &options,
                                  PatternBenefit benefit);
/// pe.attention (f16/bf16 prefill) -> the tensor-core kernel
/// (MMAAttention.cpp).
void populateMMAAttentionPattern(RewritePatternSet &patterns,
                                 const GPUKernelOptions &options,
                                 PatternBenefit benefit);
/// pe.attention (one query token) -> the decode kernel and its split
/// combine (DecodeAttention.cpp).
void populateDecodeAttentionPattern(RewritePatternSet &patterns,
                                    const GPUKernelOptions &options,
                                    PatternBenefit benefit);
/// pe.rope and pe.add_sinusoidal -> their kernels (SequenceKernels.cpp).
void populateSequenceKernelPatterns(RewritePatternSet &patterns,
                                    const GPUKernelOptions &options);

} // namespace gpu_kernels
} // namespace pe
} // namespace mlir

#endif // PE_LIB_CONVERSION_PETOGPU_PATTERNSINTERNAL_H
