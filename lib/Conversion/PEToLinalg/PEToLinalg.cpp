//===- PEToLinalg.cpp - lower pe ops to linalg ----------------------------===//
//
// Part of the pe-mlir project.
//
// Each pattern spells out the formula of its op's description (PEOps.td) as
// a linalg.generic on tensors. Values that depend only on attributes
// (sinusoidal frequencies, ALiBi slopes, folded frequency tables) come from
// pe/Support/PEMath.h, the same code the folders use; everything that depends
// on run-time values is computed in the generic bodies:
//
// * angles (position x frequency) and sin/cos of RoPE and the sinusoidal
//   encoding are evaluated in f64, then rounded once;
// * the rest of the arithmetic runs in f32 (f64 for f64 tensors), and the
//   result is rounded once to the element type.
//
// The patterns live in one file per op family (see LinalgLowering.h); this
// file holds the populate function and the pass.
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/PEToLinalg/PEToLinalg.h"
#include "LinalgLowering.h"
#include "pe/Conversion/Passes.h"
#include "pe/Dialect/PE/IR/PEOps.h"
#include "pe/Dialect/PE/Transforms/Passes.h"

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
using namespace mlir::pe::linalg_lowering;

void mlir::pe::populatePEToLinalgConversionPatterns(
    RewritePatternSet &patterns) {
  MLIRContext *ctx = patterns.getContext();
  patterns
      .add<AddSinusoidalLowering, AddLearnedLowering, RopeLowering,
           AlibiBiasLowering, AttentionLowering, AttentionEncodingDecomposition,
           DynamicNtkLowering, LongRopeLowering, FoldedFrequencyLowering>(ctx);
}

namespace {
struct ConvertPEToLinalgPass
    : public pe::impl::ConvertPEToLinalgBase<ConvertPEToLinalgPass> {
  void runOnOperation() override {
    // Report what no pattern can lower once, with the reason, instead of the
    // generic "failed to legalize" of the conversion driver.
    WalkResult unsupported = getOperation()->walk([](AttentionOp op) {
      auto q = op.getQuery().getType(), k = op.getKey().getType();
      if (q.isDynamicDim(op.getHeadsAxis()) ||
          k.isDynamicDim(op.getHeadsAxis())) {
        op->emitOpError("lowering needs static head counts, got ")
            << q << " and " << k;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (unsupported.wasInterrupted())
      return signalPassFailure();
    // f32 tables that only feed rope angles become f64 first: those angles
    // use the frequency op's exact value (PEOps.td), which the folders and
    // the run-time lowerings below then produce.
    if (failed(widenRopeFrequencies(getOperation())))
      return signalPassFailure();
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
