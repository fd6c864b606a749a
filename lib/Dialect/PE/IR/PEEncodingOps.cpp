//===- PEEncodingOps.cpp - pe position encoding ops -----------------------===//
//
// Part of the pe-mlir project.
//
// The verifiers and canonicalization patterns of the ops that encode token
// positions: pe.add_sinusoidal, pe.add_learned, pe.rope and pe.alibi_bias.
// The rope checks shared with pe.attention's rope encoding and the position
// helpers are in PEOps.cpp (PEOpsUtils.h).
//
//===----------------------------------------------------------------------===//

#include "PEOpsUtils.h"
#include "pe/Dialect/PE/IR/PEOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::pe;
using namespace mlir::pe::detail;

//===----------------------------------------------------------------------===//
// AddSinusoidalOp
//===----------------------------------------------------------------------===//

LogicalResult AddSinusoidalOp::verify() {
  auto type = getInput().getType();
  if (failed(verifySequenceInput(*this, type, "input")) ||
      failed(verifyPositive(*this, "base", getBase().convertToDouble())))
    return failure();
  int64_t channels = type.getDimSize(type.getRank() - 1);
  if (channels == 0)
    return emitOpError("expects at least 1 channel");
  if (channels > kMaxSinusoidalChannels)
    return emitOpError("expects at most ")
           << kMaxSinusoidalChannels
           << " channels (the channel frequencies are computed at compile "
              "time), got "
           << channels;
  return verifyPositionArgs(*this, type, getOffset(), getPositions(),
                            static_cast<int64_t>(getStaticOffset()),
                            std::nullopt);
}

//===----------------------------------------------------------------------===//
// AddLearnedOp
//===----------------------------------------------------------------------===//

LogicalResult AddLearnedOp::verify() {
  auto type = getInput().getType();
  auto table = getTable().getType();
  if (failed(verifySequenceInput(*this, type, "input")))
    return failure();
  if (table.getRank() != 2)
    return emitOpError("expects a rank-2 table [P, C], got rank ")
           << table.getRank();
  if (table.getElementType() != type.getElementType())
    return emitOpError("expects the table element type ")
           << table.getElementType() << " to match the input element type "
           << type.getElementType();
  int64_t channels = type.getDimSize(type.getRank() - 1);
  if (!dimsCompatible(table.getDimSize(1), channels))
    return emitOpError("expects the table to have ")
           << channels << " columns, got " << dimStr(table.getDimSize(1));
  if (table.getDimSize(0) == 0)
    return emitOpError("expects a table with at least one row");
  return verifyPositionArgs(*this, type, getOffset(), getPositions(),
                            static_cast<int64_t>(getStaticOffset()),
                            table.getDimSize(0));
}

//===----------------------------------------------------------------------===//
// RopeOp
//===----------------------------------------------------------------------===//

Rotation RopeOp::getRotation() {
  return Rotation{getLayout(),   getRotaryDimOrHeadDim(),
                  getInvFreq(),  getCosCache(),
                  getSinCache(), getAttentionScaling()};
}

int64_t RopeOp::getRotaryDimOrHeadDim() {
  auto type = getInput().getType();
  if (std::optional<uint64_t> rotary = getRotaryDim())
    return static_cast<int64_t>(*rotary);
  return type.getDimSize(type.getRank() - 1);
}

LogicalResult RopeOp::verify() {
  auto type = getInput().getType();
  if (failed(verifySequenceInput(*this, type, "input")))
    return failure();
  int64_t rank = type.getRank();
  int64_t seqDim = getSequenceDimOrDefault();
  if (seqDim < 0 || seqDim >= rank - 1)
    return emitOpError("expects a sequence_dim in [0, ")
           << rank - 1 << ") (not the channel dimension), got " << seqDim;
  if (seqDim == 0 && getPositions() &&
      cast<RankedTensorType>(getPositions().getType()).getRank() == 2)
    return emitOpError("expects a sequence_dim other than 0 with [B, T] "
                       "positions (dimension 0 is their batch)");
  std::optional<int64_t> tableRows;
  if (failed(verifyRopeFrequencies(*this, type.getDimSize(type.getRank() - 1),
                                   getRotaryDimOrHeadDim(), !getRotaryDim(),
                                   getInvFreq(), getCosCache(), getSinCache(),
                                   tableRows)))
    return failure();
  if (hasPerTokenCaches()) {
    // cos[b, t, i]: one row per token of the input, no positions.
    auto cosType = getCosCache().getType();
    if (rank < 3)
      return emitOpError("expects an input of rank >= 3 ([B, ..., T, C]) "
                         "with per-token caches, got rank ")
             << rank;
    if (!dimsCompatible(cosType.getDimSize(0), type.getDimSize(0)) ||
        !dimsCompatible(cosType.getDimSize(1), type.getDimSize(seqDim)))
      return emitOpError("expects per-token caches of shape [")
             << dimStr(type.getDimSize(0)) << ", "
             << dimStr(type.getDimSize(seqDim))
             << ", rotary_dim / 2] (the input's batch and tokens), got "
             << cosType;
    if (getOffset() || getPositions() ||
        static_cast<int64_t>(getStaticOffset()) != 0)
      return emitOpError("expects no positions or offsets with per-token "
                         "caches (each token has its own row)");
    return success();
  }
  return verifyPositionArgs(*this, type, getOffset(), getPositions(),
                            static_cast<int64_t>(getStaticOffset()), tableRows,
                            seqDim);
}

