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
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
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

/// An arith or math op on whole tensors (TOSA and Buddy frontends leave
/// these), which the tracer treats as an opaque leaf.
static bool isTensorLevelElementwise(Operation *op) {
  if (!op->hasTrait<OpTrait::Elementwise>() ||
      !isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
      isa<arith::ConstantOp>(op))
    return false;
  return llvm::any_of(op->getResultTypes(),
                      [](Type t) { return isa<RankedTensorType>(t); });
}

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

    // Explaining the misses traces every candidate again: only when remarks
    // are collected.
    if (!getContext().getRemarkEngine())
      return;
    getOperation()->walk([&](Operation *op) {
      if (isTensorLevelElementwise(op))
        emitMissedRemark(
            op, getArgument(), "tensor-level-op",
            "the tracer looks into elementwise computations of linalg ops "
            "only, so this '" +
                op->getName().getStringRef().str() +
                "' on whole tensors ends every trace through it; run "
                "pe-raise-pipeline (convert-elementwise-to-linalg, then "
                "pe-raise) instead");
      std::string why = raise::whyRopeNotRaised(op, options);
      if (!why.empty())
        emitMissedRemark(op, getArgument(), "rope-not-raised", why);
      why = raise::whyAbsoluteNotRaised(op, options);
      if (!why.empty())
        emitMissedRemark(op, getArgument(), "absolute-not-raised", why);
      why = raise::whyAttentionNotRaised(op, options);
      if (!why.empty())
        emitMissedRemark(op, getArgument(), "attention-not-raised", why);
    });
  }
};
} // namespace
