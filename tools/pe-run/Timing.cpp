//===- Timing.cpp - pe-run --repeat, --roofline and --flops ---------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "Harness.h"
#include "Roofline.h"

#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/Format.h"

#include <algorithm>

using namespace mlir;
using namespace ::pe::run;
using llvm::Twine;

namespace pe::run {

static double medianOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

FailureOr<Timing> timeCalls(Invocation &inv, const Compiled &c, int runs,
                            bool roofline, double flops) {
  if (failed(inv.call(c.fn, nullptr, nullptr))) // warm-up
    return failure();
  std::unique_ptr<::pe::run::Roofline> roof;
  if (roofline || flops > 0) {
    // The compiled code's OpenMP runtime, when the JIT has loaded it.
    auto fork = reinterpret_cast<::pe::run::Roofline::ForkCall>(
        llvm::sys::DynamicLibrary::SearchForAddressOfSymbol(
            "__kmpc_fork_call"));
    roof = Roofline::create(roofline ? inv.tensorBytes() : 0,
                            Roofline::defaultThreads(), fork, c.fmaIsa);
    if (!roof)
      return error("--roofline: out of memory allocating the roofs' buffers "
                   "for " +
                   Twine(inv.tensorBytes()) + " bytes");
  }
  std::vector<double> ms(runs), readGbs, copyGbs, copyNtGbs, callGbs,
      readFraction, copyFraction, bestReadGbs, bestReadFraction, callGflops,
      peakGflops, peakFraction;
  for (int i = 0; i < runs; ++i) {
    if (failed(
            inv.call(c.fn, nullptr, &ms[i], roofline ? roof.get() : nullptr)))
      return failure();
    double call = ms[i] * 1e-3;
    if (flops > 0) {
      // As long as the call took, so that both see the same share of the
      // host; first, while the call's threads are still awake.
      double peak = roof->fmaFlopsPerSecond(call);
      callGflops.push_back(flops * 1e-9 / call);
      peakGflops.push_back(peak * 1e-9);
      peakFraction.push_back(flops / call / peak);
    }
    if (!roofline)
      continue;
    double read = roof->readSeconds(),
           copy = roof->copySeconds(/*nonTemporal=*/false),
           copyNt = roof->copySeconds(/*nonTemporal=*/true),
           bestRead = roof->bestReadSeconds();
    // The roofs move the bytes rounded up to whole pairs of cache lines.
    double gb = double(roof->bytes()) * 1e-9;
    readGbs.push_back(gb / read);
    copyGbs.push_back(gb / copy);
    copyNtGbs.push_back(gb / copyNt);
    callGbs.push_back(double(inv.tensorBytes()) * 1e-9 / call);
    readFraction.push_back(read / call);
    copyFraction.push_back(std::min(copy, copyNt) / call);
    bestReadGbs.push_back(gb / bestRead);
    bestReadFraction.push_back(bestRead / call);
  }
  Timing t;
  t.minMs = *std::min_element(ms.begin(), ms.end());
  t.medianMs = medianOf(ms);
  llvm::outs() << "pe-run: time pipeline=" << c.pipeline << " runs=" << runs
               << llvm::format(" min_ms=%.6f median_ms=%.6f", t.minMs,
                               t.medianMs)
               << "\n";
  if (roofline)
    llvm::outs() << "pe-run: roofline pipeline=" << c.pipeline
                 << " bytes=" << inv.tensorBytes()
                 << " threads=" << roof->threads()
                 << (roof->onOpenMP() ? " team=libomp" : " team=pool")
                 << llvm::format(" call_gbs=%.2f read_gbs=%.2f copy_gbs=%.2f "
                                 "copy_nt_gbs=%.2f read_fraction=%.3f "
                                 "copy_fraction=%.3f",
                                 medianOf(callGbs), medianOf(readGbs),
                                 medianOf(copyGbs), medianOf(copyNtGbs),
                                 medianOf(readFraction), medianOf(copyFraction))
                 << llvm::format(" best_read_gbs=%.2f best_read_fraction=%.3f",
                                 medianOf(bestReadGbs),
                                 medianOf(bestReadFraction))
                 << "\n";
  if (flops > 0)
    llvm::outs() << "pe-run: flops pipeline=" << c.pipeline
                 << llvm::format(" flops=%.0f", flops)
                 << " threads=" << roof->threads()
                 << (roof->onOpenMP() ? " team=libomp" : " team=pool")
                 << " isa=" << roof->fmaIsa()
                 << llvm::format(" call_gflops=%.2f peak_gflops=%.2f "
                                 "peak_fraction=%.3f",
                                 medianOf(callGflops), medianOf(peakGflops),
                                 medianOf(peakFraction))
                 << "\n";
  return t;
}

} // namespace pe::run
