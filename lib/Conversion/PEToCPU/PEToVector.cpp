//===- PEToVector.cpp - generated CPU kernels for pe ops ------------------===//
//
// Part of the pe-mlir project.
//
// The pass convert-pe-to-vector: checks its options, looks up the module's
// CPU target and applies populatePEToVectorPatterns once per op. The
// kernels, one file each: AttentionPrefill.cpp (a flash-attention kernel
// for each supported pe.attention, specialised at compile time for its
// encodings), AttentionDecode.cpp (one query per head), Rope.cpp and
// Sinusoidal.cpp (standalone pe.rope and pe.add_sinusoidal); their
// building blocks in KernelBuilder.h.
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/PEToCPU/PEToVector.h"

#include "KernelBuilder.h"
#include "pe/Conversion/Passes.h"
#include "pe/Support/OptionRanges.h"

#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include <limits>

#define DEBUG_TYPE "convert-pe-to-vector"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_CONVERTPETOVECTOR
#include "pe/Conversion/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

void mlir::pe::populatePEToVectorPatterns(RewritePatternSet &patterns,
                                          const PEToVectorOptions &options) {
  cpu::populateDecodeAttentionPattern(patterns, options);
  cpu::populatePrefillAttentionPattern(patterns, options);
  cpu::populateRopePattern(patterns, options);
  cpu::populateSinusoidalPattern(patterns, options);
}

namespace {

struct ConvertPEToVectorPass
    : public pe::impl::ConvertPEToVectorBase<ConvertPEToVectorPass> {
  using ConvertPEToVectorBase::ConvertPEToVectorBase;

  /// The integer options: byte counts and pass counts, at least 0, where 0
  /// means the note.
  static ArrayRef<IntegerOptionRange> optionRanges() {
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    static const IntegerOptionRange ranges[] = {
        {"decode-prefetch-bytes", 0, kMax, " (0: no prefetch)"},
        {"decode-prefetch-min-ops", 0, kMax, " (0: every pass prefetches)"},
        {"decode-prefetch-l2-min-ops", 0, kMax, " (0: every pass into the L2)"},
        {"stack-scratch-bytes", 0, kMax, " (0: all scratch on the heap)"},
    };
    return ranges;
  }

  /// Checks the integer options' text before LLVM's option parser reads it
  /// (which reports a value the type cannot hold without an `error:`).
  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (std::optional<std::string> error =
            checkIntegerOptionText(getArgument(), options, optionRanges()))
      return errorHandler(*error);
    return Base::initializeOptions(options, errorHandler);
  }

  void runOnOperation() override {
    StringRef category = getArgument();
    // (Also where the options were set in C++, e.g. by pe-cpu-pipeline.)
    const int64_t values[] = {decodePrefetchBytes, decodePrefetchMinOps,
                              decodePrefetchL2MinOps, stackScratchBytes};
    for (auto [range, value] : llvm::zip_equal(optionRanges(), values))
      if (std::optional<std::string> error =
              checkIntegerOption(category, range, value)) {
        getOperation()->emitError() << *error;
        return signalPassFailure();
      }
    bool anyKernel = getOperation()
                         ->walk([](Operation *op) {
                           return isa<AttentionOp, RopeOp, AddSinusoidalOp>(op)
                                      ? WalkResult::interrupt()
                                      : WalkResult::advance();
                         })
                         .wasInterrupted();
    if (!anyKernel)
      return;
    // The vector width and the feature-gated paths come from the module's
    // target (CPUTarget.h), never from the machine running the pass.
    FailureOr<CPUTarget> target = lookupCPUTarget(getOperation());
    if (failed(target))
      return signalPassFailure();
    PEToVectorOptions options;
    options.target = *target;
    options.decodePrefetchBytes = decodePrefetchBytes;
    options.decodePrefetchMinOps = decodePrefetchMinOps;
    options.decodePrefetchL2MinOps = decodePrefetchL2MinOps;
    options.stackScratchBytes = stackScratchBytes;
    RewritePatternSet patterns(&getContext());
    populatePEToVectorPatterns(patterns, options);
    // One visit per op: each refusal's remark is emitted once.
    walkAndApplyPatterns(getOperation(), std::move(patterns));
  }
};

} // namespace
