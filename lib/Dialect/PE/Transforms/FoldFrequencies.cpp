//===- FoldFrequencies.cpp - evaluate frequency ops at compile time -------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#define DEBUG_TYPE "pe-fold-frequencies"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_FOLDFREQUENCIES
#include "pe/Dialect/PE/Transforms/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

LogicalResult mlir::pe::foldFrequencyOp(Operation *op, RewriterBase &rewriter) {
  if (!isa<FrequencyOpInterface>(op))
    return failure();
  SmallVector<Attribute> operands;
  for (Value v : op->getOperands()) {
    Attribute attr;
    matchPattern(v, m_Constant(&attr));
    operands.push_back(attr);
  }
  SmallVector<OpFoldResult> folded;
  if (failed(op->fold(operands, folded)) ||
      folded.size() != op->getNumResults())
    return failure();
  rewriter.setInsertionPoint(op);
  SmallVector<Value> values;
  for (OpFoldResult fold : folded) {
    if (auto v = dyn_cast<Value>(fold))
      values.push_back(v);
    else
      values.push_back(arith::ConstantOp::create(
          rewriter, op->getLoc(), cast<TypedAttr>(cast<Attribute>(fold))));
  }
  rewriter.replaceOp(op, values);
  return success();
}

namespace {
struct FoldFrequenciesPass
    : public pe::impl::FoldFrequenciesBase<FoldFrequenciesPass> {
  void runOnOperation() override {
    // f32 tables that only feed rope angles become f64 first, so that they
    // fold to their exact values.
    if (failed(widenRopeFrequencies(getOperation())))
      return signalPassFailure();
    IRRewriter rewriter(&getContext());
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops)
      (void)foldFrequencyOp(op, rewriter);
  }
};
} // namespace
