//===- FrequencyWidening.cpp - f64 tables for frequency ops that rotate ---===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// A pe.rope (or a pe.attention rope encoding) whose inv_freq is a result of a
// frequency op forms its angles from that op's exact value, not from the
// value rounded to the result element type (PEOps.td). When every use of an
// f32 table is such an inv_freq operand, the op is replaced by a clone with
// an f64 table, which is that exact value (to f64) and which the lowerings
// and kernels read as is. The pattern is a canonicalization of every
// frequency op; the folders leave such an op alone, so that --canonicalize
// widens it first and then folds the f64 clone.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/IR/PEOps.h"

#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace mlir::pe;

#include "pe/Dialect/PE/IR/PEInterfaces.cpp.inc"

bool mlir::pe::isFrequencyOp(Operation *op) {
  return isa<FrequencyOpInterface>(op);
}

/// True when `use` is the inv_freq operand of a pe.rope or pe.attention.
static bool isRopeFrequencyOperand(OpOperand &use) {
  Operation *owner = use.getOwner();
  auto isOperand = [&](MutableOperandRange range) {
    return range.size() == 1 && &range[0] == &use;
  };
  if (auto rope = dyn_cast<RopeOp>(owner))
    return isOperand(rope.getInvFreqMutable());
  if (auto attention = dyn_cast<AttentionOp>(owner))
    return isOperand(attention.getInvFreqMutable());
  return false;
}

bool mlir::pe::needsWideRopeTable(Operation *op) {
  if (!isFrequencyOp(op))
    return false;
  Value table = op->getResult(0);
  auto type = cast<RankedTensorType>(table.getType());
  if (!type.getElementType().isF32() || table.use_empty())
    return false;
  return llvm::all_of(table.getUses(), isRopeFrequencyOperand);
}

namespace {
/// Replaces a frequency op with needsWideRopeTable by a clone whose inv_freq
/// result is f64 (every consumer accepts f32 and f64 tables).
struct WidenRopeFrequencyTable : RewritePattern {
  explicit WidenRopeFrequencyTable(MLIRContext *context)
      : RewritePattern(MatchInterfaceOpTypeTag(),
                       TypeID::get<FrequencyOpInterface>(), /*benefit=*/1,
                       context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    if (!needsWideRopeTable(op))
      return rewriter.notifyMatchFailure(op, "not an f32 table used only "
                                             "as rope frequencies");
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    Operation *wide = rewriter.clone(*op);
    rewriter.modifyOpInPlace(wide, [&] {
      wide->getResult(0).setType(type.clone(rewriter.getF64Type()));
    });
    rewriter.replaceOp(op, wide->getResults());
    return success();
  }
};
} // namespace

void mlir::pe::addWidenRopeFrequencyTablePattern(RewritePatternSet &patterns) {
  patterns.add<WidenRopeFrequencyTable>(patterns.getContext());
}
