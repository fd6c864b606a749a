//===- FuseRopeIntoAttention.cpp - RoPE applied inside attention ----------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/AttentionParts.h"
#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "pe-fuse-rope-into-attention"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_FUSEROPEINTOATTENTION
#include "pe/Dialect/PE/Transforms/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

namespace {
/// A pe.rope that the fused kernel can apply: offset positions and a single
/// user (the attention).
RopeOp getFusableRope(Value v) {
  auto rope = v.getDefiningOp<RopeOp>();
  if (!rope || rope.getPositions() || !rope->hasOneUse())
    return nullptr;
  return rope;
}

/// True when two ropes rotate with the same channels and frequencies.
bool sameRotation(RopeOp a, RopeOp b) {
  return a.getLayout() == b.getLayout() &&
         a.getRotaryDimOrHeadDim() == b.getRotaryDimOrHeadDim() &&
         a.getInvFreq() == b.getInvFreq() &&
         a.getCosCache() == b.getCosCache() &&
         a.getSinCache() == b.getSinCache() &&
         a.getAttentionScaling() == b.getAttentionScaling();
}

struct FuseRope : RewritePattern {
  FuseRope(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    std::optional<AttentionParts> parts = AttentionParts::get(op);
    if (!parts)
      return failure();
    if (parts->ropeLayout)
      return rewriter.notifyMatchFailure(op, "already rotates");
    if (parts->bias || parts->mask)
      return rewriter.notifyMatchFailure(op, "attention has a bias or mask");
    RopeOp qRope = getFusableRope(parts->query);
    if (!qRope)
      return rewriter.notifyMatchFailure(op, "query is not a fusable pe.rope");
    RopeOp kRope = parts->key.getDefiningOp<RopeOp>();
    if (kRope && (!getFusableRope(parts->key) || !sameRotation(qRope, kRope)))
      return rewriter.notifyMatchFailure(op, "key rope differs from query's");

    parts->query = qRope.getInput();
    parts->setQueryRope(qRope);
    if (kRope) {
      parts->key = kRope.getInput();
      parts->ropeKey = true;
      parts->kOffset = kRope.getOffset();
      parts->kStaticOffset = static_cast<int64_t>(kRope.getStaticOffset());
    }
    rewriter.replaceOp(op, parts->buildFused(rewriter, op->getLoc()));
    rewriter.eraseOp(qRope);
    if (kRope)
      rewriter.eraseOp(kRope);
    return success();
  }
};

struct FuseRopeIntoAttentionPass
    : public pe::impl::FuseRopeIntoAttentionBase<FuseRopeIntoAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFuseRopeIntoAttentionPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace

void mlir::pe::populateFuseRopeIntoAttentionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FuseRope>(patterns.getContext());
}
