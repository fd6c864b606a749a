//===- ApproximateMath.cpp - polynomial f32 math --------------------------===//
//
// Part of the pe-mlir project.
//
// Upstream gap: MLIR 22 has the polynomial approximations of f32 math ops
// only as patterns (populateMathPolynomialApproximationPatterns, and a test
// pass); pe-approximate-math applies them as a pass.
//
//===----------------------------------------------------------------------===//

#include "pe/Transforms/Math/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "pe/Transforms/Math/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;

namespace {
/// Whether every operand and result of `op` is a scalar or a vector: the
/// upstream approximations build their constants for those types only (on a
/// tensor they would build scalar constants and invalid IR), so math on whole
/// tensors is left alone. The pipelines lower it to linalg payloads first
/// (convert-elementwise-to-linalg), where it is scalar.
static bool isScalarOrVectorOp(Operation *op) {
  auto scalarOrVector = [](Type t) {
    return !isa<ShapedType>(t) || isa<VectorType>(t);
  };
  return llvm::all_of(op->getOperandTypes(), scalarOrVector) &&
         llvm::all_of(op->getResultTypes(), scalarOrVector);
}

struct ApproximateMathPass
    : public pe::impl::ApproximateMathBase<ApproximateMathPass> {
  void runOnOperation() override {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<math::MathDialect>(op->getDialect()) && isScalarOrVectorOp(op))
        ops.push_back(op);
    });
    RewritePatternSet patterns(&getContext());
    populateMathPolynomialApproximationPatterns(patterns);
    // The ops the patterns create have the types of the op they replace.
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
    if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config)))
      signalPassFailure();
  }
};
} // namespace
