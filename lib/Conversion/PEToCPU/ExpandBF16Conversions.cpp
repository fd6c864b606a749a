//===- ExpandBF16Conversions.cpp - pe-expand-bf16-conversions -------------===//
//
// Part of the pe-mlir project.
//
// f32 <-> bf16 conversions in integer arithmetic for CPU targets whose LLVM
// backend has no vector conversion (x86-64 without AVX512-BF16).
//
//===----------------------------------------------------------------------===//

#include "pe/Conversion/PEToCPU/CPUTarget.h"
#include "pe/Conversion/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/TargetParser/Triple.h"

#define DEBUG_TYPE "pe-expand-bf16-conversions"

namespace mlir {
namespace pe {
#define GEN_PASS_DEF_EXPANDBF16CONVERSIONS
#include "pe/Conversion/Passes.h.inc"
} // namespace pe
} // namespace mlir

using namespace mlir;
using namespace mlir::pe;

namespace {

/// `arith.truncf` f32 -> bf16 (round to nearest even) in integer arithmetic
/// whose last step is the bit cast to bf16, NaN included: a NaN keeps its
/// sign and leading payload bits and gets the quiet bit, as
/// `vcvtneps2bf16` and `__truncsfbf2` round it. Upstream's expansion selects
/// the NaN as a bf16 constant after the cast; LLVM's InstCombine then moves
/// the cast above the select, and the X86 backend without AVX512-BF16
/// scalarizes a select on bf16 vectors (a compare, a cmov and a 2-byte
/// store per lane, the streaming hint lost). Here the select is on the
/// i32 bits, before the shift.
struct TruncFToBF16 : OpRewritePattern<arith::TruncFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::TruncFOp op,
                                PatternRewriter &rewriter) const override {
    Type inType = op.getIn().getType(), outType = op.getType();
    if (!getElementTypeOrSelf(inType).isF32() ||
        !getElementTypeOrSelf(outType).isBF16())
      return rewriter.notifyMatchFailure(op, "not f32 -> bf16");
    if (std::optional<arith::RoundingMode> mode = op.getRoundingmode();
        mode && *mode != arith::RoundingMode::to_nearest_even)
      return rewriter.notifyMatchFailure(op, "rounding mode is not to "
                                             "nearest even");
    Location loc = op.getLoc();
    auto like = [&](Type base, Type element) -> Type {
      if (auto shaped = dyn_cast<ShapedType>(base))
        return shaped.clone(element);
      return element;
    };
    Type i32 = like(inType, rewriter.getI32Type());
    Type i16 = like(outType, rewriter.getI16Type());
    auto constant = [&](int64_t v) -> Value {
      TypedAttr attr = rewriter.getI32IntegerAttr(v);
      if (auto shaped = dyn_cast<ShapedType>(i32))
        attr = SplatElementsAttr::get(shaped, APInt(32, v));
      return arith::ConstantOp::create(rewriter, loc, i32, attr);
    };
    Value bits = arith::BitcastOp::create(rewriter, loc, i32, op.getIn());
    Value isNan = arith::CmpFOp::create(
        rewriter, loc, arith::CmpFPredicate::UNO, op.getIn(), op.getIn());
    Value sixteen = constant(16);
    Value lsb = arith::AndIOp::create(
        rewriter, loc, arith::ShRUIOp::create(rewriter, loc, bits, sixteen),
        constant(1));
    Value rounded = arith::AddIOp::create(
        rewriter, loc, bits,
        arith::AddIOp::create(rewriter, loc, lsb, constant(0x7fff)));
    Value quiet = arith::OrIOp::create(rewriter, loc, bits, constant(0x400000));
    Value chosen =
        arith::SelectOp::create(rewriter, loc, isNan, quiet, rounded);
    Value high = arith::ShRUIOp::create(rewriter, loc, chosen, sixteen);
    Value narrow = arith::TruncIOp::create(rewriter, loc, i16, high);
    rewriter.replaceOpWithNewOp<arith::BitcastOp>(op, outType, narrow);
    return success();
  }
};

struct ExpandBF16ConversionsPass
    : public pe::impl::ExpandBF16ConversionsBase<ExpandBF16ConversionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<CPUTarget> target = lookupCPUTarget(module);
    if (failed(target))
      return signalPassFailure();
    if (llvm::Triple(target->triple).getArch() != llvm::Triple::x86_64 ||
        target->hasFeature("avx512bf16"))
      return;
    RewritePatternSet patterns(&getContext());
    // Ahead of upstream's truncf expansion; its extf expansion stays.
    patterns.add<TruncFToBF16>(&getContext(), /*benefit=*/2);
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
