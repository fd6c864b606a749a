//===- Raise.cpp - pe-raise: frontend linalg IR to pe ops -----------------===//
//
// Part of the pe-mlir project.
//
// Applies the rope patterns, then the attention patterns (whose queries and
// keys must be pe.rope results by then), each with one greedy driver; then
// reports, as missed remarks in category `pe-raise`, the computations that
// came close to a pe op but were not raised, and why.
//
//===----------------------------------------------------------------------===//

#include "RaiseTrace.h"

#include "pe/Dialect/PE/IR/PEDialect.h"
#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_RAISE
#include "pe/Dialect/PE/Transforms/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

namespace {
struct RaisePass : pe::impl::RaiseBase<RaisePass> {
  using RaiseBase::RaiseBase;

  void runOnOperation() override {
    RaiseOptions options;
    options.assumeDuplicatedTables = assumeDuplicatedTables;
    options.recoverScaling = recoverScaling;
    options.tolerance = tolerance;
    if (!(tolerance >= 0 && tolerance < 1)) {
      getOperation()->emitError("pe-raise: tolerance must be in [0, 1), got ")
          << tolerance;
      return signalPassFailure();
    }

    RewritePatternSet rope(&getContext());
    populateRaiseRopePatterns(rope, options);
    populateRaiseAbsoluteEncodingPatterns(rope, options);
    if (failed(applyPatternsGreedily(getOperation(), std::move(rope))))
      return signalPassFailure();
    RewritePatternSet attention(&getContext());
    populateRaiseAttentionPatterns(attention, options);
    if (failed(applyPatternsGreedily(getOperation(), std::move(attention))))
      return signalPassFailure();

    getOperation()->walk([&](Operation *op) {
      std::string why = raise::whyRopeNotRaised(op, options);
      if (!why.empty())
        emitMissedRemark(op, getArgument(), "rope-not-raised", why);
      why = raise::whyAttentionNotRaised(op, options);
      if (!why.empty())
        emitMissedRemark(op, getArgument(), "attention-not-raised", why);
    });
  }
};
} // namespace
