//===- WidenRopeFrequencies.cpp - f64 tables for frequency ops that rotate ===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//
//
// Runs the frequency ops' widening pattern (lib/Dialect/PE/IR/
// FrequencyWidening.cpp): an f32 inv_freq result whose only uses are inv_freq
// operands of pe.rope / pe.attention becomes f64, the exact value those
// angles are defined with. pe-fold-frequencies and convert-pe-to-linalg run
// it first, so folded tables and the lowerings of run-time frequency ops are
// f64 there and both pipelines compute the same angles.
//
//===----------------------------------------------------------------------===//

#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::pe;

void mlir::pe::populateWidenRopeFrequenciesPatterns(
    RewritePatternSet &patterns) {
  addWidenRopeFrequencyTablePattern(patterns);
}

LogicalResult mlir::pe::widenRopeFrequencies(Operation *root) {
  // Only the frequency ops are visited (and the clones that replace them),
  // without folding: nothing else in `root` changes.
  SmallVector<Operation *> ops;
  root->walk([&](Operation *op) {
    if (needsWideRopeTable(op))
      ops.push_back(op);
  });
  if (ops.empty())
    return success();
  RewritePatternSet patterns(root->getContext());
  populateWidenRopeFrequenciesPatterns(patterns);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingOps)
      .enableFolding(false)
      .enableConstantCSE(false);
  return applyOpPatternsGreedily(ops, std::move(patterns), config);
}
