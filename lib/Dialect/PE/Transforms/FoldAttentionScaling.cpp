//===- FoldAttentionScaling.cpp - RoPE mscale into the softmax scale ------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/AttentionParts.h"
#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

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
struct FoldScaling : OpRewritePattern<FusedAttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(FusedAttentionOp op,
                                PatternRewriter &rewriter) const override {
    Value scaling = op.getAttentionScaling();
    FloatAttr m;
    if (!scaling || !matchPattern(scaling, m_Constant(&m)))
      return rewriter.notifyMatchFailure(op, "no constant attention scaling");
    if (op.getRotaryDimOrHeadDim() != op.getQuery().getType().getDimSize(3))
      return rewriter.notifyMatchFailure(
          op, "partial rotary: pass-through channels are not scaled");
    double factor = m.getValueAsDouble();
    AttentionParts parts = AttentionParts::get(op);
    parts.attentionScaling = Value();
    parts.scale = op.getScaleOrDefault() * factor * (op.getRopeKey() ? factor : 1.0);
    rewriter.replaceOp(op, parts.buildFused(rewriter, op.getLoc()));
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
