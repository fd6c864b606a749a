//===- FoldAttentionLayout.cpp - head/sequence transposes into bshd -------===//
//
// Part of the pe-mlir project.
//
// pe-fold-attention-layout: a bhsd pe.attention whose query, key and value
// are [0, 2, 1, 3] transposes becomes a bshd attention on the transposes'
// sources; uses of its result that transpose it back read the new result
// directly. The kernels of either layout read their operands in place, so
// the fold removes a pass over memory per transpose.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#define DEBUG_TYPE "pe-fold-attention-layout"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_FOLDATTENTIONLAYOUT
#include "pe/Dialect/PE/Transforms/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

namespace {

/// The permutation between the bhsd and the bshd layout (its own inverse).
constexpr int64_t kHeadsSequenceSwap[] = {0, 2, 1, 3};

/// The source of `op` when it is a transpose by kHeadsSequenceSwap (a
/// linalg.transpose or a linalg.generic that is one), else null.
Value swapSource(Operation *op) {
  if (auto t = dyn_cast_or_null<linalg::TransposeOp>(op))
    return llvm::equal(t.getPermutation(), kHeadsSequenceSwap) ? t.getInput()
                                                               : Value();
  if (auto g = dyn_cast_or_null<linalg::GenericOp>(op)) {
    std::optional<SmallVector<int64_t>> perm =
        linalg::isaTransposeOpInterface(g);
    if (perm && llvm::equal(*perm, kHeadsSequenceSwap))
      return g.getDpsInputs().front();
  }
  return {};
}

/// The sources of the transposed query, key and value of a bhsd `op`; fails
/// with `reason` (empty when there is nothing to report: no transposed
/// operand, or a bshd op) otherwise.
FailureOr<SmallVector<Value, 3>> matchSwappedOperands(AttentionOp op,
                                                      std::string &reason) {
  reason.clear();
  if (op.getLayout() != AttentionLayout::BHSD)
    return failure();
  SmallVector<Value, 3> sources;
  SmallVector<StringRef> plain;
  StringRef names[] = {"query", "key", "value"};
  Value operands[] = {op.getQuery(), op.getKey(), op.getValue()};
  for (auto [name, operand] : llvm::zip_equal(names, operands)) {
    Value source = swapSource(operand.getDefiningOp());
    if (!source)
      plain.push_back(name);
    sources.push_back(source);
  }
  if (plain.empty())
    return sources;
  if (plain.size() < 3)
    reason = "the " + llvm::join(plain, " and ") +
             " of this attention are not [0, 2, 1, 3] transposes like the "
             "other operands; one layout (bshd) would need all three";
  return failure();
}

struct FoldSwappedOperands : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    std::string reason;
    FailureOr<SmallVector<Value, 3>> sources = matchSwappedOperands(op, reason);
    if (failed(sources))
      return rewriter.notifyMatchFailure(
          op, reason.empty() ? "no [0, 2, 1, 3] transposed operands" : reason);

    Location loc = op.getLoc();
    auto oldType = cast<RankedTensorType>(op.getResult().getType());
    auto newType = RankedTensorType::get(
        applyPermutation(oldType.getShape(), kHeadsSequenceSwap),
        oldType.getElementType(), oldType.getEncoding());
    Value init =
        AttentionOp::buildInits(rewriter, loc, newType, Type(), (*sources)[0],
                                (*sources)[2], AttentionLayout::BSHD)
            .front();
    auto folded = cast<AttentionOp>(rewriter.clone(*op));
    rewriter.modifyOpInPlace(folded, [&] {
      folded.getQueryMutable().assign((*sources)[0]);
      folded.getKeyMutable().assign((*sources)[1]);
      folded.getValueMutable().assign((*sources)[2]);
      folded.getOutInitMutable().assign(init);
      folded.setLayout(AttentionLayout::BSHD);
      folded.getResult().setType(newType);
    });

    // Uses that swap the result back read the folded result; the others a
    // transpose of it, built once.
    Value back;
    for (OpOperand &use :
         llvm::make_early_inc_range(op.getResult().getUses())) {
      Operation *user = use.getOwner();
      if (swapSource(user) == op.getResult() && user->getNumResults() == 1 &&
          user->getResult(0).getType() == newType) {
        rewriter.replaceOp(user, folded.getResult());
        continue;
      }
      if (!back) {
        OpBuilder::InsertionGuard guard(rewriter);
        rewriter.setInsertionPointAfter(folded);
        SmallVector<OpFoldResult> sizes =
            tensor::getMixedSizes(rewriter, loc, folded.getResult());
        Value empty = tensor::EmptyOp::create(
            rewriter, loc, applyPermutation(sizes, kHeadsSequenceSwap),
            oldType.getElementType(), oldType.getEncoding());
        back = linalg::TransposeOp::create(rewriter, loc, folded.getResult(),
                                           empty, kHeadsSequenceSwap)
                   ->getResult(0);
      }
      rewriter.modifyOpInPlace(user, [&] { use.set(back); });
    }
    if (Value lse = op.getLse())
      rewriter.replaceAllUsesWith(lse, folded.getLse());
    rewriter.eraseOp(op);
    return success();
  }
};

struct FoldAttentionLayoutPass
    : public pe::impl::FoldAttentionLayoutBase<FoldAttentionLayoutPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateFoldAttentionLayoutPatterns(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    // What stayed bhsd for a reason the user can change.
    getOperation()->walk([&](AttentionOp op) {
      std::string reason;
      if (failed(matchSwappedOperands(op, reason)) && !reason.empty())
        emitMissedRemark(op, getArgument(), "layout-not-folded", reason);
    });
  }
};

} // namespace

void mlir::pe::populateFoldAttentionLayoutPatterns(
    RewritePatternSet &patterns) {
  patterns.add<FoldSwappedOperands>(patterns.getContext());
}
