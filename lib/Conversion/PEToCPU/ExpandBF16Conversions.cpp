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
    arith::populateExpandBFloat16Patterns(patterns);
    if (failed(applyPatternsGreedily(module, std::move(patterns))))
      return signalPassFailure();
  }
};
} // namespace
