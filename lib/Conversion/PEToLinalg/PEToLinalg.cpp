//===- PEToLinalg.cpp - lower pe ops to linalg ----------------------------===//
//
// Part of the pe-mlir project.
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/PEToLinalg/PEToLinalg.h"
#include "pe/Conversion/Passes.h"
#include "pe/Dialect/PE/IR/PEOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_CONVERTPETOLINALG
#include "pe/Conversion/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

void mlir::pe::populatePEToLinalgConversionPatterns(
    RewritePatternSet &patterns) {}

namespace {
struct ConvertPEToLinalgPass
    : public pe::impl::ConvertPEToLinalgBase<ConvertPEToLinalgPass> {
  void runOnOperation() override {
    ConversionTarget target(getContext());
    target.addIllegalDialect<PEDialect>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    RewritePatternSet patterns(&getContext());
    populatePEToLinalgConversionPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target,
                                      std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
