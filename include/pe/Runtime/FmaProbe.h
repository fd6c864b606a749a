//===- FmaProbe.h - The host's FP32 multiply-add peak -----------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// A loop of independent FP32 multiply-adds in the widest vectors the host
// runs, the compute roof of `pe-bench peak` and `pe-run --flops`. The loop
// keeps 12 accumulators (a multiply-add's latency times the number of FMA
// units is at most 8 vectors on the x86 cores of today), so it runs at the
// FMA units' throughput. The width is chosen at run time from the CPU's
// features (AVX-512F, else AVX2 with FMA, else 16-byte vectors) because the
// tools are compiled for a generic target while the code they measure is
// compiled for the host.
//
//===----------------------------------------------------------------------===//

#ifndef PE_RUNTIME_FMAPROBE_H
#define PE_RUNTIME_FMAPROBE_H

#include <cstdint>

namespace pe::rt {

struct FmaProbe {
  /// Runs `iterations` of the loop; the result only keeps it from being
  /// removed.
  float (*loop)(int64_t iterations, float seed) = nullptr;
  /// FP32 operations per iteration (a multiply-add counts 2 per lane).
  double flopsPerIteration = 0;
  /// The vector width the loop runs: "avx512", "avx2" or "generic".
  const char *isa = "";
};

/// The probe for the CPU this process runs on: the widest vectors it has.
FmaProbe hostFmaProbe();

/// The probe in the vectors of `isa` ("avx512", "avx2" or "generic"), for
/// the peak of code compiled for a narrower target than the host (an AVX2
/// target on an AVX-512 machine); an empty `loop` when this CPU cannot run
/// it or `isa` is unknown.
FmaProbe fmaProbe(const char *isa);

} // namespace pe::rt

#endif // PE_RUNTIME_FMAPROBE_H
