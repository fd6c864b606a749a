//===- FuseAlibiIntoAttention.cpp - ALiBi computed inside attention -------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/AttentionParts.h"
#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "pe-fuse-alibi-into-attention"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_FUSEALIBIINTOATTENTION
#include "pe/Dialect/PE/Transforms/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

namespace {
/// attention(q, k, v, bias = alibi_bias(...)) -> fused_attention(... alibi).
struct FuseAlibi : RewritePattern {
  FuseAlibi(MLIRContext *ctx)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, ctx) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    auto attention = dyn_cast<AttentionOp>(op);
    if (!attention)
      return failure();
    AttentionParts parts = AttentionParts::get(attention);
    auto alibi = parts.bias ? parts.bias.getDefiningOp<AlibiBiasOp>() : nullptr;
    if (!alibi)
      return rewriter.notifyMatchFailure(op, "bias is not a pe.alibi_bias");
    if (parts.mask)
      return rewriter.notifyMatchFailure(op, "attention has a mask");
    if (!alibi->hasOneUse())
      return rewriter.notifyMatchFailure(op, "the bias has other users");
    if (alibi.getSlopes())
      return rewriter.notifyMatchFailure(op, "explicit slopes");
    auto biasType = alibi.getResult().getType();
    auto qType = attention.getQuery().getType();
    if (qType.isDynamicDim(1) || biasType.getDimSize(0) != qType.getDimSize(1))
      return rewriter.notifyMatchFailure(op, "head counts differ");
    // The verifier ensures Tq/Tk agree where static; the fused op takes them
    // from Q and K, which is what a broadcast-free [H, Tq, Tk] bias has.
    if (biasType.getDimSize(1) == 1 && qType.getDimSize(2) != 1)
      return rewriter.notifyMatchFailure(op, "bias broadcasts over queries");
    parts.bias = Value();
    parts.alibi = alibi.getDistance();
    parts.alibiMaxBias = alibi.getMaxBias().convertToDouble();
    parts.alibiOffset = alibi.getOffset();
    parts.alibiStaticOffset = static_cast<int64_t>(alibi.getStaticOffset());
    rewriter.replaceOp(op, parts.buildFused(rewriter, op->getLoc()));
    rewriter.eraseOp(alibi);
    return success();
  }
};

struct FuseAlibiIntoAttentionPass
    : public pe::impl::FuseAlibiIntoAttentionBase<FuseAlibiIntoAttentionPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFuseAlibiIntoAttentionPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace

void mlir::pe::populateFuseAlibiIntoAttentionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FuseAlibi>(patterns.getContext());
}
