//===- PEToVector.h - generated CPU kernels as patterns ---------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
// The kernels of convert-pe-to-vector as rewrite patterns, for a host that
// adds them to its own pattern set: pe.attention (prefill and decode),
// pe.rope and pe.add_sinusoidal become scf/vector/memref kernels for a
// given CPU target. A pattern that does not apply emits a missed remark in
// category `convert-pe-to-vector` naming the reason, and leaves the op to
// convert-pe-to-linalg. The kernels are built in one visit per op
// (walkAndApplyPatterns, as the pass does, emits each remark once; a
// greedy driver that revisits an op repeats its remark).
//
//===----------------------------------------------------------------------===//

#ifndef PE_CONVERSION_PETOCPU_PETOVECTOR_H
#define PE_CONVERSION_PETOCPU_PETOVECTOR_H

#include "pe/Conversion/PEToCPU/CPUTarget.h"

#include <cstdint>

namespace mlir {
class RewritePatternSet;
namespace pe {

/// What the kernels are built for: the target (lookupCPUTarget or
/// resolveCPUTarget) and the integer options of convert-pe-to-vector, with
/// its defaults (see docs/Passes.md). The integers are at least 0 (the pass
/// checks its options; a negative value reads as 0).
struct PEToVectorOptions {
  CPUTarget target;
  /// Decode kernel: prefetch distance of the K and V cache rows in bytes;
  /// 0: no software prefetch.
  int64_t decodePrefetchBytes = 8192;
  /// Decode kernel: a pass prefetches only if it runs at least this many
  /// vector operations per 64-byte line.
  int64_t decodePrefetchMinOps = 2;
  /// Decode kernel: a pass prefetches into the L2 if it runs at least this
  /// many vector operations per 64-byte line, else into the L1.
  int64_t decodePrefetchL2MinOps = 8;
  /// Attention kernels: bytes of one task's scratch buffers that may go on
  /// the stack; 0: all on the heap.
  int64_t stackScratchBytes = 131072;
};

/// Adds the patterns of the generated kernels: decode attention (one query
/// per head, no bias or mask; ahead of prefill by benefit), prefill
/// attention, pe.rope and pe.add_sinusoidal.
void populatePEToVectorPatterns(RewritePatternSet &patterns,
                                const PEToVectorOptions &options);

} // namespace pe
} // namespace mlir

#endif // PE_CONVERSION_PETOCPU_PETOVECTOR_H
