//===- PEToGPU.h - GPU kernels for pe ops -----------------------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#ifndef PE_CONVERSION_PETOGPU_PETOGPU_H
#define PE_CONVERSION_PETOGPU_PETOGPU_H

#include <cstdint>
#include <string>

namespace mlir {
class RewritePatternSet;
namespace pe {

/// How f16/bf16 attention uses tensor cores (convert-pe-to-gpu{tensor-cores}).
enum class GPUTensorCores { Auto, Off, Emulate };

/// What the GPU kernels may assume of the target: the options of
/// convert-pe-to-gpu (docs/Passes.md), range-checked by the pass.
struct GPUKernelOptions {
  /// Threads per block of the attention kernels (query rows of the SIMT
  /// kernel, threads of the decode kernel and of the split combine).
  int64_t blockRows = 64;
  /// Keys per K/V tile: the largest a kernel takes (each kernel fits its
  /// tile to `sharedMemoryBytes`).
  int64_t keyTile = 32;
  /// Static workgroup memory a kernel may use.
  int64_t sharedMemoryBytes = 49152;
  /// Threads per block of the RoPE and sinusoidal kernels.
  int64_t ropeBlock = 128;
  /// Keys per split of a decode attention's key range (split-KV); 0: none.
  int64_t decodeSplitKeys = 128;
  bool allowF16 = true;
  bool allowBF16 = true;
  /// Kernels take static-size buffers only (no kernel for dynamic shapes).
  bool staticBuffersOnly = false;
  GPUTensorCores tensorCores = GPUTensorCores::Auto;
  /// The NVVM chip (`sm_80`), empty if the target is not NVVM.
  std::string chip;
};

/// Patterns that replace pe.attention, pe.rope and pe.add_sinusoidal by
/// `gpu.launch` kernels on memrefs (lib/Conversion/PEToGPU, one kernel per
/// file): for attention the tensor-core (mma.sync) kernel, the decode kernel
/// (with its split combine) and the SIMT kernel, tried in that order; a
/// kernel that does not apply emits a missed remark naming why. Each op is
/// meant to be rewritten once (walkAndApplyPatterns): the kernels contain no
/// pe ops, and a refused op keeps its reference lowering.
void populatePEToGPUPatterns(RewritePatternSet &patterns,
                             const GPUKernelOptions &options);

} // namespace pe
} // namespace mlir

#endif // PE_CONVERSION_PETOGPU_PETOGPU_H
