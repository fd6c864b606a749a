//===- Roofline.h - Roofs timed next to a function's calls ------*- C++ -*-===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// `pe-run --repeat=N --roofline` compares each timed call of a memory-bound
// function with the plain memory operations that move the same bytes, timed
// right after it in the same process: a read of the bytes, and a copy of half
// of them into the other half (plain stores and streaming stores). The bytes
// are those of the function's tensor arguments and results, the traffic of a
// function that reads each input once and writes each result once. The caches
// are evicted before each timed call and before each roof, so both start from
// memory (a decode step of a real model finds its layer's KV cache there, not
// in the L3 where pe-run's copy of the pristine inputs would leave it).
//
// `pe-run --repeat=N --flops=F` compares each timed call of a compute-bound
// function that performs F floating-point operations with the compute roof:
// the host's FP32 multiply-add loop (pe/Runtime/FmaProbe.h), run right after
// the call on the same threads for about as long as the call took.
//
// Host memory bandwidth drifts with the other tenants of a shared machine by
// up to 1.5x within seconds, and so does the compute a vCPU gets when its
// host core's other hardware thread is busy; a ratio of a call and a roof
// measured milliseconds apart is far steadier than one of measurements
// seconds apart.
//
//===----------------------------------------------------------------------===//

#ifndef PE_TOOLS_PE_RUN_ROOFLINE_H
#define PE_TOOLS_PE_RUN_ROOFLINE_H

#include "pe/Runtime/FmaProbe.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace pe::run {

class Pool;

/// Buffers and threads for the roofs of a function moving `bytes` bytes
/// (0: the compute roof only).
class Roofline {
public:
  /// libomp's `__kmpc_fork_call`, when the process has loaded libomp.
  using ForkCall = void (*)(void *loc, int32_t argc, void *microtask, ...);

  /// Allocates the buffers (`bytes`, plus twice the last-level cache for the
  /// eviction; none when `bytes` is 0) and first-touches them. With `forkCall`,
  /// the roofs run on libomp's default team, the threads that run the compiled
  /// function's parallel loops (a separate pool would share the cores with
  /// libomp's workers, which spin for a while after each parallel region);
  /// otherwise on `threads` threads of a pool. Returns null when the memory
  /// is not available.
  /// The compute roof runs the FMA probe of `fmaIsa` (pe::rt::fmaProbe), or
  /// the host's widest when it is empty or this CPU lacks it.
  static std::unique_ptr<Roofline> create(int64_t bytes, int threads,
                                          ForkCall forkCall,
                                          const std::string &fmaIsa = "");
  ~Roofline();

  /// Evicts the caches: reads a buffer twice the last-level cache's size.
  void evict();

  /// The threads of a parallel region (libomp's team size when on libomp).
  int threads() const { return numThreads; }
  /// Whether the roofs run on libomp's team (else on pe-run's own threads).
  bool onOpenMP() const { return fork != nullptr; }

  /// Seconds to read `bytes` bytes, after an eviction.
  double readSeconds();
  /// The least seconds to read `bytes` bytes over 1, 2, 4 and 8 concurrent
  /// streams per thread, each after an eviction: the machine's best read of
  /// the same bytes (more streams keep more lines in flight on some
  /// machines, fewer suit the prefetchers on others).
  double bestReadSeconds();
  /// Seconds to copy the first `bytes / 2` bytes to the second half (so
  /// `bytes` bytes move), after an eviction; plain or streaming stores.
  double copySeconds(bool nonTemporal);

  int64_t bytes() const { return size; }

  /// FP32 operations per second of the host's multiply-add loop on the
  /// threads, each thread running it for about `seconds` (at least about a
  /// millisecond). Needs no buffers.
  double fmaFlopsPerSecond(double seconds);
  /// The vector width of that loop ("avx512", "avx2" or "generic").
  const char *fmaIsa() const { return probe.isa; }

  /// The pool's threads: OMP_NUM_THREADS when it holds a positive number
  /// (as libomp's default team), else the hardware threads.
  static int defaultThreads();

private:
  Roofline() = default;
  double timeParallel(const std::function<void(int)> &body);
  /// Seconds to read `bytes` of `buf` on the threads.
  double readAll(const char *buf, int64_t bytes);

  int64_t size = 0, evictSize = 0;
  int numThreads = 1;
  ForkCall fork = nullptr;
  char *data = nullptr, *evictBuf = nullptr;
  std::unique_ptr<Pool> pool;
  pe::rt::FmaProbe probe;
  /// Iterations of the probe's loop per second on one thread, from its last
  /// run (0 before the first).
  double fmaIterationsPerSecond = 0;
};

} // namespace pe::run

#endif // PE_TOOLS_PE_RUN_ROOFLINE_H
