//===- FoldAttentionScaling.cpp - RoPE mscale into the softmax scale ------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cmath>

#define DEBUG_TYPE "pe-fold-attention-scaling"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_FOLDATTENTIONSCALING
#include "pe/Dialect/PE/Transforms/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

namespace {
struct FoldScaling : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Value scaling = op.getAttentionScaling();
    FloatAttr m;
    if (!scaling || !matchPattern(scaling, m_Constant(&m)))
      return rewriter.notifyMatchFailure(op, "no constant attention scaling");
    if (op.getRotation()->rotaryDim != op.getQuery().getType().getDimSize(3))
      return rewriter.notifyMatchFailure(
          op, "partial rotary: pass-through channels are not scaled");
    double factor = m.getValueAsDouble();
    double scale =
        op.getScaleOrDefault() * factor * (op.rotatesKey() ? factor : 1.0);
    if (!std::isfinite(scale) || scale == 0.0)
      return rewriter.notifyMatchFailure(
          op, "the folded scale would not be finite and non-zero");
    rewriter.modifyOpInPlace(op, [&] {
      op.getAttentionScalingMutable().clear();
      op.setScaleAttr(rewriter.getF64FloatAttr(scale));
    });
    return success();
  }
};

struct FoldAttentionScalingPass
    : public pe::impl::FoldAttentionScalingBase<FoldAttentionScalingPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFoldAttentionScalingPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace

void mlir::pe::populateFoldAttentionScalingPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FoldScaling>(patterns.getContext());
}