//===----------------------------------------------------------------------===//
// AlibiBiasOp
//===----------------------------------------------------------------------===//

LogicalResult AlibiBiasOp::verify() {
  auto type = getResult().getType();
  if (type.getRank() != 3)
    return emitOpError("expects a rank-3 result [H, Tq, Tk], got rank ")
           << type.getRank();
  if (type.isDynamicDim(0))
    return emitOpError("expects a static head count");
  int64_t heads = type.getDimSize(0);
  if (heads <= 0)
    return emitOpError("expects at least one head");
  if (!getSlopes() && heads > kMaxAlibiHeads)
    return emitOpError("expects at most ")
           << kMaxAlibiHeads
           << " heads without a slopes operand (the slopes are computed at "
              "compile time), got "
           << heads;
  if (getDynamicSizes().size() != type.getNumDynamicDims())
    return emitOpError("expects ")
           << type.getNumDynamicDims()
           << " dynamic size operands (one per dynamic dimension), got "
           << getDynamicSizes().size();
  if (static_cast<int64_t>(getStaticOffset()) < 0)
    return emitOpError("expects a non-negative static_offset, got ")
           << static_cast<int64_t>(getStaticOffset());
  if (auto slopes = getSlopes()) {
    int64_t n = slopes.getType().getDimSize(0);
    if (n == 0)
      return emitOpError("expects a non-empty slopes tensor");
    if (!dimsCompatible(n, heads))
      return emitOpError("expects one slope per head (")
             << heads << "), got " << n;
    return success();
  }
  return verifyPositive(*this, "max_bias", getMaxBias().convertToDouble());
}

//===----------------------------------------------------------------------===//
// Canonicalization
//===----------------------------------------------------------------------===//

namespace {
/// A sequence op's constant `offset` operand becomes part of `static_offset`,
/// unless the positions it then reads statically fall outside a table (the
/// verifier's error; a run-time offset is clamped instead).
template <typename OpTy> struct FoldConstantOffset : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> offset =
        foldOffset(op.getOffset(), static_cast<int64_t>(op.getStaticOffset()));
    if (!offset)
      return failure();
    if (std::optional<int64_t> rows = getTableRows(op)) {
      auto type = cast<RankedTensorType>(op->getOperand(0).getType());
      int64_t seqDim = type.getRank() - 2;
      if (auto rope = dyn_cast<RopeOp>(op.getOperation()))
        seqDim = rope.getSequenceDimOrDefault();
      int64_t seqLen = type.getDimSize(seqDim);
      int64_t end;
      if (!ShapedType::isDynamic(*rows) &&
          (ShapedType::isDynamic(seqLen) ||
           llvm::AddOverflow(*offset, seqLen, end) || end > *rows))
        return failure();
    }
    rewriter.modifyOpInPlace(op, [&] {
      op.getOffsetMutable().clear();
      op.setStaticOffset(*offset);
    });
    return success();
  }

  static std::optional<int64_t> getTableRows(Operation *op) {
    if (auto learned = dyn_cast<AddLearnedOp>(op))
      return learned.getTable().getType().getDimSize(0);
    if (auto rope = dyn_cast<RopeOp>(op))
      if (Value cos = rope.getCosCache())
        return cast<RankedTensorType>(cos.getType()).getDimSize(0);
    return std::nullopt;
  }
};

/// pe.rope's constant attention scaling of exactly 1 is dropped.
struct DropUnitRopeScaling : OpRewritePattern<RopeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RopeOp op,
                                PatternRewriter &rewriter) const override {
    if (!isConstantOne(op.getAttentionScaling()))
      return failure();
    rewriter.modifyOpInPlace(op,
                             [&] { op.getAttentionScalingMutable().clear(); });
    return success();
  }
};

/// A pe.rope whose positions tensor is a constant arange `p0 + t` takes
/// `static_offset = p0` instead (where a cache holds those rows).
struct FoldArangeRopePositions : OpRewritePattern<RopeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(RopeOp op,
                                PatternRewriter &rewriter) const override {
    std::optional<int64_t> first = matchArangePositions(op.getPositions());
    if (!first)
      return failure();
    std::optional<int64_t> rows;
    if (Value cos = op.getCosCache())
      rows = cast<RankedTensorType>(cos.getType()).getDimSize(0);
    if (!ropePositionsFit(
            rows, *first,
            op.getInput().getType().getDimSize(op.getSequenceDimOrDefault())))
      return failure();
    rewriter.modifyOpInPlace(op, [&] {
      op.getPositionsMutable().clear();
      op.setStaticOffset(*first);
    });
    return success();
  }
};
} // namespace

void AddSinusoidalOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                                  MLIRContext *context) {
  results.add<FoldConstantOffset<AddSinusoidalOp>>(context);
}

void AddLearnedOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                               MLIRContext *context) {
  results.add<FoldConstantOffset<AddLearnedOp>>(context);
}

void RopeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                         MLIRContext *context) {
  results.add<FoldConstantOffset<RopeOp>, DropUnitRopeScaling,
              FoldArangeRopePositions>(context);
}

void AlibiBiasOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<FoldConstantOffset<AlibiBiasOp>>(context);
}
