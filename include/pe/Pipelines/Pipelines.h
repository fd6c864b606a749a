//===- Pipelines.h - pe pass pipelines --------------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_PIPELINES_PIPELINES_H
#define PE_PIPELINES_PIPELINES_H

namespace mlir {
class OpPassManager;
namespace pe {

/// The reference pipeline: IR with pe ops on tensors (func.func) all the way
/// to the LLVM dialect for the host CPU, through convert-pe-to-linalg, one-shot
/// bufferization with buffer deallocation, and scalar loops. Functions keep
/// their memref calling convention (identity layouts); returned buffers are
/// malloc'ed and owned by the caller. Registered as `pe-reference-pipeline`.
void buildReferencePipeline(OpPassManager &pm);

/// The optimised CPU pipeline: fold frequencies, fuse RoPE, ALiBi and the
/// attention scaling into pe.attention's encodings, generate flash-attention kernels
/// (convert-pe-to-vector), lower the rest through the reference
/// lowering, approximate f32 math with polynomials, bufferize, and lower to the
/// LLVM dialect with scf.parallel on OpenMP (needs libomp at run time).
/// Registered as `pe-cpu-pipeline`.
void buildCPUPipeline(OpPassManager &pm);

/// Registers the named pipelines with the global pass registry.
void registerPipelines();

} // namespace pe
} // namespace mlir

#endif // PE_PIPELINES_PIPELINES_H
